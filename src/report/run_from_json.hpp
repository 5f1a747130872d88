// Reads a run JSON (schema "xferbench-run", what 'xferbench run -o' and
// --format json write) back into the result records, so any reporter can
// render a recorded run again: 'xferbench compare' reads the JSON directly,
// the nvbandwidth-format tests render real recorded runs through this.
#pragma once

#include <nlohmann/json.hpp>

#include "records/result.hpp"
#include "machine/topology.hpp"

namespace xb::report {

// The "environment" object of a run JSON (also 'xferbench list --format json').
System system_from_json(const nlohmann::json& env);

// Throws Error(usage) naming the missing or mistyped field, or the schema
// when the document is not an xferbench run of schema version 1.
RunResult run_from_json(const nlohmann::json& doc);

}  // namespace xb::report
