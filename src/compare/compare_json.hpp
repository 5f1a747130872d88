// The edge of compare: the two JSON documents a user hands in (run, sweep,
// fleet or fabric results; soak files are read by soak/), each decoded once
// by its record's codec and compared as records (compare.hpp).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "compare/compare.hpp"

namespace xb {

// Throws Error(usage) with one line naming the file (old_name / new_name)
// for a document of another tool or schema version, documents of different
// kinds, or cases / cells / series / sizes present in only one of them.
// Two fleet files (docs/fleet.md) are compared node by node, two fabric
// files pair by pair.
CompareResult compare_documents(const nlohmann::json& old_doc, const nlohmann::json& new_doc, const CompareOptions& opts,
                                const std::string& old_name = "OLD", const std::string& new_name = "NEW");

}  // namespace xb
