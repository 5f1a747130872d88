#include "fleet/node_json.hpp"

#include <fmt/format.h>

#include "base/error.hpp"
#include "cases/sweep_json.hpp"
#include "records/check_verdict_json.hpp"
#include "records/run_json.hpp"
#include "records/scenario_json.hpp"

namespace xb::fleet {
namespace {

using json = nlohmann::json;

std::string to_bytes(const json& j) {
  const std::vector<std::uint8_t> cbor = json::to_cbor(j);
  return std::string(cbor.begin(), cbor.end());
}

json from_bytes(const std::string& bytes, const std::string& what) {
  try {
    return json::from_cbor(bytes.begin(), bytes.end());
  } catch (const json::exception& e) {
    fail(ErrorKind::comm, fmt::format("malformed {}: {}", what, e.what()));
  }
}

json error_json(const std::optional<Error>& e) {
  if (!e) return nullptr;
  return {{"kind", static_cast<int>(e->kind())}, {"message", e->what()}};
}

std::optional<Error> error_from(const json& j) {
  if (j.is_null()) return std::nullopt;
  return Error(static_cast<ErrorKind>(j.at("kind").get<int>()), j.at("message").get<std::string>());
}

}  // namespace

std::string hello_bytes(const Hello& h) {
  return json{{"host", h.host}, {"leader", h.leader}, {"pid", h.pid}}.dump();
}

Hello read_hello(const std::string& bytes) {
  const json j = json::parse(bytes);
  return {j.at("host").get<std::string>(), j.at("leader").get<int>(), j.at("pid").get<long>()};
}

std::string decision_bytes(const Decision& d) {
  return to_bytes({{"nodes", d.nodes}, {"leader_pid", d.leader_pid}, {"stop", error_json(d.stop)}});
}

Decision read_decision(const std::string& bytes) {
  const json j = from_bytes(bytes, "start message");
  return {j.at("nodes").get<std::size_t>(), j.at("leader_pid").get<long>(), error_from(j.at("stop"))};
}

std::string verdict_bytes(const LeaderVerdict& v) {
  return json{{"leader_died", v.leader_died}, {"message", v.message}}.dump();
}

LeaderVerdict read_verdict(const std::string& bytes) {
  const json j = json::parse(bytes);
  return {j.at("leader_died").get<bool>(), j.at("message").get<std::string>()};
}

// The document rides as a CBOR byte string inside the record's CBOR.
std::string record_bytes(const NodeRecord& r) {
  const json result = r.document.empty() ? json(nullptr)
                                         : json::binary(std::vector<std::uint8_t>(r.document.bytes.begin(),
                                                                                  r.document.bytes.end()));
  return to_bytes({{"exit_code", r.exit_code}, {"error_kind", r.error_kind}, {"error", r.error}, {"result", result}});
}

void read_record(const std::string& bytes, NodeRecord& r) {
  const json wire = from_bytes(bytes, "node record");
  try {
    r.exit_code = wire.at("exit_code").get<int>();
    r.error_kind = wire.at("error_kind").get<std::string>();
    r.error = wire.at("error").get<std::string>();
    const json& result = wire.at("result");
    r.document = {};
    if (!result.is_null()) {
      const auto& b = result.get_binary();
      r.document.bytes.assign(b.begin(), b.end());
    }
  } catch (const json::exception& e) {
    fail(ErrorKind::comm, fmt::format("malformed node record: {}", e.what()));
  }
}

const RunResult* run_of(const ResultRecord& r) {
  if (const auto* run = std::get_if<RunResult>(&r)) return run;
  if (const auto* checked = std::get_if<CheckedRun>(&r)) return &checked->run;
  return nullptr;
}

const records::CheckVerdict* check_of(const ResultRecord& r) {
  const auto* checked = std::get_if<CheckedRun>(&r);
  return checked ? &checked->check : nullptr;
}

NodeDocument node_document(const json& doc) {
  if (doc.is_null()) return {};
  const std::vector<std::uint8_t> cbor = json::to_cbor(doc);
  return NodeDocument(std::string(cbor.begin(), cbor.end()));
}

json document_json(const NodeDocument& d) {
  if (d.empty()) return nullptr;
  try {
    return json::from_cbor(d.bytes.begin(), d.bytes.end());
  } catch (const json::exception& e) {
    fail(ErrorKind::comm, fmt::format("malformed node result: {}", e.what()));
  }
}

ResultRecord decode_node_result(const json& doc) {
  if (doc.is_null()) return {};
  const std::string schema = doc.is_object() && doc.value("schema", json()).is_string() ? doc["schema"].get<std::string>() : "";
  const std::string name = "the node's result";
  if (schema == records::kSchemaName) {
    RunResult run = records::decode_run(doc, name);
    if (!doc.contains(records::kCheckSectionKey)) return run;
    return CheckedRun{std::move(run), records::decode_check_verdict(doc[records::kCheckSectionKey], name)};
  }
  if (schema == records::kSweepSchemaName) return records::decode_sweep(doc, name);
  if (schema == records::kScenarioSchemaName) return records::decode_scenario(doc, name);
  fail(ErrorKind::usage, fmt::format("a fleet compares run, sweep or scenario results, not '{}'", schema));
}

ResultRecord decode_node_result(const NodeDocument& d) { return decode_node_result(document_json(d)); }

}  // namespace xb::fleet
