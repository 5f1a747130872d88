// The text format: tables for people, rows printed as they are measured.
#include <algorithm>
#include <cctype>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include "base/printable.hpp"
#include "base/units.hpp"
#include "cases/cases.hpp"
#include "cases/runner.hpp"
#include "report/fabric_report.hpp"
#include "report/reporter.hpp"
#include "report/soak_report.hpp"

namespace xb::report {

std::string upper_case(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

std::string completion_line(const Completion& c, const char* what, const char* units, bool resume) {
  if (c.status == RunStatus::complete) return "";
  return fmt::format("# {} {}: {}; {} {} not run{}\n", what, to_string(c.status), c.message, c.not_run.size(), units,
                     resume ? " (add --resume FILE to the same command to measure them)" : "");
}

namespace {

std::string cell_text(const Cell* c, Metric metric) {
  if (!c) return "-";
  if (!c->error.empty()) return "ERR";
  if (c->invalid) return "INVALID";
  std::string s = metric == Metric::bandwidth_gbps ? fmt::format("{:.2f}", c->value) : fmt::format("{:.0f}", c->value);
  if (c->peak.known()) s += fmt::format(" ({:.0f}%)", c->efficiency * 100);
  if (c->verification.status == Verification::Status::failed) s += " BAD";
  if (c->outlier) s += " !";
  return s;
}

// -v: a cell's samples as "n N, p50 X, p95 X, p99 X, min X, max X UNIT"
// (nearest-rank percentiles of the samples, p50 their median).
std::string percentile_text(const Summary& s, Metric metric) {
  const bool gbps = metric == Metric::bandwidth_gbps;
  const auto v = [gbps](double x) { return gbps ? fmt::format("{:.2f}", x) : fmt::format("{:.1f}", x); };
  return fmt::format("n {}, p50 {}, p95 {}, p99 {}, min {}, max {} {}", s.count, v(s.median), v(s.p95), v(s.p99),
                     v(s.min), v(s.max), gbps ? "GB/s" : "ns");
}

void text_matrix(std::ostream& os, const Matrix& m, bool verbose) {
  fmt::print(os, "{}\n", m.title);
  const int w = 18;
  fmt::print(os, "{:>8}", "");
  for (const auto& col : m.col_labels) fmt::print(os, "{:>{}}", col, w);
  fmt::print(os, "\n");
  for (std::size_t r = 0; r < m.row_labels.size(); ++r) {
    fmt::print(os, "{:>8}", m.row_labels[r]);
    for (std::size_t c = 0; c < m.col_labels.size(); ++c)
      fmt::print(os, "{:>{}}", cell_text(find_cell(m, static_cast<int>(r), static_cast<int>(c)), m.metric), w);
    fmt::print(os, "\n");
  }
  // Per-cell detail that does not fit the grid: samples, CoV, peak, outliers.
  for (const auto& c : m.cells) {
    if (!c.error.empty()) {
      fmt::print(os, "#   [{},{}] {}: ERROR: {}\n", m.row_labels[c.row], m.col_labels[c.col], c.link, c.error);
      continue;
    }
    fmt::print(os, "#   [{},{}] {}: {} samples, CoV {:.2f}%", m.row_labels[c.row], m.col_labels[c.col], c.link,
               c.stats.count, c.stats.cov * 100);
    if (c.peak.known()) fmt::print(os, ", peak {:.2f} GB/s = {}", c.peak.gbps, c.peak.formula);
    if (!c.gated) fmt::print(os, ", ungated (pageable memory)");
    if (c.host_page_bytes > 0) fmt::print(os, ", host pages {} KiB", c.host_page_bytes / 1024);
    if (c.verification.status == Verification::Status::failed)
      fmt::print(os, ", VERIFICATION FAILED at byte {}", c.verification.first_bad_offset);
    if (c.outlier) fmt::print(os, ", OUTLIER: {}", c.note);
    if (c.invalid) fmt::print(os, ", INVALID: {}", c.invalid_reason);
    if (c.loaded) {
      const LoadedLatency& l = *c.loaded;
      fmt::print(os, ", idle {:.0f} ns, loaded/idle {:.2f}x, load {} {:.2f} GB/s", l.idle_ns, l.ratio, l.load, l.load_gbps);
      if (l.load_peak.known()) fmt::print(os, " = {:.0f}% of {:.2f} GB/s", l.load_pct, l.load_peak.gbps);
      if (l.weak) fmt::print(os, ", WEAK LOAD (under {:.0f}% of peak)", kWeakLoadShare * 100);
    }
    if (c.nvbandwidth && c.nvbandwidth->differs)
      fmt::print(os, ", NVBANDWIDTH'S WAY {:.2f} GB/s ({:+.0f}%): {}", c.nvbandwidth->value,
                 (c.nvbandwidth->ratio - 1) * 100, c.nvbandwidth->why);
    fmt::print(os, "\n");
  }
  if (!verbose) return;
  for (const auto& c : m.cells)
    if (c.error.empty() && c.stats.count > 0)
      fmt::print(os, "#   [{},{}] {}\n", m.row_labels[c.row], m.col_labels[c.col], percentile_text(c.stats, m.metric));
}

std::string gb(std::uint64_t bytes) { return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / (1ull << 30)); }
std::string mib(std::uint64_t bytes) { return fmt::format("{:.0f} MiB", static_cast<double>(bytes) / (1ull << 20)); }

// Row or column label of matrix `m` of a case, or the index when absent.
std::string label_at(const CaseResult& c, std::size_t m, int index, bool row) {
  if (m < c.matrices.size()) {
    const auto& labels = row ? c.matrices[m].row_labels : c.matrices[m].col_labels;
    if (index >= 0 && static_cast<std::size_t>(index) < labels.size()) return labels[static_cast<std::size_t>(index)];
  }
  return std::to_string(index);
}

void text_run_header(std::ostream& os, const RunResult& run) {
  const System& s = run.system;
  fmt::print(os, "# xferbench {} on {} ({} GPU{}), driver {}, CUDA driver {}.{}, runtime {}.{}\n", XFERBENCH_VERSION,
             printable(s.hostname), s.gpu_count(), s.gpu_count() == 1 ? "" : "s", printable(s.driver_version),
             s.cuda_driver_version / 1000,
             s.cuda_driver_version % 1000 / 10, s.cuda_runtime_version / 1000, s.cuda_runtime_version % 1000 / 10);
  // A resumed run's machine comes from its file: names through printable().
  for (const auto& g : s.gpus)
    fmt::print(os, "#   gpu{}: {} ({}), NUMA node {}\n", g.index, printable(g.name), printable(g.pci_bus_id), g.numa_node);
  if (!s.nvml_available) fmt::print(os, "# warning: {}; link peaks unknown\n", s.nvml_error);
  const MeasureOptions& m = run.settings.measure;
  fmt::print(os, "# buffer {}, {} of samples, {}-{} samples per cell until the median's relative error < {}%{}\n",
             bytes_label(run.settings.buffer_bytes), run.settings.statistic, m.min_samples, m.max_samples,
             m.target_rel_error * 100, m.verify ? ", data verified after every cell" : ", verification skipped");
  if (m.host_kind != MemKind::pinned) fmt::print(os, "# host buffers of the cases: {} memory\n", to_string(m.host_kind));
  if (run.settings.pairs.mode != PairSelection::Mode::all || !run.settings.pairs.note.empty())
    fmt::print(os, "# GPU pairs of the pairwise cases: {}\n", pairs_text(run.settings.pairs));
  fmt::print(os, "# cell values: GB/s (1e9 B/s) with % of the link's theoretical peak; '!' marks an outlier\n\n");
}

void text_case(std::ostream& os, const CaseResult& c, bool verbose) {
  fmt::print(os, "Running {} ({}): {}\n", c.name, c.index, c.description);
  if (c.status == CaseStatus::waived) return fmt::print(os, "# WAIVED: {}\n\n", c.message);
  if (c.status == CaseStatus::not_run && c.matrices.empty()) return fmt::print(os, "# NOT RUN: {}\n\n", c.message);
  for (const auto& m : c.matrices) text_matrix(os, m, verbose);
  for (const auto& w : c.waived_cells)
    fmt::print(os, "# cell [{},{}] WAIVED: {}\n", label_at(c, 0, w.row, true), label_at(c, 0, w.col, false), w.reason);
  if (c.status == CaseStatus::error) fmt::print(os, "# ERROR: {}\n", c.message);
  if (c.status == CaseStatus::failed) fmt::print(os, "# FAILED: {}\n", c.message);
  if (c.status == CaseStatus::not_run) fmt::print(os, "# NOT RUN: {}\n", c.message);
  fmt::print(os, "# {} in {:.2f} s\n\n", to_string(c.status), c.wall_seconds);
}

// "# reference cells at the start: ..." (the drift check's first half).
void text_stability_start(std::ostream& os, const Stability& s) {
  if (!s.error.empty()) return fmt::print(os, "# drift check: not run: {}\n\n", s.error);
  std::vector<std::string> parts;
  for (const auto& e : s.entries) parts.push_back(fmt::format("{} {:.2f} GB/s", e.ref.label, e.start_gbps));
  fmt::print(os, "# drift check: reference cells at the start: {} (measured again at the end)\n\n",
             fmt::join(parts, ", "));
}

void text_stability_end(std::ostream& os, const Stability& s) {
  if (!s.error.empty()) return fmt::print(os, "# drift check: not completed: {}\n", s.error);
  if (!s.checked) return;
  std::vector<std::string> parts;
  for (const auto& e : s.entries)
    parts.push_back(fmt::format("{} ({}) {:.2f} -> {:.2f} GB/s ({:+.2f}%)", e.ref.label, e.ref.link, e.start_gbps,
                                e.end_gbps, e.drift_pct));
  fmt::print(os, "# drift check: {}\n", fmt::join(parts, ", "));
  if (s.stable) {
    fmt::print(os, "# stable: the reference cells moved at most {:.2f}% (tolerance {}%)\n", s.max_abs_drift_pct,
               s.tolerance_pct);
  } else {
    fmt::print(os, "# UNSTABLE: the reference cells moved {:.2f}% between the start and the end of the run "
                   "(tolerance {}%); cells measured in between may be off by as much\n",
               s.max_abs_drift_pct, s.tolerance_pct);
  }
}

// One line: measured peak GPU memory per GPU, peak host RSS, the pool's budget.
void text_memory_line(std::ostream& os, const MemoryCost& m) {
  std::string gpus;
  for (const auto& g : m.gpus)
    gpus += fmt::format("{}gpu{} {}", gpus.empty() ? "" : ", ", g.gpu, mib(g.peak_bytes));
  const bool rise = std::any_of(m.gpus.begin(), m.gpus.end(), [](const GpuMemoryPeak& g) { return g.source != "nvml_process"; });
  fmt::print(os, "# memory: peak GPU {} ({}); peak host RSS {}; buffer budget per GPU {}, host {} ({})\n",
             gpus.empty() ? "-" : gpus, rise ? "rise of used memory, without the CUDA context" : "per process, NVML",
             mib(m.host_peak_rss_bytes), mib(m.budget.gpu.empty() ? 0 : *std::max_element(m.budget.gpu.begin(), m.budget.gpu.end())),
             mib(m.budget.host), m.budget_fixed ? "--max-memory" : "largest cell");
}

void text_run_footer(std::ostream& os, const RunResult& run) {
  text_stability_end(os, run.stability);
  int counts[5] = {};
  for (const auto& c : run.cases) ++counts[static_cast<int>(c.status)];
  fmt::print(os, "# {} cases: {} passed, {} failed, {} waived, {} errors", run.cases.size(), counts[0], counts[1],
             counts[2], counts[3]);
  if (counts[4] > 0) fmt::print(os, ", {} not run", counts[4]);
  fmt::print(os, "; wall time {:.1f} s\n", run.wall_seconds);
  text_memory_line(os, run.memory);
  if (!run.resumed_from.empty())
    fmt::print(os, "# resumed from {}: its cells are kept, the others measured now\n", printable(run.resumed_from));
  const Completion& c = run.completion;
  os << completion_line(c, "run", "cell(s)", c.status != RunStatus::partial && c.stop != StopReason::gpu_unusable);
}

void text_list(std::ostream& os, const System& s) {
  fmt::print(os, "# xferbench {} on {}: driver {}, CUDA driver {}.{}\n", XFERBENCH_VERSION, s.hostname, s.driver_version,
             s.cuda_driver_version / 1000, s.cuda_driver_version % 1000 / 10);
  if (!s.nvml_available) fmt::print(os, "# warning: {}\n", s.nvml_error);
  fmt::print(os, "\n{:>3}  {:<22} {:<14} {:>7} {:>4} {:>9} {:>4} {:>10} {:>10} {:>13} {:>7} {:>7} {:>8} {:>3}\n", "ID",
             "Device name", "IO addr", "Compute", "SMs", "Memory", "NUMA", "PCIe cur", "PCIe max", "NVLink", "Managed",
             "Unified", "Mappable", "CE");
  for (const auto& g : s.gpus) {
    const std::string name = g.name.size() > 22 ? g.name.substr(0, 22) : g.name;
    const std::string bus = g.pci_bus_id.size() > 14 ? g.pci_bus_id.substr(g.pci_bus_id.size() - 14) : g.pci_bus_id;
    fmt::print(os, "{:>3}  {:<22} {:<14} {:>7} {:>4} {:>9} {:>4} {:>10} {:>10} {:>13} {:>7} {:>7} {:>8} {:>3}\n", g.index,
               name, bus, fmt::format("{}.{}", g.cc_major, g.cc_minor), g.sm_count, gb(g.memory_bytes), g.numa_node,
               fmt::format("Gen{} x{}", g.pcie_gen_current, g.pcie_width_current),
               fmt::format("Gen{} x{}", g.pcie_gen_max, g.pcie_width_max),
               g.nvlink_count ? fmt::format("{} x {:.2f}", g.nvlink_count, g.nvlink_gbps_per_link) : "-",
               g.managed_memory ? "yes" : "no", g.unified_addressing ? "yes" : "no", g.can_map_host_memory ? "yes" : "no",
               g.copy_engines);
  }
  fmt::print(os, "\nGPU links (row -> column)\n{:>6}", "");
  for (const auto& g : s.gpus) fmt::print(os, "{:>12}", fmt::format("gpu{}", g.index));
  fmt::print(os, "\n");
  for (int a = 0; a < s.gpu_count(); ++a) {
    fmt::print(os, "{:>6}", fmt::format("gpu{}", a));
    for (int b = 0; b < s.gpu_count(); ++b) {
      const PeerLink& l = s.link(a, b);
      std::string t = l.kind == LinkKind::self ? "X" : l.kind == LinkKind::nvlink ? fmt::format("NV{}", l.nvlinks)
                                                   : l.kind == LinkKind::pcie ? "PCIe" : "no peer";
      fmt::print(os, "{:>12}", t);
    }
    fmt::print(os, "\n");
  }
  fmt::print(os, "\nHost NUMA nodes\n");
  for (const auto& n : s.numa)
    fmt::print(os, "  node {}: CPUs {}, memory {} ({} free){}\n", n.id, n.cpus, gb(n.memory_bytes), gb(n.free_bytes),
               n.kind.empty() ? "" : ", " + n.kind);
  if (const std::string note = numa_memory_note(s.numa, s.host_memory_bytes); !note.empty())
    fmt::print(os, "  note: {}\n", note);
  fmt::print(os, "\nTheoretical peaks, per direction\n");
  for (const auto& g : s.gpus) {
    fmt::print(os, "  host <-> gpu{}: {}\n", g.index,
               g.host_link.known() ? fmt::format("{:.2f} GB/s = {} [{}]", g.host_link.gbps, g.host_link.formula, g.host_link.source) : "unknown");
    fmt::print(os, "  gpu{} memory: {}\n", g.index,
               g.memory.known() ? fmt::format("{:.1f} GB/s = {} [{}]", g.memory.gbps, g.memory.formula, g.memory.source) : "unknown");
  }
  for (int a = 0; a < s.gpu_count(); ++a)
    for (int b = 0; b < s.gpu_count(); ++b) {
      const PeerLink& l = s.link(a, b);
      if (a == b || l.kind == LinkKind::none) continue;
      fmt::print(os, "  gpu{} -> gpu{}: {}\n", a, b,
                 l.peak.known() ? fmt::format("{:.2f} GB/s = {} [{}]", l.peak.gbps, l.peak.formula, l.peak.source) : "unknown");
    }
}

void text_cases(std::ostream& os) {
  fmt::print(os, "# index, name, meaning; [xferbench]: a name of xferbench's own (the others are nvbandwidth v0.8's, "
                 "same index; nvbandwidth v0.10's names for its TMA and local read/write tests are not public)\n");
  for (const auto& d : case_catalogue())
    fmt::print(os, "{:>3}  {:<48} {}{}\n", d.index, d.name, d.description,
               d.origin == kOriginNvbandwidth ? "" : " [" + d.origin + "]");
}


class TextReporter : public Reporter {
 public:
  TextReporter(std::ostream& out, const ReportOptions& o) : Reporter(out), verbose_(o.verbose) {}

  bool streams() const override { return true; }
  void run_begin(const RunResult& header) override {
    text_run_header(out_, header);
    out_.flush();
  }
  void run_stability(const Stability& s) override {
    text_stability_start(out_, s);
    out_.flush();
  }
  void run_case(const CaseResult& c) override {
    text_case(out_, c, verbose_);
    if (verbose_) nvb_sample_lines(out_, c);
    out_.flush();
  }
  void run(const RunResult& r) override { text_run_footer(out_, r); }
  void plan(const RunEstimate& e, const System& sys, const PlanContext& pc) override { out_ << plan_text(e, sys, pc); }
  void cases() override { text_cases(out_); }
  void system(const System& sys) override { text_list(out_, sys); }
  void sweep_rows(const SweepResult& r) override {
    out_ << (sweep_started_ ? sweep_text_new_rows(r, sweep_printed_) : sweep_text_header(r)) << std::flush;
    sweep_started_ = true;
  }
  void sweep(const SweepResult& r) override { out_ << (sweep_started_ ? sweep_text_footer(r) : sweep_text(r)); }
  void sm_sweep(const SmSweepResult& r) override { out_ << sm_sweep_text(r); }
  void scenario_begin(const ScenarioResult& described) override { cuts_launch(described); }
  void scenario(const ScenarioResult& r) override {
    if (!measured(r)) return scenario_not_measured_text(out_, r);
    if (r.front_end == "cuts") {
      cuts_result_text(out_, r);
      out_ << "\n";
    }
    scenario_text(out_, r);
  }
  void scenario_resumed(const std::string& path, const ScenarioResult&) override {
    out_ << "# " << path << " holds the complete result: nothing to measure\n";
  }
  void pingpong_pair(const pingpong::Result& header, const pingpong::PairResult& p) override {
    out_ << pingpong_text_header(header) << pingpong_pair_head(p) << std::flush;
    pingpong_streamed_ = true;
  }
  void pingpong_size(const pingpong::SizeResult& s) override { out_ << pingpong_size_row(s) << std::flush; }
  void pingpong(const pingpong::Result& r, const std::vector<std::string>&) override {
    if (!pingpong_streamed_) {
      out_ << pingpong_text(r);
      return;
    }
    for (const auto& p : r.pairs) out_ << pingpong_pair_foot(p);
    out_ << completion_line(r.completion, "run", "size(s) or pair(s)");
  }
  void first_touch_rows(const firsttouch::Result& r, bool last_complete) override {
    out_ << first_touch_stream_.next(r, last_complete) << std::flush;
  }
  void first_touch(const firsttouch::Result& r, const std::vector<std::string>&) override {
    out_ << first_touch_stream_.finish(r);
  }
  void compare(const CompareResult& r, const std::string& old_name, const std::string& new_name) override {
    out_ << compare_text(r, old_name, new_name);
  }
  void soak(const soak::SoakSummary& s, const soak::Header& h) override { print_soak_summary(out_, s, h); }
  void check(const check::CheckResult& r) override { text_check(out_, r); }
  void check_fleet(const fleet::Fleet& f) override { text_fleet(out_, f); }
  void fleet(const fleet::Fleet& f) override { out_ << fleet_text(f); }
  void fabric_plan(const fabric::Result& r) override {
    out_ << fabric_plan_text(r) << std::flush;
    fabric_planned_ = true;
  }
  void fabric(const fabric::Result& r) override { out_ << fabric_text(r, !fabric_planned_); }

 private:
  bool verbose_;
  bool sweep_started_ = false;
  std::vector<std::size_t> sweep_printed_;
  bool pingpong_streamed_ = false;
  bool fabric_planned_ = false;
  FirstTouchTextStream first_touch_stream_;
};

}  // namespace

std::unique_ptr<Reporter> text_reporter(std::ostream& out, const ReportOptions& o) {
  return std::make_unique<TextReporter>(out, o);
}

}  // namespace xb::report
