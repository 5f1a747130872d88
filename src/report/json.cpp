#include <cmath>

#include "base/build_info.hpp"
#include "cases/cases.hpp"
#include "cases/runner.hpp"
#include "report/report.hpp"

namespace xb::report {
namespace {

using json = nlohmann::json;


json numa_json(const NumaNode& n) {
  return {{"id", n.id}, {"cpus", n.cpus}, {"memory_bytes", n.memory_bytes}, {"free_bytes", n.free_bytes}};
}

json gpu_json(const GpuInfo& g) {
  return {{"index", g.index},
          {"name", g.name},
          {"pci_bus_id", g.pci_bus_id},
          {"uuid", g.uuid},
          {"compute_capability", std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor)},
          {"sm_count", g.sm_count},
          {"memory_bytes", g.memory_bytes},
          {"numa_node", g.numa_node},
          {"pcie", {{"generation_current", g.pcie_gen_current}, {"generation_max", g.pcie_gen_max},
                    {"width_current", g.pcie_width_current}, {"width_max", g.pcie_width_max}}},
          {"nvlink", {{"active_links", g.nvlink_count}, {"gbps_per_link", g.nvlink_gbps_per_link},
                      {"rate_source", g.nvlink_rate_source}, {"remote_bus_ids", g.nvlink_remote_bus_ids}}},
          {"managed_memory", g.managed_memory},
          {"unified_addressing", g.unified_addressing},
          {"can_map_host_memory", g.can_map_host_memory},
          {"copy_engines", g.copy_engines},
          {"shared_memory_per_sm_kib", g.shared_memory_per_sm_kib},
          {"memory_bus_width_bits", g.memory_bus_width_bits},
          {"memory_clock_khz", g.memory_clock_khz},
          {"peak_host_link", peak_json(g.pcie)},
          {"peak_device_memory", peak_json(g.memory)}};
}

json stats_json(const Cell& c, const std::string& unit) {
  return {{"median_" + unit, c.stats.median}, {"mean_" + unit, c.stats.mean}, {"min_" + unit, c.stats.min},
          {"max_" + unit, c.stats.max},       {"stddev_" + unit, c.stats.stddev}, {"cov", c.stats.cov}};
}

json cell_json(const Cell& c, Metric metric) {
  const std::string unit = metric == Metric::bandwidth_gbps ? "gbps" : "ns";
  json j = {{"row", c.row},
            {"col", c.col},
            {"value_" + unit, c.value},
            {"stats", stats_json(c, unit)},
            {"samples", c.stats.count},
            {"samples_" + unit, c.samples},
            {"link", c.link},
            {"outlier", c.outlier}};
  if (metric == Metric::bandwidth_gbps) {
    j["bytes_per_copy"] = c.bytes_per_copy;
    j["copies_per_sample"] = c.copies_per_sample;
    j["gated"] = c.gated;
    j["peak"] = peak_json(c.peak);
    j["efficiency"] = c.peak.known() ? json(c.efficiency) : json(nullptr);
    j["verification"] = {{"status", to_string(c.verification.status)}};
    if (c.verification.status == Verification::Status::failed)
      j["verification"]["first_bad_offset"] = c.verification.first_bad_offset;
  } else {
    j["buffer_bytes"] = c.bytes_per_copy;
    j["accesses_per_sample"] = c.copies_per_sample;
  }
  if (c.host_page_bytes > 0) j["host_page_bytes"] = c.host_page_bytes;
  if (!c.note.empty()) j["note"] = c.note;
  j["invalid"] = c.invalid;
  if (c.invalid) j["invalid_reason"] = c.invalid_reason;
  if (!c.error.empty()) j["error"] = c.error;
  return j;
}

json matrix_json(const Matrix& m) {
  json cells = json::array();
  for (const auto& c : m.cells) cells.push_back(cell_json(c, m.metric));
  return {{"name", m.name}, {"title", m.title}, {"metric", to_string(m.metric)},
          {"row_labels", m.row_labels}, {"col_labels", m.col_labels}, {"cells", cells}};
}

json pairs_json(const PairSelection& p) {
  json pairs = json::array();
  for (const GpuPair& g : p.pairs) pairs.push_back({g.from, g.to});
  json j = {{"mode", to_string(p.mode)}, {"pairs", pairs}, {"available_pairs", p.available}};
  if (p.requested > 0) {
    j["requested"] = p.requested;
    j["seed"] = p.seed;
  }
  if (!p.note.empty()) j["note"] = p.note;
  return j;
}

json case_json(const CaseResult& c) {
  json matrices = json::array();
  for (const auto& m : c.matrices) matrices.push_back(matrix_json(m));
  json j = {{"index", c.index}, {"name", c.name}, {"description", c.description}, {"status", to_string(c.status)},
            {"message", c.message}, {"wall_seconds", c.wall_seconds}, {"matrices", matrices}};
  if (!c.waived_cells.empty()) {
    json cells = json::array();
    for (const auto& w : c.waived_cells) cells.push_back({{"row", w.row}, {"col", w.col}, {"reason", w.reason}});
    j["waived_cells"] = cells;
  }
  return j;
}

// Measured peaks, and the budget the buffer pool kept to (docs/memory.md).
json memory_json(const MemoryCost& m) {
  json gpus = json::array();
  for (const auto& g : m.gpus) gpus.push_back({{"index", g.gpu}, {"peak_bytes", g.peak_bytes}, {"source", g.source}});
  json budget = amount_json(m.budget);
  budget["mode"] = m.budget_fixed ? "max-memory" : "largest cell";
  return {{"peak_host_rss_bytes", m.host_peak_rss_bytes},
          {"host_source", "getrusage ru_maxrss"},
          {"peak_gpu", gpus},
          {"gpu_sources",
           {{"nvml_process", "NVML's memory of this process on the GPU, CUDA context included"},
            {"cuda_used_rise", "rise of the GPU's used memory (cudaMemGetInfo) since the run started: buffers, "
                               "not the CUDA context; other processes' allocations included"}}},
          {"gpu_sampling", "after every buffer allocation"},
          {"planned_peak", amount_json(m.planned)},
          {"budget", budget},
          {"pool", {{"host_allocations", m.pool.host_allocations},
                    {"host_allocation_seconds", m.pool.host_allocation_seconds},
                    {"gpu_allocations", m.pool.gpu_allocations},
                    {"gpu_allocation_seconds", m.pool.gpu_allocation_seconds},
                    {"evictions", m.pool.evictions},
                    {"eviction_seconds", m.pool.eviction_seconds}}}};
}

}  // namespace

