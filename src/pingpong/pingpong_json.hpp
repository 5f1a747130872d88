// The process-to-process record (pingpong::Result) as JSON, schema
// "xferbench-pingpong" version 1, in both directions; and the same pairs
// on the wire that gathers them to every rank.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pingpong/result.hpp"

namespace xb::records {

inline constexpr const char* kPingpongSchema = "xferbench-pingpong";
inline constexpr int kPingpongSchemaVersion = 1;

nlohmann::json pingpong_json(const pingpong::Result& r, const std::vector<std::string>& argv);
// Error(usage) "NAME is a malformed xferbench-pingpong result: FIELD: PROBLEM".
pingpong::Result decode_pingpong(const nlohmann::json& doc, const std::string& name);

// The pairs as the document holds them, plus what only the ranks need
// (error kinds, stops, CoV). Internal to one run: every rank is this build.
std::string pairs_to_wire(const std::vector<pingpong::PairResult>& pairs);
std::vector<pingpong::PairResult> pairs_from_wire(const std::string& text);

}  // namespace xb::records
