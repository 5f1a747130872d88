// A System read back from a recorded `xferbench list --format json` (or the
// "environment" of a run or sweep JSON), so `run --dry-run --topology FILE`
// plans for another machine and tests use recorded topologies. No CUDA.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "machine/topology.hpp"

namespace xb {

// The System of a list document, or of any result with an "environment"
// (records::decode_system). Throws Error(usage) naming `name` and the first
// missing or mistyped field.
System system_from_json(const nlohmann::json& doc, const std::string& name);

// Reads the file (base/input_file.hpp); Error(usage) when it cannot be read,
// is not JSON or is not a topology.
System load_topology_file(const std::string& path);

}  // namespace xb
