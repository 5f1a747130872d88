// Prometheus text format (exposition format 0.0.4) for node_exporter's
// textfile collector: run, check and fleet results as gauges in base units
// (bytes per second, seconds, ratios), one HELP and TYPE line per metric
// with fixed HELP text (node_exporter refuses one metric with two HELP
// texts across files), no sample timestamps (its textfile collector skips
// a file that has any). docs/prometheus.md lists the metrics and labels.
//
// A cell's labels: host, gpu (index) and UUID as DCGM exporter names them,
// case, matrix (bidirectional cases only), link (the link's name in check's
// reports: "host<->gpu0", "gpu0<->gpu1", "gpu0<->peers", "gpu0 memory"),
// link_type ("PCIe Gen5 x16") and peer (the link's other end: "host",
// "gpu1", "peers", "local"). A cell with no usable value (not measured, failed its
// data check, above the link's peak) has xferbench_cell_valid 0 and no
// value; waived cells and cases without cells have no series.
#include <ctime>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "base/error.hpp"
#include "report/fabric_report.hpp"
#include "report/reporter.hpp"

namespace xb::report {
namespace {

using check::CellVerdict;
using check::CheckCell;
using Labels = std::vector<std::pair<std::string, std::string>>;

enum Metric : std::size_t {
  last_run, duration, exit_code, bandwidth, latency, efficiency, peak, cell_valid, check_pass, check_link_pass,
  check_cell_pass, fleet_outlier, kMetrics
};

struct Family {
  const char* name;
  const char* help;
};

// Fixed HELP texts: changing one breaks a site's other files (see above).
constexpr std::array<Family, kMetrics> kFamilies = {{
    {"xferbench_last_run_timestamp_seconds", "When the last xferbench run or check started, in unix seconds."},
    {"xferbench_last_run_duration_seconds", "Wall time of the last xferbench run or check, in seconds."},
    {"xferbench_exit_code", "Exit code of the last xferbench run or check on this host (0 passed; README lists the others)."},
    {"xferbench_bandwidth_bytes_per_second", "Measured bandwidth of an xferbench cell, in bytes per second."},
    {"xferbench_latency_seconds", "Measured latency of an xferbench cell, in seconds."},
    {"xferbench_efficiency_ratio", "Measured bandwidth of an xferbench cell over its link's theoretical peak."},
    {"xferbench_link_peak_bytes_per_second", "Theoretical peak of the link an xferbench cell measures, in bytes per second."},
    {"xferbench_cell_valid", "1 when an xferbench cell has a valid value, 0 when it failed, was invalid or not measured."},
    {"xferbench_check_pass", "1 when xferbench check accepted the node, 0 otherwise."},
    {"xferbench_check_link_pass", "xferbench check verdict of a link: 1 pass, 0 fail (links not judged have no sample)."},
    {"xferbench_check_cell_pass", "xferbench check verdict of a cell: 1 pass, 0 fail (cells not judged have no sample)."},
    {"xferbench_fleet_outlier", "1 when a node has a cell below the fleet threshold of its GPU group's median, else 0."},
}};

class Metrics {
 public:
  void add(Metric m, const Labels& labels, double value) {
    if (!std::isfinite(value)) return;
    std::string line = kFamilies[m].name;
    for (std::size_t i = 0; i < labels.size(); ++i)
      line += fmt::format("{}{}=\"{}\"", i == 0 ? "{" : ",", labels[i].first, prometheus_escape(labels[i].second));
    samples_[m] += fmt::format("{}{} {}\n", line, labels.empty() ? "" : "}", value);
  }
  std::string text() const {
    std::string out;
    for (std::size_t m = 0; m < kMetrics; ++m) {
      if (samples_[m].empty()) continue;
      out += fmt::format("# HELP {0} {1}\n# TYPE {0} gauge\n{2}", kFamilies[m].name, kFamilies[m].help, samples_[m]);
    }
    return out;
  }

