// The machine (System) as every result's "environment" and 'xferbench list
// --format json' write it, in both directions.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/topology.hpp"

namespace xb::records {

nlohmann::json system_json(const System& sys);

// Throws DecodeError (records/document.hpp) naming the first missing or
// mistyped field. Every System read back (topology files, recorded
// results) comes through here. `complete`: the GPU fields the planner
// needs and every GPU link must be there (a topology); else only the GPUs'
// indices are (results trimmed for compare). Other fields may be absent
// (older files). `path`: where `env` is in its document, for the messages.
System decode_system(const nlohmann::json& env, const std::string& path = "", bool complete = true);

}  // namespace xb::records
