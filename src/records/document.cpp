#include "records/document.hpp"

#include "base/build_info.hpp"

namespace xb {

void to_json(nlohmann::json& j, const Peak& p) {
  j = p.known() ? nlohmann::json{{"gbps", p.gbps}, {"formula", p.formula}, {"source", p.source}} : nullptr;
}

void from_json(const nlohmann::json& j, Peak& p) {
  p = {j.value("gbps", 0.0), j.value("formula", ""), j.value("source", "")};
}

}  // namespace xb

namespace xb::records {

using json = nlohmann::json;

Fields::Fields(const json& j, std::string path) : j_(j), path_(std::move(path)) {
  if (!j_.is_object()) throw DecodeError(path_.empty() ? "not an object" : path_ + ": not an object");
}

bool Fields::has(const std::string& key) const {
  const auto it = j_.find(key);
  return it != j_.end() && !it->is_null();
}

Fields Fields::object(const std::string& key) const {
  if (!has(key)) bad(key, "missing");
  return Fields(j_.at(key), path_of(key));
}

std::vector<Fields> Fields::items(const std::string& key) const {
  if (!has(key)) bad(key, "missing");
  const json& a = j_.at(key);
  if (!a.is_array()) bad(key, "not an array");
  std::vector<Fields> out;
  for (std::size_t i = 0; i < a.size(); ++i)
    out.emplace_back(a[i], fmt::format("{}[{}]", path_of(key), i));
  return out;
}

void Fields::bad(const std::string& key, const std::string& problem) const {
  throw DecodeError(fmt::format("{}: {}", path_of(key), problem));
}

std::string Fields::path_of(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

json tool_json() {
  json t = {{"name", "xferbench"}, {"version", XFERBENCH_VERSION}};
  if (*build_git_hash() != '\0') t["git"] = build_git_hash();
  return t;
}

json completion_json(const Completion& c) {
  json j = {{"time_limit_seconds", c.time_limit_s > 0 ? json(c.time_limit_s) : json(nullptr)}};
  if (c.status == RunStatus::complete) return j;
  j["reason"] = to_string(c.stop);
  j["message"] = c.message;
  j["not_run"] = c.not_run;
  return j;
}

void decode_completion(const Fields& doc, Completion& c) {
  if (!doc.has("stop")) return;
  const Fields stop = doc.object("stop");
  c.time_limit_s = stop.get("time_limit_seconds", 0.0);
  if (!stop.has("reason")) return;
  c.status = doc.get<std::string>("status", "") == "interrupted" ? RunStatus::interrupted : RunStatus::partial;
  c.stop = stop.get("reason",
                    {StopReason::none, StopReason::sigint, StopReason::sigterm, StopReason::time_limit,
                     StopReason::gpu_unusable, StopReason::memory},
                    StopReason::none);
  c.message = stop.get<std::string>("message", "");
  c.not_run = stop.get("not_run", c.not_run);
}

}  // namespace xb::records
