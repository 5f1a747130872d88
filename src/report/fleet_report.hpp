// Reporters for a fleet (one launch measuring many nodes): a text table
// with a row per node and the key tests as columns, outliers marked '!',
// grouped by GPU model and count; JSON (schema "xferbench-fleet", version
// 1: every node's full result keyed by host name, plus the fleet section);
// CSV (one row per node and cell, or per failed node).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "fleet/summary.hpp"

namespace xb::report {

inline constexpr const char* kFleetSchemaName = "xferbench-fleet";
inline constexpr int kFleetSchemaVersion = 1;

std::string fleet_text(const fleet::Fleet& f);
nlohmann::json fleet_json(const fleet::Fleet& f);
std::string fleet_csv(const fleet::Fleet& f);

// The tests shown as columns: the well-known cases first (host <-> GPU and
// GPU <-> GPU copies, local copy, latencies), then others in the order the
// results list them; at most `max_columns`.
std::vector<std::string> fleet_columns(const fleet::Fleet& f, std::size_t max_columns = 8);

}  // namespace xb::report