json peak_json(const Peak& p) {
  if (!p.known()) return nullptr;
  return {{"gbps", p.gbps}, {"formula", p.formula}, {"source", p.source}};
}

json amount_json(const MemoryAmount& a) {
  json j = {{"gpu_bytes", a.gpu}, {"host_bytes", a.host}, {"host_page_locked_bytes", a.host_locked}};
  if (a.host_hugepages > 0) j["host_hugepage_bytes"] = a.host_hugepages;
  return j;
}

json tool_json() {
  json t = {{"name", "xferbench"}, {"version", XFERBENCH_VERSION}};
  if (*build_git_hash() != '\0') t["git"] = build_git_hash();
  return t;
}

std::string run_status_text(const RunResult& run) { return run_verdict(run); }

json stop_section_json(RunStatus status, StopReason stop, const std::string& message,
                       const std::vector<std::string>& not_run, double time_limit_s) {
  json j = {{"time_limit_seconds", time_limit_s > 0 ? json(time_limit_s) : json(nullptr)}};
  if (status == RunStatus::complete) return j;
  j["reason"] = to_string(stop);
  j["message"] = message;
  j["not_run"] = not_run;
  return j;
}

json stop_json(const RunResult& run) {
  json j = stop_section_json(run.status, run.stop, run.stop_reason, run.not_run, run.time_limit_s);
  j["resumed_from"] = run.resumed_from.empty() ? json(nullptr) : json(run.resumed_from);
  return j;
}

