// compare for fleet files: node by node, with the ordinary per-cell rule.
#include <fmt/format.h>

#include "compare/compare.hpp"
#include "base/error.hpp"
#include "fleet/summary.hpp"

namespace xb {
namespace {

using json = nlohmann::json;

const json& nodes_of(const json& doc, const std::string& name) {
  const json& v = doc.value("schema_version", json());
  if (!v.is_number_integer() || v.get<int>() != 1)
    fail(ErrorKind::usage, fmt::format("{} has xferbench-fleet schema_version {}: this xferbench reads version 1", name,
                                       v.dump()));
  if (!doc.contains("nodes") || !doc["nodes"].is_object())
    fail(ErrorKind::usage, fmt::format("{} is a malformed xferbench-fleet result: no \"nodes\" object", name));
  return doc["nodes"];
}

bool has_result(const json& node) { return fleet::member(node, "result").is_object(); }

std::string why_no_result(const json& node) {
  if (node.contains("error") && node["error"].is_object()) return node["error"].value("message", "error");
  return "no result";
}

}  // namespace

bool is_fleet_document(const json& doc) {
  return doc.is_object() && doc.value("schema", json()).is_string() && doc["schema"].get<std::string>() == "xferbench-fleet";
}

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
  out.schema = "xferbench-fleet";
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

}  // namespace xb
