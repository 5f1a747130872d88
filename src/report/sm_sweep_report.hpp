// Reporters for the SM budget sweep (`xferbench sweep --sms`): a table per
// series (SM count, GB/s, % of the link's peak, % of the all-SM figure) and
// the SM counts reaching 90% / 95%; JSON schema xferbench-sms; CSV.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "cases/sm_sweep.hpp"

namespace xb::report {

inline constexpr const char* kSmSweepSchemaName = "xferbench-sms";
inline constexpr int kSmSweepSchemaVersion = 1;

std::string sm_sweep_text(const SmSweepResult& r);
nlohmann::json sm_sweep_json(const SmSweepResult& r);
std::string sm_sweep_csv(const SmSweepResult& r);

}  // namespace xb::report
