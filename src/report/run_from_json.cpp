// The inverse of report/json.cpp for run documents: field names, units and
// nesting as run_json() and system_json() write them.
#include "report/run_from_json.hpp"


#include <fmt/format.h>

#include "base/error.hpp"
#include "cases/resume.hpp"
#include "machine/topology_file.hpp"
#include "report/report.hpp"

namespace xb::report {
namespace {

using json = nlohmann::json;

void settings_from(const json& j, RunSettings& s) {
  s.buffer_bytes = j.at("buffer_bytes").get<std::uint64_t>();
  s.statistic = j.at("statistic").get<std::string>();
  MeasureOptions& m = s.measure;
  m.copies_per_sample = j.at("copies_per_sample").get<int>();
  m.target_sample_s = j.at("target_sample_seconds").get<double>();
  m.warmup_copies = j.at("warmup_copies").get<int>();
  m.min_samples = j.at("min_samples").get<int>();
  m.max_samples = j.at("max_samples").get<int>();
  m.target_rel_error = j.at("target_relative_error").get<double>();
  m.budget_s = j.at("budget_seconds_per_cell").get<double>();
  m.verify = j.at("verify").get<bool>();
  m.numa_affinity = j.at("numa_affinity").get<bool>();
}

// The "stop" section (json.cpp stop_json): why the run is not complete.
void stop_from(const json& j, RunResult& r) {
  if (j.value("time_limit_seconds", json()).is_number()) r.time_limit_s = j["time_limit_seconds"].get<double>();
  if (j.value("resumed_from", json()).is_string()) r.resumed_from = j["resumed_from"].get<std::string>();
  const std::string reason = j.value("reason", "");
  for (StopReason s : {StopReason::sigint, StopReason::sigterm, StopReason::time_limit, StopReason::gpu_unusable,
                       StopReason::memory})
    if (reason == to_string(s)) r.stop = s;
  if (r.stop == StopReason::none) return;
  r.status = is_interruption(r.stop) ? RunStatus::interrupted : RunStatus::partial;
  r.stop_reason = j.value("message", "");
  r.not_run = j.value("not_run", std::vector<std::string>{});
}

}  // namespace

System system_from_json(const json& env) {
  try {
    return environment_from_json(env);
  } catch (const std::exception& e) {
    fail(ErrorKind::usage, fmt::format("environment: {}", e.what()));
  }
}

RunResult run_from_json(const json& doc) {
  if (!doc.is_object() || doc.value("schema", "") != kSchemaName || doc.value("schema_version", 0) != kSchemaVersion)
    fail(ErrorKind::usage, fmt::format("not an xferbench run document (want schema '{}' version {})", kSchemaName,
                                       kSchemaVersion));
  try {
    RunResult r;
    r.command_line = doc.at("command_line").get<std::vector<std::string>>();
    r.start_time_utc = doc.at("start_time_utc").get<std::string>();
    r.wall_seconds = doc.at("wall_seconds").get<double>();
    settings_from(doc.at("settings"), r.settings);
    r.system = system_from_json(doc.at("environment"));
    r.cases = cases_from_json(doc.at("cases"), "run document");
    stop_from(doc.value("stop", json::object()), r);
    return r;
  } catch (const json::exception& e) {
    fail(ErrorKind::usage, fmt::format("run document: {}", e.what()));
  }
}

}  // namespace xb::report