json system_json(const System& sys) {
  json gpus = json::array(), numa = json::array(), links = json::array();
  for (const auto& g : sys.gpus) gpus.push_back(gpu_json(g));
  for (const auto& n : sys.numa) numa.push_back(numa_json(n));
  for (int a = 0; a < sys.gpu_count(); ++a) {
    for (int b = 0; b < sys.gpu_count(); ++b) {
      const PeerLink& l = sys.link(a, b);
      links.push_back({{"from", a}, {"to", b}, {"kind", to_string(l.kind)}, {"nvlinks", l.nvlinks},
                       {"peer_access", l.peer_access}, {"peak", peak_json(l.peak)}});
    }
  }
  return {{"hostname", sys.hostname},
          {"driver_version", sys.driver_version},
          {"cuda_driver_version", sys.cuda_driver_version},
          {"cuda_runtime_version", sys.cuda_runtime_version},
          {"nvml_available", sys.nvml_available},
          {"nvml_error", sys.nvml_error},
          {"gpus", gpus},
          {"gpu_links", links},
          {"numa_nodes", numa},
          {"host_memory_bytes", sys.host_memory_bytes}};
}

json stability_json(const Stability& s) {
  json refs = json::array();
  // A check that did not complete has start values only: no end or drift
  // that could read as measured.
  for (const auto& e : s.entries)
    refs.push_back({{"case", e.ref.case_name}, {"row", e.ref.row}, {"col", e.ref.col}, {"label", e.ref.label},
                    {"link", e.ref.link}, {"start_gbps", e.start_gbps},
                    {"end_gbps", s.checked ? json(e.end_gbps) : json(nullptr)},
                    {"drift_pct", s.checked ? json(e.drift_pct) : json(nullptr)}});
  json j = {{"checked", s.checked}, {"tolerance_pct", s.tolerance_pct}, {"references", refs}};
  if (s.checked) {
    j["max_abs_drift_pct"] = s.max_abs_drift_pct;
    j["stable"] = s.stable;
  }
  if (!s.error.empty()) j["error"] = s.error;
  return j;
}

json run_json(const RunResult& run) {
  json cases = json::array();
  for (const auto& c : run.cases) cases.push_back(case_json(c));
  const MeasureOptions& m = run.settings.measure;
  return {{"schema", kSchemaName},
          {"schema_version", kSchemaVersion},
          {"tool", tool_json()},
          {"command_line", run.command_line},
          {"start_time_utc", run.start_time_utc},
          {"wall_seconds", run.wall_seconds},
          {"stability", stability_json(run.stability)},
          {"status", run_status_text(run)},
          {"stop", stop_json(run)},
          {"settings",
           {{"buffer_bytes", run.settings.buffer_bytes},
            {"statistic", run.settings.statistic},
            {"copies_per_sample", m.copies_per_sample},
            {"target_sample_seconds", m.target_sample_s},
            {"warmup_copies", m.warmup_copies},
            {"min_samples", m.min_samples},
            {"max_samples", m.max_samples},
            {"target_relative_error", m.target_rel_error},
            {"budget_seconds_per_cell", m.budget_s},
            {"verify", m.verify},
            {"numa_affinity", m.numa_affinity},
            {"sm_repeat_in_kernel", m.sm_repeat_in_kernel},
            {"host_memory", to_string(m.host_kind)},
            {"gpu_pairs", pairs_json(run.settings.pairs)}}},
          {"environment", system_json(run.system)},
          {"memory", memory_json(run.memory)},
          {"cases", cases}};
}

json cases_json() {
  json out = json::array();
  for (const auto& d : case_catalogue())
    out.push_back({{"index", d.index}, {"name", d.name}, {"engine", to_string(d.engine)}, {"description", d.description},
                   {"name_origin", d.origin}});
  return out;
}

}  // namespace xb::report
