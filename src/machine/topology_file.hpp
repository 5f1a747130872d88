// A System read back from a recorded `xferbench list --format json` (or the
// "environment" of a run or sweep JSON), so `run --dry-run --topology FILE`
// plans for another machine and tests use recorded topologies. No CUDA.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "machine/topology.hpp"

namespace xb {

// The "environment" section as run, sweep and list JSON write it
// (report::system_json), or a document holding one. Throws
// std::exception (nlohmann's or runtime_error) for the first missing or
// mistyped field; fields the planner does not need may be absent. The one
// System reader: topology files, recorded runs and resume use it.
System environment_from_json(const nlohmann::json& doc);

// A peak as report::system_json writes it; null or not an object: unknown.
Peak peak_from_json(const nlohmann::json& j);

// Throws Error(usage) naming `name` and the first missing or mistyped
// field. Fields the planner does not need may be absent (older files).
System system_from_json(const nlohmann::json& doc, const std::string& name);

// Reads the file (base/input_file.hpp); Error(usage) when it cannot be read,
// is not JSON or is not a topology.
System load_topology_file(const std::string& path);

}  // namespace xb
