#include <algorithm>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "core/cases.hpp"
#include "core/runner.hpp"
#include "core/units.hpp"
#include "report/report.hpp"

namespace xb::report {
namespace {

const Cell* find_cell(const Matrix& m, int r, int c) {
  for (const auto& cell : m.cells)
    if (cell.row == r && cell.col == c) return &cell;
  return nullptr;
}

std::string cell_text(const Cell* c, Metric metric) {
  if (!c) return "-";
  if (!c->error.empty()) return "ERR";
  std::string s = metric == Metric::bandwidth_gbps ? fmt::format("{:.2f}", c->value) : fmt::format("{:.0f}", c->value);
  if (c->peak.known()) s += fmt::format(" ({:.0f}%)", c->efficiency * 100);
  if (c->verification.status == Verification::Status::failed) s += " BAD";
  if (c->outlier) s += " !";
  return s;
}

void text_matrix(std::ostream& os, const Matrix& m) {
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
    if (c.verification.status == Verification::Status::failed)
      fmt::print(os, ", VERIFICATION FAILED at byte {}", c.verification.first_bad_offset);
    if (c.outlier) fmt::print(os, ", OUTLIER: {}", c.note);
    fmt::print(os, "\n");
  }
}

std::string gb(std::uint64_t bytes) { return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / (1ull << 30)); }

}  // namespace

void text_run_header(std::ostream& os, const RunResult& run) {
  const System& s = run.system;
  fmt::print(os, "# xferbench {} on {} ({} GPU{}), driver {}, CUDA driver {}.{}, runtime {}.{}\n", XFERBENCH_VERSION,
             s.hostname, s.gpu_count(), s.gpu_count() == 1 ? "" : "s", s.driver_version, s.cuda_driver_version / 1000,
             s.cuda_driver_version % 1000 / 10, s.cuda_runtime_version / 1000, s.cuda_runtime_version % 1000 / 10);
  for (const auto& g : s.gpus) fmt::print(os, "#   gpu{}: {} ({}), NUMA node {}\n", g.index, g.name, g.pci_bus_id, g.numa_node);
  if (!s.nvml_available) fmt::print(os, "# warning: {}; link peaks unknown\n", s.nvml_error);
  const MeasureOptions& m = run.settings.measure;
  fmt::print(os, "# buffer {}, {} of samples, {}-{} samples per cell until the median's relative error < {}%{}\n",
             bytes_label(run.settings.buffer_bytes), run.settings.statistic, m.min_samples, m.max_samples,
             m.target_rel_error * 100, m.verify ? ", data verified after every cell" : ", verification skipped");
  fmt::print(os, "# cell values: GB/s (1e9 B/s) with % of the link's theoretical peak; '!' marks an outlier\n\n");
}

void text_case(std::ostream& os, const CaseResult& c) {
  fmt::print(os, "Running {} ({}): {}\n", c.name, c.index, c.description);
  if (c.status == CaseStatus::waived) {
    fmt::print(os, "# WAIVED: {}\n\n", c.message);
    return;
  }
  if (c.status == CaseStatus::not_run && c.matrices.empty()) {
    fmt::print(os, "# NOT RUN: {}\n\n", c.message);
    return;
  }
  for (const auto& m : c.matrices) text_matrix(os, m);
  if (c.status == CaseStatus::error) fmt::print(os, "# ERROR: {}\n", c.message);
  if (c.status == CaseStatus::failed) fmt::print(os, "# FAILED: {}\n", c.message);
  if (c.status == CaseStatus::not_run) fmt::print(os, "# NOT RUN: {}\n", c.message);
  fmt::print(os, "# {} in {:.2f} s\n\n", to_string(c.status), c.wall_seconds);
}

void text_run_footer(std::ostream& os, const RunResult& run) {
  int counts[5] = {};
  for (const auto& c : run.cases) ++counts[static_cast<int>(c.status)];
  fmt::print(os, "# {} cases: {} passed, {} failed, {} waived, {} errors", run.cases.size(), counts[0], counts[1],
             counts[2], counts[3]);
  if (counts[4] > 0) fmt::print(os, ", {} not run", counts[4]);
  fmt::print(os, "; wall time {:.1f} s\n", run.wall_seconds);
  if (!run.resumed_from.empty()) fmt::print(os, "# resumed from {}: its cells are kept, the others measured now\n", run.resumed_from);
  if (run.status != RunStatus::complete)
    fmt::print(os, "# run {}: {}; {} cell(s) not run{}\n", to_string(run.status), run.stop_reason, run.not_run.size(),
               run.status == RunStatus::partial || run.stop == StopReason::gpu_unusable
                   ? ""
                   : " (add --resume FILE to the same command to measure them)");
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
  for (const auto& n : s.numa) fmt::print(os, "  node {}: CPUs {}, memory {} ({} free)\n", n.id, n.cpus, gb(n.memory_bytes), gb(n.free_bytes));
  if (const std::string note = numa_memory_note(s.numa, s.host_memory_bytes); !note.empty())
    fmt::print(os, "  note: {}\n", note);
  fmt::print(os, "\nTheoretical peaks, per direction\n");
  for (const auto& g : s.gpus) {
    fmt::print(os, "  host <-> gpu{}: {}\n", g.index,
               g.pcie.known() ? fmt::format("{:.2f} GB/s = {} [{}]", g.pcie.gbps, g.pcie.formula, g.pcie.source) : "unknown");
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
  for (const auto& d : case_catalogue()) fmt::print(os, "{:>3}  {:<48} {}\n", d.index, d.name, d.description);
}

}  // namespace xb::report
