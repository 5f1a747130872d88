// The inverse of report/json.cpp for run documents: field names, units and
// nesting as run_json() and system_json() write them.
#include "report/run_from_json.hpp"

#include <cstdio>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/topology_file.hpp"
#include "report/report.hpp"

namespace xb::report {
namespace {

using json = nlohmann::json;

Verification verification_from(const json& j) {
  Verification v;
  const std::string s = j.at("status").get<std::string>();
  if (s == "passed") v.status = Verification::Status::passed;
  else if (s == "failed") v.status = Verification::Status::failed;
  else if (s == "skipped") v.status = Verification::Status::skipped;
  else fail(ErrorKind::usage, fmt::format("unknown verification status '{}'", s));
  v.first_bad_offset = j.value("first_bad_offset", std::uint64_t{0});
  return v;
}

Cell cell_from(const json& j, Metric metric) {
  const std::string unit = metric == Metric::bandwidth_gbps ? "gbps" : "ns";
  Cell c;
  c.row = j.at("row").get<int>();
  c.col = j.at("col").get<int>();
  c.value = j.at("value_" + unit).get<double>();
  const json& st = j.at("stats");
  c.stats.count = j.at("samples").get<int>();
  c.stats.median = st.at("median_" + unit).get<double>();
  c.stats.mean = st.at("mean_" + unit).get<double>();
  c.stats.min = st.at("min_" + unit).get<double>();
  c.stats.max = st.at("max_" + unit).get<double>();
  c.stats.stddev = st.at("stddev_" + unit).get<double>();
  c.stats.cov = st.at("cov").get<double>();
  c.samples = j.at("samples_" + unit).get<std::vector<double>>();
  c.link = j.at("link").get<std::string>();
  c.outlier = j.at("outlier").get<bool>();
  c.note = j.value("note", "");
  c.invalid = j.value("invalid", false);
  c.invalid_reason = j.value("invalid_reason", "");
  c.error = j.value("error", "");
  if (metric == Metric::bandwidth_gbps) {
    c.bytes_per_copy = j.at("bytes_per_copy").get<std::uint64_t>();
    c.copies_per_sample = j.at("copies_per_sample").get<int>();
    c.gated = j.at("gated").get<bool>();
    c.peak = peak_from_json(j.at("peak"));
    c.efficiency = j.at("efficiency").is_null() ? 0.0 : j.at("efficiency").get<double>();
    c.verification = verification_from(j.at("verification"));
  } else {
    c.bytes_per_copy = j.at("buffer_bytes").get<std::uint64_t>();
    c.copies_per_sample = j.at("accesses_per_sample").get<int>();
  }
  return c;
}

Matrix matrix_from(const json& j) {
  Matrix m;
  m.name = j.at("name").get<std::string>();
  m.title = j.at("title").get<std::string>();
  m.metric = j.at("metric").get<std::string>() == to_string(Metric::latency_ns) ? Metric::latency_ns
                                                                                : Metric::bandwidth_gbps;
  m.row_labels = j.at("row_labels").get<std::vector<std::string>>();
  m.col_labels = j.at("col_labels").get<std::vector<std::string>>();
  for (const json& c : j.at("cells")) m.cells.push_back(cell_from(c, m.metric));
  return m;
}

CaseStatus status_from(const std::string& s) {
  for (CaseStatus k : {CaseStatus::passed, CaseStatus::failed, CaseStatus::waived, CaseStatus::error, CaseStatus::not_run})
    if (s == to_string(k)) return k;
  fail(ErrorKind::usage, fmt::format("unknown case status '{}'", s));
}

CaseResult case_from(const json& j) {
  CaseResult c;
  c.index = j.at("index").get<int>();
  c.name = j.at("name").get<std::string>();
  c.description = j.at("description").get<std::string>();
  c.status = status_from(j.at("status").get<std::string>());
  c.message = j.at("message").get<std::string>();
  c.wall_seconds = j.at("wall_seconds").get<double>();
  for (const json& m : j.at("matrices")) c.matrices.push_back(matrix_from(m));
  return c;
}

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
    for (const json& c : doc.at("cases")) r.cases.push_back(case_from(c));
    return r;
  } catch (const json::exception& e) {
    fail(ErrorKind::usage, fmt::format("run document: {}", e.what()));
  }
}

}  // namespace xb::report
