// The fleet's edge: a node's result document, as its command's codec wrote
// it (run_json, sweep_json, scenario_json, report::check_json), travels to
// rank 0 as bytes and is decoded there once into its record; the fleet
// file (schema "xferbench-fleet", written by report/fleet_report.cpp) holds
// each node's document as the node wrote it. Nothing else of the fleet
// reads JSON.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "fleet/node_result.hpp"

namespace xb::fleet {

inline constexpr const char* kFleetSchemaName = "xferbench-fleet";
inline constexpr int kFleetSchemaVersion = 1;

// The document as it travels (CBOR), and back; an empty one is null.
NodeDocument node_document(const nlohmann::json& doc);
nlohmann::json document_json(const NodeDocument& d);

// Decodes a result document (xferbench-run, with or without check's
// "check" section, -sweep, -scenario) once; Error(usage) for another
// schema or a malformed document. A null document is no result.
ResultRecord decode_node_result(const nlohmann::json& doc);
ResultRecord decode_node_result(const NodeDocument& d);

// The session's messages between ranks (fleet/per_node.cpp), each encoded
// and decoded here. A malformed message is Error(comm) where it was
// sent as CBOR (the start message, a node's record).
struct Hello {  // every rank -> 0
  std::string host;
  int leader = 0;
  long pid = 0;
};
struct Decision {  // 0 -> every rank
  std::size_t nodes = 0;
  long leader_pid = 0;
  std::optional<Error> stop;
};
struct LeaderVerdict {  // a node's deputy -> 0
  bool leader_died = false;
  std::string message;
};
std::string hello_bytes(const Hello& h);
Hello read_hello(const std::string& bytes);
std::string decision_bytes(const Decision& d);
Decision read_decision(const std::string& bytes);
std::string verdict_bytes(const LeaderVerdict& v);
LeaderVerdict read_verdict(const std::string& bytes);
// A record without its node, which rank 0 knows.
std::string record_bytes(const NodeRecord& r);
void read_record(const std::string& bytes, NodeRecord& r);

}  // namespace xb::fleet
