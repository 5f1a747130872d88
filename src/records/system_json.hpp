// The machine (System) as every result's "environment" and 'xferbench list
// --format json' write it, in both directions.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/topology.hpp"

namespace xb::records {

nlohmann::json system_json(const System& sys);

// Throws DecodeError (records/document.hpp) naming the first missing or
// mistyped field; fields the planner does not need may be absent (older
// files). Every System read back (topology files, recorded runs) comes
// through here. `path`: where `env` is in its document, for the messages.
System decode_system(const nlohmann::json& env, const std::string& path = "");

}  // namespace xb::records
