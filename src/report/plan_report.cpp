// Reporters for `xferbench run --dry-run`: the planned cases and cells,
// bytes moved and the time model's estimate, as text or JSON.
#include <algorithm>

#include <fmt/format.h>

#include "base/printable.hpp"
#include "base/units.hpp"
#include "report/formats.hpp"

namespace xb::report {
namespace {

constexpr const char* kPlanSchemaName = "xferbench-plan";
constexpr int kPlanSchemaVersion = 1;

std::string pair_list(const PairSelection& p, std::size_t most) {
  std::string out;
  for (std::size_t i = 0; i < p.pairs.size() && i < most; ++i)
    out += fmt::format("{}{}->{}", i ? " " : "", p.pairs[i].from, p.pairs[i].to);
  if (p.pairs.size() > most) out += fmt::format(" ... ({} more)", p.pairs.size() - most);
  return out;
}

std::string gb_text(double bytes) { return fmt::format("{:.1f} GB", bytes / 1e9); }

std::string estimate_text(double s) {
  if (s < 120) return fmt::format("{:.1f} s", s);
  if (s < 7200) return fmt::format("{:.1f} min", s / 60);
  return fmt::format("{:.1f} h", s / 3600);
}

// "each of 8 GPUs 1.0 GiB, host 2.0 GiB (2.0 GiB page-locked)", or GPU by
// GPU where they differ.
std::string memory_text(const MemoryAmount& a) {
  std::string gpus;
  const bool same = std::all_of(a.gpu.begin(), a.gpu.end(), [&](std::uint64_t b) { return b == a.gpu.front(); });
  if (!a.gpu.empty() && same) {
    gpus = fmt::format("each of {} GPU{} {}", a.gpu.size(), a.gpu.size() == 1 ? "" : "s", bytes_label(a.gpu.front()));
  } else {
    for (std::size_t g = 0; g < a.gpu.size(); ++g)
      gpus += fmt::format("{}gpu{} {}", g ? ", " : "", g, bytes_label(a.gpu[g]));
  }
  return fmt::format("{}{}host {} ({} page-locked)", gpus, gpus.empty() ? "" : ", ", bytes_label(a.host),
                     bytes_label(a.host_locked));
}

json model_json(const TimeModel& m) {
  return {{"source", "fitted to the full-catalogue runs in bench/results (bench/fit_time_model.py)"},
          {"start_s", m.start_s}, {"start_per_gpu_s", m.start_per_gpu_s}, {"case_s", m.case_s}, {"cell_s", m.cell_s}, {"latency_cell_s", m.latency_cell_s},
          {"second_s", m.second_s},
          {"pin_s_per_gib", m.pin_s_per_gib}, {"device_s_per_gib", m.device_s_per_gib},
          {"host_memory_gbps", m.host_memory_gbps}, {"contention", m.contention},
          {"contention_in_place", m.contention_in_place},
          {"host_latency_ns", m.host_latency_ns}, {"peer_latency_ns", m.peer_latency_ns},
          {"local_latency_ns", m.local_latency_ns}, {"loaded_latency_ratio", m.loaded_latency_ratio},
          {"efficiency", {{"pcie_ce", m.pcie_ce}, {"pcie_sm", m.pcie_sm}, {"pcie_split", m.pcie_split},
                          {"pcie_ce_duplex", m.pcie_ce_duplex},
                          {"nvlink_ce", m.nvlink_ce}, {"nvlink_sm", m.nvlink_sm}, {"local_copy", m.local_copy},
                          {"local_one_way", m.local_one_way}}},
          {"unknown_link_gbps", m.unknown_link_gbps}};
}

}  // namespace

std::string pairs_text(const PairSelection& p) {
  std::string out;
  switch (p.mode) {
    case PairSelection::Mode::all: out = fmt::format("all {} ordered pairs with peer access", p.available); break;
    case PairSelection::Mode::given: out = fmt::format("given: {}", pair_list(p, 16)); break;
    case PairSelection::Mode::sampled:
      out = fmt::format("sampled {} of {} (seed {}): {}", p.pairs.size(), p.available, p.seed, pair_list(p, 16));
      break;
  }
  if (!p.note.empty()) out += "; " + p.note;
  return out;
}

std::string plan_text(const RunEstimate& e, const System& sys, const PlanContext& ctx) {
  const MeasureOptions& m = ctx.measure;
  std::string out = fmt::format("# xferbench {} dry run for {} ({} GPU{}, {}): nothing is measured\n", XFERBENCH_VERSION,
                                sys.hostname.empty() ? "?" : printable(sys.hostname), sys.gpu_count(),
                                sys.gpu_count() == 1 ? "" : "s",
                                ctx.topology.empty() ? "this machine" : "topology " + printable(ctx.topology));
  out += fmt::format("# buffer {}, {}-{} samples per cell (target error {}%, budget {} s), host memory {}\n",
                     bytes_label(ctx.buffer_bytes), m.min_samples, m.max_samples, m.target_rel_error * 100, m.budget_s,
                     to_string(m.host_kind));
  out += fmt::format("# GPU pairs of the pairwise cases: {}\n", pairs_text(e.pairs));
  out += fmt::format("#{:>4}  {:<48} {:>6} {:>12} {:>10}\n", "idx", "case", "cells", "moved", "estimate");
  int waived = 0;
  for (const CaseEstimate& c : e.cases) {
    if (!c.waived.empty()) {
      ++waived;
      out += fmt::format("{:>5}  {:<48} WAIVED: {}\n", c.def->index, c.def->name, c.waived);
      continue;
    }
    out += fmt::format("{:>5}  {:<48} {:>6} {:>12} {:>10}\n", c.def->index, c.def->name, c.cells.size(),
                       gb_text(c.bytes_moved), estimate_text(c.seconds));
  }
  if (e.drift_cells > 0)
    out += fmt::format("# drift check: {} reference cell{} at the start and the end, {}\n", e.drift_cells,
                       e.drift_cells == 1 ? "" : "s", estimate_text(e.drift_check_s));
  out += fmt::format("# total: {} cases ({} waived), {} cells, {} moved, estimated {} (of which {:.1f} s start-up)\n",
                     e.cases.size(), waived, e.cells, gb_text(e.bytes_moved), estimate_text(e.seconds), e.start_s);
  out += fmt::format("# planned peak memory (the largest cell, the buffer pool's default budget): {}\n",
                     memory_text(e.peak_memory));
  out += "# estimate from the time model of docs/dry_run.md (fitted to recorded H200 and H100 runs)\n";
  return out;
}

json plan_json(const RunEstimate& e, const System& sys, const PlanContext& ctx) {
  json cases = json::array(), pairs = json::array();
  for (const CaseEstimate& c : e.cases) {
    json cells = json::array();
    for (const CellEstimate& x : c.cells) {
      cells.push_back({{"row", x.row}, {"col", x.col}, {"transfers", x.transfers}, {"host_transfers", x.host_transfers},
                       {"contending_host_transfers", x.contending}, {"copy_seconds", x.copy_s},
                       {"copies_per_sample", x.copies}, {"expected_samples", x.samples},
                       {"bytes_moved", x.bytes_moved}, {"verify_seconds", x.verify_s},
                       {"estimated_seconds", x.seconds}});
      if (x.nvbandwidth)
        cells.back()["nvbandwidth_way"] = {{"copy_seconds", x.nvbandwidth->copy_s},
                                           {"copies_per_sample", x.nvbandwidth->copies},
                                           {"expected_samples", x.nvbandwidth->samples},
                                           {"estimated_seconds", x.nvbandwidth->seconds}};
    }
    json j = {{"index", c.def->index}, {"name", c.def->name}, {"name_origin", c.def->origin},
              {"status", c.waived.empty() ? "planned" : "waived"}, {"cells", cells},
              {"new_host_buffer_bytes", c.new_host_bytes}, {"new_device_buffer_bytes", c.new_device_bytes},
              {"bytes_moved", c.bytes_moved}, {"estimated_seconds", c.seconds}};
    if (!c.waived.empty()) j["message"] = c.waived;
    cases.push_back(j);
  }
  for (const GpuPair& p : e.pairs.pairs) pairs.push_back({p.from, p.to});
  return {{"schema", kPlanSchemaName},
          {"schema_version", kPlanSchemaVersion},
          {"tool", {{"name", "xferbench"}, {"version", XFERBENCH_VERSION}}},
          {"topology_file", ctx.topology.empty() ? json(nullptr) : json(ctx.topology)},
          {"buffer_bytes", ctx.buffer_bytes},
          {"gpu_pairs", {{"mode", to_string(e.pairs.mode)}, {"pairs", pairs}, {"available_pairs", e.pairs.available},
                         {"requested", e.pairs.requested}, {"seed", e.pairs.seed}, {"note", e.pairs.note}}},
          {"time_model", model_json(recorded_time_model())},
          {"planned_peak_memory", records::amount_json(e.peak_memory)},
          {"start_seconds", e.start_s},
          {"drift_check", {{"reference_cells", e.drift_cells}, {"estimated_seconds", e.drift_check_s},
                           {"copies_seconds", e.drift_copies_s}, {"new_host_buffer_bytes", e.drift_new_host_bytes},
                           {"new_device_buffer_bytes", e.drift_new_device_bytes}}},
          {"cells", e.cells},
          {"bytes_moved", e.bytes_moved},
          {"estimated_seconds", e.seconds},
          {"environment", records::system_json(sys)},
          {"cases", cases}};
}

}  // namespace xb::report
