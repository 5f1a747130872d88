// Size sweeps (SweepResult, schema "xferbench-sweep") and SM budget sweeps
// (SmSweepResult, schema "xferbench-sms") as JSON, in both directions.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "cases/sm_sweep.hpp"
#include "cases/sweep.hpp"

namespace xb::records {

inline constexpr const char* kSweepSchemaName = "xferbench-sweep";
inline constexpr int kSweepSchemaVersion = 1;
inline constexpr const char* kSmSweepSchemaName = "xferbench-sms";
inline constexpr int kSmSweepSchemaVersion = 1;

// passed / failed / waived, or interrupted / partial when sizes are missing.
std::string sweep_status_text(const SweepResult& r);

nlohmann::json sweep_json(const SweepResult& r);
nlohmann::json sm_sweep_json(const SmSweepResult& r);

// Only "series" with their "rows" (bytes, value, stats) are required.
// Error(usage) "NAME is a malformed SCHEMA result: FIELD: PROBLEM".
SweepResult decode_sweep(const nlohmann::json& doc, const std::string& name);
SmSweepResult decode_sm_sweep(const nlohmann::json& doc, const std::string& name);

}  // namespace xb::records
