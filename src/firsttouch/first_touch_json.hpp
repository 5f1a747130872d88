// The first-touch record (firsttouch::Result) as JSON, schema
// "xferbench-first-touch" version 1, in both directions; and the per
// iteration phases on the wire that gathers them to rank 0.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "firsttouch/result.hpp"

namespace xb::records {

inline constexpr const char* kFirstTouchSchema = "xferbench-first-touch";
inline constexpr int kFirstTouchSchemaVersion = 1;

nlohmann::json first_touch_json(const firsttouch::Result& r, const std::vector<std::string>& argv);
// Error(usage) "NAME is a malformed xferbench-first-touch result: FIELD: PROBLEM".
firsttouch::Result decode_first_touch(const nlohmann::json& doc, const std::string& name);

// Per variant, per iteration: the phases as the document holds them.
std::string phases_to_wire(const std::vector<std::vector<firsttouch::Phases>>& per_variant);
std::vector<std::vector<firsttouch::Phases>> phases_from_wire(const std::string& text);

}  // namespace xb::records
