// Prometheus text format (exposition format 0.0.4) for node_exporter's
// textfile collector: run, check and fleet results as gauges in base units
// (bytes per second, seconds, ratios), one HELP and TYPE line per metric
// with fixed HELP text (node_exporter refuses one metric with two HELP
// texts across files), no sample timestamps (its textfile collector skips
// a file that has any). docs/prometheus.md lists the metrics and labels.
//
// Two levels of detail (--metrics-detail): "summary", the default, gives
// per node its state, per link check's verdict and margin, and per GPU and
// case the GPU's worst cell, so an 8-GPU node's check stays well under 600
// series; "cells" adds every cell. Labels follow DCGM exporter's names where
// both describe the same thing (Hostname, gpu, UUID). A command that could
// not measure writes xferbench_up 0 with its reason, never the old verdict
// (prometheus_unmeasured), and every file carries the last time the node
// passed (prometheus_series.cpp reads it back from the file it replaces).
#include <ctime>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "base/error.hpp"
#include "report/prometheus_series.hpp"
#include "report/fabric_report.hpp"
#include "report/reporter.hpp"

namespace xb::report {
namespace {

using check::CellVerdict;
using check::CheckCell;
using prom::Labels;
using prom::Metric;
using prom::Metrics;

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

// What kind of link a cell crossed. A cell of all of a GPU's peers at once
// (all-to-one, one-to-all) records "3 peers"; its type is that of the GPU's
// links to them ("NVLink x18"), or "mixed" when they differ.
std::string link_type(const System& sys, const CheckCell& c) {
  if (peer_of(c) != "peers" || c.gpu < 0 || c.gpu >= sys.gpu_count() ||
      sys.links.size() != static_cast<std::size_t>(sys.gpu_count()))
    return c.link_label;
  std::set<std::string> kinds;
  for (int p = 0; p < sys.gpu_count(); ++p)
    if (p != c.gpu && sys.link(c.gpu, p).peer_access) kinds.insert(peer_link_label(sys.link(c.gpu, p)));
  if (kinds.empty()) return c.link_label;
  return kinds.size() == 1 ? *kinds.begin() : "mixed";
}

Labels gpu_labels(const std::string& host, const System& sys, int gpu) {
  Labels l = {{"Hostname", host}};
  if (gpu < 0) return l;
  l.emplace_back("gpu", std::to_string(gpu));
  if (gpu < sys.gpu_count() && !sys.gpus[static_cast<std::size_t>(gpu)].uuid.empty())
    l.emplace_back("UUID", sys.gpus[static_cast<std::size_t>(gpu)].uuid);
  return l;
}

// A link's labels: Hostname, gpu and UUID (empty values are left out:
// Prometheus reads them as absent), link, link_type and peer.
Labels link_labels(const std::string& host, const System& sys, const CheckCell& c) {
  Labels l = gpu_labels(host, sys, c.gpu);
  l.insert(l.end(), {{"link", c.link_key}, {"link_type", link_type(sys, c)}, {"peer", peer_of(c)}});
  return l;
}

// A cell's labels: its GPU's, case and matrix (bidirectional cases only),
// then its link's.
Labels cell_labels(const std::string& host, const System& sys, const CheckCell& c) {
  Labels l = gpu_labels(host, sys, c.gpu);
  l.emplace_back("case", c.case_name);
  if (!c.matrix.empty()) l.emplace_back("matrix", c.matrix);
  l.insert(l.end(), {{"link", c.link_key}, {"link_type", link_type(sys, c)}, {"peer", peer_of(c)}});
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

bool usable(const Cell& cell) {
  return cell.error.empty() && !cell.invalid && cell.verification.status != Verification::Status::failed;
}

struct HostRun {
  std::string host;
  const RunResult* run = nullptr;
  const std::vector<CheckCell>* cells = nullptr;  // the run's cells, with their GPU and link
  prom::NodeState state;
};

void add_cell(Metrics& m, const HostRun& h, const CheckCell& c, const Cell& cell) {
  const Labels l = cell_labels(h.host, h.run->system, c);
  if (cell.peak.known()) m.add(Metric::peak, l, cell.peak.gbps * 1e9);
  m.add(Metric::cell_valid, l, usable(cell) ? 1 : 0);
  if (!usable(cell)) return;
  if (c.latency) {
    m.add(Metric::latency, l, cell.value / 1e9);
    return;
  }
  m.add(Metric::bandwidth, l, cell.value * 1e9);
  if (cell.peak.known()) m.add(Metric::efficiency, l, cell.value / cell.peak.gbps);
}

// Per GPU and case (and matrix), the GPU's worst usable cell: the lowest
// bandwidth and efficiency, the highest latency; per GPU, its cells
// without a usable value.
struct Worst {
  double bandwidth = INFINITY, efficiency = INFINITY, latency = -INFINITY;
};

void add_gpu_summary(Metrics& m, const HostRun& h) {
  std::map<std::tuple<int, std::string, std::string>, Worst> worst;
  std::map<int, int> unusable;
  for (const CheckCell& c : *h.cells) {
    const Cell* cell = raw_cell(*h.run, c);
    if (cell == nullptr || c.gpu < 0) continue;
    int& bad = unusable[c.gpu];
    if (!usable(*cell)) {
      ++bad;
      continue;
    }
    Worst& w = worst[{c.gpu, c.case_name, c.matrix}];
    if (c.latency) {
      w.latency = std::max(w.latency, cell->value);
      continue;
    }
    w.bandwidth = std::min(w.bandwidth, cell->value);
    if (cell->peak.known()) w.efficiency = std::min(w.efficiency, cell->value / cell->peak.gbps);
  }
  for (const auto& [key, w] : worst) {
    const auto& [gpu, case_name, matrix] = key;
    Labels l = gpu_labels(h.host, h.run->system, gpu);
    l.emplace_back("case", case_name);
    if (!matrix.empty()) l.emplace_back("matrix", matrix);
    m.add(Metric::gpu_bandwidth, l, w.bandwidth * 1e9);  // infinite ones are left out
    m.add(Metric::gpu_efficiency, l, w.efficiency);
    m.add(Metric::gpu_latency, l, w.latency / 1e9);
  }
  for (const auto& [gpu, count] : unusable) m.add(Metric::gpu_unusable, gpu_labels(h.host, h.run->system, gpu), count);
}

void add_run(Metrics& m, const HostRun& h, const ReportOptions& o) {
  prom::add_node_state(m, h.host, h.state);
  add_gpu_summary(m, h);
  if (o.metrics_detail != "cells") return;
  for (const CheckCell& c : *h.cells)
    if (const Cell* cell = raw_cell(*h.run, c)) add_cell(m, h, c, *cell);
}

// A check's verdicts: each judged link (named by its cell with the lowest
// GPU index, so a link's labels do not depend on which cell was worst) with
// the margin of its closest cell, and with "cells" each judged cell.
void add_check(Metrics& m, const HostRun& h, const ReportOptions& o) {
  add_run(m, h, o);
  const std::vector<CheckCell>& cells = *h.cells;
  for (const auto& link : check::link_verdicts(cells)) {
    if (link.verdict == CellVerdict::unjudged) continue;
    const CheckCell* named = nullptr;
    for (const CheckCell& c : cells)
      if (c.link_key == link.link_key && (named == nullptr || c.gpu < named->gpu)) named = &c;
    const Labels l = link_labels(h.host, h.run->system, *named);
    m.add(Metric::link_pass, l, link.verdict == CellVerdict::pass ? 1 : 0);
    const CheckCell& closest = cells[link.worst];
    if (closest.threshold > 0 && closest.value > 0) m.add(Metric::link_margin, l, check::margin(closest));
  }
  if (o.metrics_detail != "cells") return;
  for (const CheckCell& c : cells)
    if (c.verdict != CellVerdict::unjudged)
      m.add(Metric::cell_pass, cell_labels(h.host, h.run->system, c), c.verdict == CellVerdict::pass ? 1 : 0);
}

CellVerdict verdict_named(const std::string& word) {
  for (CellVerdict v : {CellVerdict::pass, CellVerdict::fail})
    if (word == to_string(v)) return v;
  return CellVerdict::unjudged;
}

// A fleet node's result: a run, or check's (a run with its verdict, whose
// cell verdicts are matched to the run's cells by key). A node without a
// result is down, with its error's kind as the reason; other results
// (sweep, scenario) give the node's state only.
void add_node(Metrics& m, const fleet::Fleet& f, const fleet::FleetNode& n, const ReportOptions& o,
              const prom::Successes& before) {
  const RunResult* run = fleet::run_of(n.result);
  const bool is_check = f.command == "check";
  prom::NodeState st = prom::node_state(before, n.key, unix_seconds(f.start_time_utc), NAN, n.record.exit_code);
  if (!n.record.ok() || run == nullptr) {
    if (!n.record.ok()) st.down_reason = n.record.error_kind;
    if (is_check) st.check_pass = false;
    prom::add_node_state(m, n.key, st);
    return;
  }
  std::vector<CheckCell> cells = check::extract_cells(*run, n.key);
  const records::CheckVerdict* check = fleet::check_of(n.result);
  st = prom::node_state(before, n.key, unix_seconds(run->start_time_utc), run->wall_seconds, n.record.exit_code);
  HostRun h{n.key, run, &cells, st};
  if (check == nullptr) {
    add_run(m, h, o);
    return;
  }
  std::map<std::string, CellVerdict> verdicts;
  for (const records::CheckCellVerdict& c : check->cells) verdicts[c.key] = verdict_named(c.verdict);
  for (CheckCell& c : cells) c.verdict = verdicts.count(c.key) ? verdicts.at(c.key) : CellVerdict::unjudged;
  h.state.wall_seconds = check->wall_seconds;
  h.state.check_pass = records::outcome_of(*check) == Outcome::passed;
  add_check(m, h, o);
}

std::string fleet_metrics(const fleet::Fleet& f, const ReportOptions& o) {
  Metrics m;
  const prom::Successes before = prom::read_successes(o.previous_metrics);
  for (const auto& n : f.nodes) {
    add_node(m, f, n, o, before);
    if (!n.record.ok()) continue;
    const auto& outliers = f.summary.outlier_nodes;
    m.add(Metric::fleet_outlier, {{"Hostname", n.key}},
          std::find(outliers.begin(), outliers.end(), n.key) != outliers.end() ? 1 : 0);
  }
  return m.text();
}

class PrometheusReporter : public Reporter {
 public:
  PrometheusReporter(std::ostream& out, const ReportOptions& o) : Reporter(out), options_(o) {}

  void require(Kind kind) const override {
    if (kind == Kind::plan) fail(ErrorKind::usage, "--dry-run writes its plan as text or JSON, not --format prometheus");
    if (kind == Kind::scenario)
      fail(ErrorKind::usage, "--format prometheus applies to named cases (-t, -p, --suite), not to transfers (--do, "
                             "--htod, --dtoh, --dtod)");
  }
  void run(const RunResult& r) override {
    const std::vector<CheckCell> cells = check::extract_cells(r, "this run");
    const int code = ending(r.completion, !all_passed(r)).exit_code;
    const std::string host = r.system.hostname;
    Metrics m;
    add_run(m, {host, &r, &cells, state(host, r.start_time_utc, r.wall_seconds, code)}, options_);
    out_ << m.text();
  }
  void check(const check::CheckResult& r) override {
    const Ending v = check::check_verdict(r);
    HostRun h{r.hostname(), &r.run, &r.cells, state(r.hostname(), r.run.start_time_utc, r.wall_seconds, v.exit_code)};
    h.state.check_pass = v.outcome == Outcome::passed;
    Metrics m;
    add_check(m, h, options_);
    out_ << m.text();
  }
  void check_fleet(const fleet::Fleet& f) override { out_ << fleet_metrics(f, options_); }
  void fleet(const fleet::Fleet& f) override { out_ << fleet_metrics(f, options_); }
  void fabric(const fabric::Result& r) override { out_ << fabric_prometheus(r); }

 private:
  prom::NodeState state(const std::string& host, const std::string& start_utc, double wall_s, int code) const {
    return prom::node_state(prom::read_successes(options_.previous_metrics), host, unix_seconds(start_utc), wall_s,
                            code);
  }
  ReportOptions options_;
};

}  // namespace

std::string prometheus_unmeasured(const Unmeasured& u, const std::string& previous) {
  prom::NodeState st = prom::node_state(prom::read_successes(previous), u.host, u.start_unix, u.wall_seconds,
                                        u.exit_code);
  st.down_reason = u.reason;
  if (u.command == "check") st.check_pass = false;
  Metrics m;
  prom::add_node_state(m, u.host, st);
  return m.text();
}

std::unique_ptr<Reporter> prometheus_reporter(std::ostream& out, const ReportOptions& o) {
  return std::make_unique<PrometheusReporter>(out, o);
}

}  // namespace xb::report
