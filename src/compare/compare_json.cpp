// The documents compare is handed (compare_json.hpp): each one's kind told
// from its schema, decoded by its record's codec, and the records compared
// (compare.hpp); fleet files are walked node by node here, each node's
// result document compared as one file.
#include "compare/compare_json.hpp"

#include <fmt/format.h>

#include "base/error.hpp"
#include "cases/sweep_json.hpp"
#include "fabric/fabric_json.hpp"
#include "fleet/node_json.hpp"
#include "records/run_json.hpp"

namespace xb {
namespace {

using json = nlohmann::json;

[[noreturn]] void bad(const std::string& message) { fail(ErrorKind::usage, message); }

std::string schema_of(const json& doc, const std::string& name) {
  if (!doc.is_object() || !doc.contains("schema") || !doc["schema"].is_string())
    bad(fmt::format("{} is not an xferbench result: no \"schema\" field", name));
  const std::string schema = doc["schema"].get<std::string>();
  if (schema != records::kSchemaName && schema != records::kSweepSchemaName)
    bad(fmt::format("{} has schema '{}': compare reads {} and {} results", name, schema, records::kSchemaName,
                    records::kSweepSchemaName));
  const int version = schema == records::kSchemaName ? records::kSchemaVersion : records::kSweepSchemaVersion;
  const json& v = doc.value("schema_version", json());
  if (!v.is_number_integer() || v.get<int>() != version)
    bad(fmt::format("{} has {} schema_version {}: this xferbench reads version {}", name, schema, v.dump(), version));
  return schema;
}

// compare for fleet files: node by node, with the ordinary per-cell rule.
const json& nodes_of(const json& doc, const std::string& name) {
  const json& v = doc.value("schema_version", json());
  if (!v.is_number_integer() || v.get<int>() != fleet::kFleetSchemaVersion)
    fail(ErrorKind::usage, fmt::format("{} has {} schema_version {}: this xferbench reads version {}", name,
                                       fleet::kFleetSchemaName, v.dump(), fleet::kFleetSchemaVersion));
  if (!doc.contains("nodes") || !doc["nodes"].is_object())
    fail(ErrorKind::usage,
         fmt::format("{} is a malformed {} result: no \"nodes\" object", name, fleet::kFleetSchemaName));
  return doc["nodes"];
}

bool has_result(const json& node) { return node.is_object() && node.contains("result") && node["result"].is_object(); }

std::string why_no_result(const json& node) {
  if (node.contains("error") && node["error"].is_object()) return node["error"].value("message", "error");
  return "no result";
}

bool is_fleet_document(const json& doc) {
  return doc.is_object() && doc.value("schema", json()).is_string() && doc["schema"].get<std::string>() == fleet::kFleetSchemaName;
}

// Two fleet results (schema "xferbench-fleet", docs/fleet.md): the nodes
// present in both are compared as above, their keys prefixed with the node
// ("host: case [row,col]"); a node in OLD that is missing or has no result
// in NEW is one "failed" entry, a node without a result in OLD or new in
// NEW one "skipped" entry. Error(usage) when only one of them is a fleet.
CompareResult compare_fleets(const json& old_doc, const json& new_doc, const CompareOptions& opts,
                             const std::string& old_name, const std::string& new_name) {
  if (!is_fleet_document(old_doc) || !is_fleet_document(new_doc)) {
    const bool old_fleet = is_fleet_document(old_doc);
    fail(ErrorKind::usage, fmt::format("{} is a fleet result but {} is not: compare a fleet file with a fleet file",
                                       old_fleet ? old_name : new_name, old_fleet ? new_name : old_name));
  }
  const json& old_nodes = nodes_of(old_doc, old_name);
  const json& new_nodes = nodes_of(new_doc, new_name);
  CompareResult out;
  out.schema = fleet::kFleetSchemaName;
  out.options = opts;
  for (const auto& [node, o] : old_nodes.items()) {
    if (!has_result(o)) {
      out.entries.push_back(note_entry(node, Verdict::skipped, fmt::format("no result in {}: {}", old_name, why_no_result(o))));
      continue;
    }
    if (!new_nodes.contains(node)) {
      out.entries.push_back(note_entry(node, Verdict::failed, fmt::format("node missing from {}", new_name)));
      continue;
    }
    const json& n = new_nodes[node];
    if (!has_result(n)) {
      out.entries.push_back(note_entry(node, Verdict::failed, fmt::format("no result in {}: {}", new_name, why_no_result(n))));
      continue;
    }
    const CompareResult r = compare_documents(o["result"], n["result"], opts, fmt::format("{} node {}", old_name, node),
                                              fmt::format("{} node {}", new_name, node));
    for (CompareEntry e : r.entries) {
      e.key = node + ": " + e.key;
      out.entries.push_back(std::move(e));
    }
  }
  for (const auto& [node, n] : new_nodes.items()) {
    if (!old_nodes.contains(node))
      out.entries.push_back(note_entry(node, Verdict::skipped, fmt::format("node not in {}", old_name)));
  }
  return out;
}

// Two fabric files (compare_fabrics), or Error(usage) when only one is.
CompareResult fabrics(const json& old_doc, const json& new_doc, const CompareOptions& opts,
                      const std::string& old_name, const std::string& new_name) {
  if (!fabric::is_fabric_document(old_doc) || !fabric::is_fabric_document(new_doc)) {
    const bool old_fabric = fabric::is_fabric_document(old_doc);
    fail(ErrorKind::usage, fmt::format("{} is a fabric result but {} is not: compare a fabric file with a fabric file",
                                       old_fabric ? old_name : new_name, old_fabric ? new_name : old_name));
  }
  const fabric::Result o = fabric::decode_fabric(old_doc, old_name);
  return compare_fabrics(o, fabric::decode_fabric(new_doc, new_name), opts, old_name, new_name);
}

}  // namespace

CompareResult compare_documents(const json& old_doc, const json& new_doc, const CompareOptions& opts,
                                const std::string& old_name, const std::string& new_name) {
  if (is_fleet_document(old_doc) || is_fleet_document(new_doc))
    return compare_fleets(old_doc, new_doc, opts, old_name, new_name);
  if (fabric::is_fabric_document(old_doc) || fabric::is_fabric_document(new_doc))
    return fabrics(old_doc, new_doc, opts, old_name, new_name);
  const std::string schema = schema_of(old_doc, old_name);
  const std::string new_schema = schema_of(new_doc, new_name);
  if (schema != new_schema)
    bad(fmt::format("{} is an {} result but {} is an {} result", old_name, schema, new_name, new_schema));
  if (schema == records::kSchemaName) {
    const RunResult o = records::decode_run(old_doc, old_name);
    return compare_runs(o, records::decode_run(new_doc, new_name), opts, old_name, new_name);
  }
  const SweepResult o = records::decode_sweep(old_doc, old_name);
  return compare_sweeps(o, records::decode_sweep(new_doc, new_name), opts, old_name, new_name);
}

}  // namespace xb
