// The scenario result (records/scenario.hpp) as JSON, schema
// "xferbench-scenario" version 1 (what 'xferbench run --do -o' and
// 'xferbench cuts -o' write), in both directions. Status passed / failed,
// or interrupted / partial with a "stop" section and every measured field
// null, or failed with "error" and every measured field null.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "records/scenario.hpp"

namespace xb::records {

inline constexpr const char* kScenarioSchemaName = "xferbench-scenario";
inline constexpr int kScenarioSchemaVersion = 1;

nlohmann::json scenario_json(const ScenarioResult& r);
// "passed", "failed", "interrupted" or "partial": the document's "status".
std::string scenario_status(const ScenarioResult& r);
// Every section scenario_json() writes; "transfers" is required.
// Error(usage) "NAME is a malformed xferbench-scenario result: FIELD:
// PROBLEM". The schema is the caller's to check. What the document does
// not hold stays at its default: an error's kind (internal), and a host
// side's NUMA node when the document has none (null).
ScenarioResult decode_scenario(const nlohmann::json& doc, const std::string& name);

}  // namespace xb::records
