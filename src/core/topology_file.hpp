// A System read back from a recorded `xferbench list --format json` (or the
// "environment" of a run or sweep JSON), so `run --dry-run --topology FILE`
// plans for another machine and tests use recorded topologies. No CUDA.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/topology.hpp"

namespace xb {

// Throws Error(usage) naming `name` and the first missing or mistyped
// field. Fields the planner does not need may be absent (older files).
System system_from_json(const nlohmann::json& doc, const std::string& name);

// Reads the file; Error(io) when it cannot be read, Error(usage) when it is
// not JSON or not a topology.
System load_topology_file(const std::string& path);

}  // namespace xb
