#include "records/document.hpp"

#include "core/build_info.hpp"

namespace xb::records {

using json = nlohmann::json;

std::string problem_of(const json::exception& e) {
  const std::string what = e.what();
  const auto tag = what.find("] ");
  return what.rfind("[json.exception", 0) == 0 && tag != std::string::npos ? what.substr(tag + 2) : what;
}

Fields::Fields(const json& j, std::string path) : j_(j), path_(std::move(path)) {
  if (!j_.is_object()) throw DecodeError(path_.empty() ? "not an object" : path_ + ": not an object");
}

bool Fields::has(const char* key) const {
  const auto it = j_.find(key);
  return it != j_.end() && !it->is_null();
}

Fields Fields::object(const char* key) const {
  if (!has(key)) bad(key, "missing");
  return Fields(j_.at(key), path(key));
}

std::vector<Fields> Fields::items(const char* key) const {
  if (!has(key)) bad(key, "missing");
  const json& a = j_.at(key);
  if (!a.is_array()) bad(key, "not an array");
  std::vector<Fields> out;
  for (std::size_t i = 0; i < a.size(); ++i) out.emplace_back(a[i], fmt::format("{}[{}]", path(key), i));
  return out;
}

void Fields::bad(const char* key, const std::string& problem) const {
  throw DecodeError(fmt::format("{}: {}", path(key), problem));
}

std::string Fields::path(const char* key) const { return path_.empty() ? key : path_ + "." + key; }

json tool_json() {
  json t = {{"name", "xferbench"}, {"version", XFERBENCH_VERSION}};
  if (*build_git_hash() != '\0') t["git"] = build_git_hash();
  return t;
}

json stop_section_json(RunStatus status, StopReason stop, const std::string& message,
                       const std::vector<std::string>& not_run, double time_limit_s) {
  json j = {{"time_limit_seconds", time_limit_s > 0 ? json(time_limit_s) : json(nullptr)}};
  if (status == RunStatus::complete) return j;
  j["reason"] = to_string(stop);
  j["message"] = message;
  j["not_run"] = not_run;
  return j;
}

bool decode_stop(const Fields& doc, RunStatus& status, StopReason& reason, std::string& message, double& time_limit_s) {
  if (!doc.has("stop")) return false;
  const Fields stop = doc.object("stop");
  time_limit_s = stop.get("time_limit_seconds", 0.0);
  if (!stop.has("reason")) return false;
  status = doc.get<std::string>("status", "") == "interrupted" ? RunStatus::interrupted : RunStatus::partial;
  reason = stop.get("reason",
                    {StopReason::none, StopReason::sigint, StopReason::sigterm, StopReason::time_limit,
                     StopReason::gpu_unusable, StopReason::memory},
                    StopReason::none);
  message = stop.get<std::string>("message", "");
  return true;
}

json peak_json(const Peak& p) {
  if (!p.known()) return nullptr;
  return {{"gbps", p.gbps}, {"formula", p.formula}, {"source", p.source}};
}

Peak decode_peak(const Fields& f, const char* key) {
  if (!f.has(key)) return {};
  const Fields p = f.object(key);
  return {p.get("gbps", 0.0), p.get<std::string>("formula", ""), p.get<std::string>("source", "")};
}

json stats_json(const Summary& s, const std::string& unit) {
  return {{"median_" + unit, s.median}, {"mean_" + unit, s.mean},     {"min_" + unit, s.min},
          {"max_" + unit, s.max},       {"stddev_" + unit, s.stddev}, {"cov", s.cov}};
}

Summary decode_stats(const Fields& f, const std::string& unit, int count) {
  const Fields j = f.object("stats");
  Summary s;
  s.count = count;
  s.median = j.get(("median_" + unit).c_str(), 0.0);
  s.mean = j.get(("mean_" + unit).c_str(), 0.0);
  s.min = j.get(("min_" + unit).c_str(), 0.0);
  s.max = j.get(("max_" + unit).c_str(), 0.0);
  s.stddev = j.get(("stddev_" + unit).c_str(), 0.0);
  s.cov = j.get("cov", 0.0);
  return s;
}

Verification::Status decode_check(const Fields& f) {
  if (!f.has("verification")) return Verification::Status::skipped;
  return f.object("verification")
      .get("status", {Verification::Status::passed, Verification::Status::failed, Verification::Status::skipped},
           Verification::Status::skipped);
}

json measure_json(const MeasureOptions& m, const std::string& statistic) {
  return {{"statistic", statistic},
          {"copies_per_sample", m.copies_per_sample},
          {"target_sample_seconds", m.target_sample_s},
          {"min_samples", m.min_samples},
          {"max_samples", m.max_samples},
          {"target_relative_error", m.target_rel_error},
          {"budget_seconds_per_cell", m.budget_s},
          {"verify", m.verify},
          {"numa_affinity", m.numa_affinity}};
}

void decode_measure(const Fields& s, MeasureOptions& m, std::string& statistic) {
  statistic = s.get("statistic", statistic);
  m.copies_per_sample = s.get("copies_per_sample", m.copies_per_sample);
  m.target_sample_s = s.get("target_sample_seconds", m.target_sample_s);
  m.warmup_copies = s.get("warmup_copies", m.warmup_copies);
  m.min_samples = s.get("min_samples", m.min_samples);
  m.max_samples = s.get("max_samples", m.max_samples);
  m.target_rel_error = s.get("target_relative_error", m.target_rel_error);
  m.budget_s = s.get("budget_seconds_per_cell", m.budget_s);
  m.verify = s.get("verify", m.verify);
  m.numa_affinity = s.get("numa_affinity", m.numa_affinity);
  m.sm_repeat_in_kernel = s.get("sm_repeat_in_kernel", m.sm_repeat_in_kernel);
}

std::string GpuIdentity::text() const {
  return fmt::format("gpu{} {}{} {}", index, name, uuid.empty() ? "" : " " + uuid, bus_id);
}

GpuIdentity decode_gpu_identity(const Fields& g) {
  return {g.get<int>("index"), g.get<std::string>("name", ""), g.get<std::string>("uuid", ""),
          g.get<std::string>("pci_bus_id", "")};
}

RunIdentity decode_identity(const json& doc) {
  const Fields d(doc, "");
  const Fields env = d.object("environment");
  const Fields tool = d.object("tool");
  RunIdentity id;
  id.hostname = env.get<std::string>("hostname");
  for (const Fields& g : env.items("gpus")) id.gpus.push_back(decode_gpu_identity(g));
  id.version = tool.get<std::string>("version");
  id.git = tool.get<std::string>("git", "");
  id.args = d.get<std::vector<std::string>>("command_line");
  return id;
}

}  // namespace xb::records
