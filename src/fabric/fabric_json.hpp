// The fabric record (fabric::Result) as JSON, schema "xferbench-fabric"
// version 1 (docs/fabric.md, "The file"), in both directions; and the legs
// a rank reports to the coordinator after each round, on the wire.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fabric/result.hpp"

namespace xb::fabric {

inline constexpr const char* kFabricSchema = "xferbench-fabric";
inline constexpr int kFabricSchemaVersion = 1;

// "passed", "failed" (a pair failed, a rank was lost, or, with
// --fail-on-culprit, a culprit was named), "interrupted" or "partial".
std::string status_text(const Result& r);

nlohmann::json fabric_json(const Result& r);
bool is_fabric_document(const nlohmann::json& doc);
// Error(usage) "NAME is a malformed xferbench-fabric result: FIELD: PROBLEM",
// or naming another schema version. The findings are computed again from
// the pairs, with the file's --min-ratio and --metric.
Result decode_fabric(const nlohmann::json& doc, const std::string& name);

// One leg as a rank measured it, for the coordinator.
struct LegReport {
  int slot = 0;   // index of the pair in its round
  int leg = 0;    // 0: bandwidth a->b, 1: bandwidth b->a, 2: latency
  std::string transport, path;
  std::optional<Leg> result;  // absent: the leg was not measured (error or stop says why)
  std::string error;
  ErrorKind error_kind = ErrorKind::internal;
  StopReason stop = StopReason::none;
};

std::string legs_to_wire(int round, const std::vector<LegReport>& legs);
// Error(comm) when `text` is not a report.
std::vector<LegReport> legs_from_wire(const std::string& text, int& round);

}  // namespace xb::fabric
