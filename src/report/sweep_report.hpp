// Reporters for size sweeps: a text table per series between `#` header and
// footer lines, JSON (schema "xferbench-sweep", version 1, units in field
// names) and CSV (one row per series and size, the series' fit repeated on
// each of its rows so every row stands alone).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/sweep.hpp"

namespace xb::report {

inline constexpr const char* kSweepSchemaName = "xferbench-sweep";
inline constexpr int kSweepSchemaVersion = 1;

std::string sweep_text(const SweepResult& r);
nlohmann::json sweep_json(const SweepResult& r);
std::string sweep_csv(const SweepResult& r);

}  // namespace xb::report
