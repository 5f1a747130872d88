// What a soak found, for people and programs: a text table per cell
// (samples, min / median / max, the trend with its interval, the steps with
// their times, failed and weak-load samples), the telemetry episodes lined
// up with the cells they touched, and a verdict line; and the same as JSON.
#pragma once

#include <ostream>

#include <nlohmann/json.hpp>

#include "soak/soak_analysis.hpp"
#include "soak/soak_record.hpp"

namespace xb::report {

void print_soak_summary(std::ostream& out, const soak::SoakSummary& s, const soak::Header& h);
nlohmann::json soak_summary_json(const soak::SoakSummary& s);

// One cell's trend as text: "-0.51 (-0.55..-0.47) drift".
std::string soak_trend_text(const soak::CellSummary& c);
// One step as text: "-9.9% at 2026-11-25T07:00:00.000Z (t=10800 s)".
std::string soak_step_text(const soak::Step& s);

}  // namespace xb::report