 private:
  std::array<std::string, kMetrics> samples_;
};

// "2026-11-24T10:00:00Z" as unix seconds; NaN (no sample) when it is not one.
double unix_seconds(const std::string& utc) {
  std::tm tm{};
  const char* end = strptime(utc.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  if (end == nullptr || *end != '\0') return NAN;
  return static_cast<double>(timegm(&tm));
}

// The end of a cell's link that is not its GPU: "host", "gpu1", "peers";
// within one GPU's memory, the cell's other label ("local").
std::string peer_of(const CheckCell& c) {
  const std::string self = fmt::format("gpu{}", c.gpu);
  const auto arrow = c.link_key.find("<->");
  if (arrow == std::string::npos) return c.row == self ? c.col : c.row;
  const std::string a = c.link_key.substr(0, arrow), b = c.link_key.substr(arrow + 3);
  return a == self ? b : a;
}

// A cell's labels (`with_case`), or its link's: host, gpu and UUID (empty
// values are left out: Prometheus reads them as absent), case and matrix,
// link, link_type and peer.
Labels labels_of(const std::string& host, const System& sys, const CheckCell& c, bool with_case) {
  Labels l = {{"host", host}};
  if (c.gpu >= 0) {
    l.emplace_back("gpu", std::to_string(c.gpu));
    if (c.gpu < sys.gpu_count() && !sys.gpus[static_cast<std::size_t>(c.gpu)].uuid.empty())
      l.emplace_back("UUID", sys.gpus[static_cast<std::size_t>(c.gpu)].uuid);
  }
  if (with_case) l.emplace_back("case", c.case_name);
  if (with_case && !c.matrix.empty()) l.emplace_back("matrix", c.matrix);
  l.insert(l.end(), {{"link", c.link_key}, {"link_type", c.link_label}, {"peer", peer_of(c)}});
  return l;
}

// The recorded cell a check cell was read from (extract_cells keeps the indices).
const Cell* raw_cell(const RunResult& run, const CheckCell& c) {
  for (const CaseResult& cs : run.cases) {
    if (cs.name != c.case_name) continue;
    for (const Matrix& m : cs.matrices)
      if (m.name == c.matrix) return find_cell(m, c.row_index, c.col_index);
  }
  return nullptr;
}

void add_cell(Metrics& m, const Labels& l, const CheckCell& c, const Cell& cell) {
  if (cell.peak.known()) m.add(peak, l, cell.peak.gbps * 1e9);
  const bool valid =
      cell.error.empty() && !cell.invalid && cell.verification.status != Verification::Status::failed;
  m.add(cell_valid, l, valid ? 1 : 0);
  if (!valid) return;
  if (c.latency) {
    m.add(latency, l, cell.value / 1e9);
    return;
  }
  m.add(bandwidth, l, cell.value * 1e9);
  if (cell.peak.known()) m.add(efficiency, l, cell.value / cell.peak.gbps);
}

struct HostRun {
  std::string host;
  const RunResult* run = nullptr;
  const std::vector<CheckCell>* cells = nullptr;  // the run's cells, with their GPU and link
  int exit_code = 0;
  double wall_seconds = 0;
};

void add_run(Metrics& m, const HostRun& h) {
  const Labels host = {{"host", h.host}};
  m.add(last_run, host, unix_seconds(h.run->start_time_utc));
  m.add(duration, host, h.wall_seconds);
  m.add(exit_code, host, h.exit_code);
  for (const CheckCell& c : *h.cells)
    if (const Cell* cell = raw_cell(*h.run, c)) add_cell(m, labels_of(h.host, h.run->system, c, true), c, *cell);
}

// A check's verdicts: the node, each judged link (named by its cell with the
// lowest GPU index, so a link's labels do not depend on which cell was worst)
// and each judged cell.
void add_check(Metrics& m, const HostRun& h, bool pass) {
  add_run(m, h);
  m.add(check_pass, {{"host", h.host}}, pass ? 1 : 0);
  const std::vector<CheckCell>& cells = *h.cells;
  for (const auto& link : check::link_verdicts(cells)) {
    if (link.verdict == CellVerdict::unjudged) continue;
    const CheckCell* named = nullptr;
    for (const CheckCell& c : cells)
      if (c.link_key == link.link_key && (named == nullptr || c.gpu < named->gpu)) named = &c;
    m.add(check_link_pass, labels_of(h.host, h.run->system, *named, false), link.verdict == CellVerdict::pass ? 1 : 0);
  }
  for (const CheckCell& c : cells)
    if (c.verdict != CellVerdict::unjudged)
      m.add(check_cell_pass, labels_of(h.host, h.run->system, c, true), c.verdict == CellVerdict::pass ? 1 : 0);
}

CellVerdict verdict_named(const std::string& word) {
  for (CellVerdict v : {CellVerdict::pass, CellVerdict::fail})
    if (word == to_string(v)) return v;
  return CellVerdict::unjudged;
}

// A fleet node's result: a run document, or check's (a run with a "check"
// section, whose cell verdicts are read back by key). Other results (sweep,
// scenario) and nodes without one give the node's exit code and time only.
void add_node(Metrics& m, const fleet::Fleet& f, const fleet::FleetNode& n) {
  const nlohmann::json& doc = n.record.result;
  const Labels host = {{"host", n.key}};
  if (!n.record.ok() || fleet::member(doc, "schema") != records::kSchemaName) {
    m.add(last_run, host, unix_seconds(f.start_time_utc));
    m.add(exit_code, host, n.record.exit_code);
    return;
  }
  const RunResult run = records::decode_run(doc, n.key);
  std::vector<CheckCell> cells = check::extract_cells(run, n.key);
  const nlohmann::json& section = fleet::member(doc, "check");
  HostRun h{n.key, &run, &cells, n.record.exit_code, run.wall_seconds};
  if (!section.is_object()) {
    add_run(m, h);
    return;
  }
  std::map<std::string, CellVerdict> verdicts;
  for (const auto& c : fleet::member(section, "cells"))
    verdicts[c.value("key", "")] = verdict_named(c.value("verdict", ""));
  for (CheckCell& c : cells) c.verdict = verdicts.count(c.key) ? verdicts.at(c.key) : CellVerdict::unjudged;
  h.wall_seconds = section.value("wall_seconds", run.wall_seconds);
  add_check(m, h, section.value("verdict", "") == "pass");
}

std::string fleet_metrics(const fleet::Fleet& f) {
  Metrics m;
  for (const auto& n : f.nodes) {
    add_node(m, f, n);
    if (!n.record.ok()) continue;
    const auto& outliers = f.summary.outlier_nodes;
    m.add(fleet_outlier, {{"host", n.key}}, std::find(outliers.begin(), outliers.end(), n.key) != outliers.end() ? 1 : 0);
  }
  return m.text();
}

class PrometheusReporter : public Reporter {
 public:
  using Reporter::Reporter;

  void require(Kind kind) const override {
    if (kind == Kind::plan) fail(ErrorKind::usage, "--dry-run writes its plan as text or JSON, not --format prometheus");
    if (kind == Kind::scenario)
      fail(ErrorKind::usage, "--format prometheus applies to named cases (-t, -p, --suite), not to transfers (--do, "
                             "--htod, --dtoh, --dtod)");
  }
  void run(const RunResult& r) override {
    const std::vector<CheckCell> cells = check::extract_cells(r, "this run");
    Metrics m;
    add_run(m, {r.system.hostname, &r, &cells, ending(r.completion, !all_passed(r)).exit_code, r.wall_seconds});
    out_ << m.text();
  }
  void check(const check::CheckResult& r) override {
    Metrics m;
    const Ending v = check::check_verdict(r);
    add_check(m, {r.hostname(), &r.run, &r.cells, v.exit_code, r.wall_seconds}, v.outcome == Outcome::passed);
    out_ << m.text();
  }
  void check_fleet(const fleet::Fleet& f) override { out_ << fleet_metrics(f); }
  void fleet(const fleet::Fleet& f) override { out_ << fleet_metrics(f); }
  void fabric(const fabric::Result& r) override { out_ << fabric_prometheus(r); }
};

}  // namespace

std::string prometheus_escape(const std::string& value) {
  std::string out;
  out.reserve(value.size());
  for (const char ch : value) {
    if (ch == '\\') out += "\\\\";
    else if (ch == '"') out += "\\\"";
    else if (ch == '\n') out += "\\n";
    else out += ch;
  }
  return out;
}

std::unique_ptr<Reporter> prometheus_reporter(std::ostream& out) { return std::make_unique<PrometheusReporter>(out); }

}  // namespace xb::report
