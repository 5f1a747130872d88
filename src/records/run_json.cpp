#include "records/run_json.hpp"

#include "core/runner.hpp"
#include "records/document.hpp"
#include "records/system_json.hpp"

namespace xb::records {
namespace {

using json = nlohmann::json;

const char* unit_of(Metric metric) { return metric == Metric::bandwidth_gbps ? "gbps" : "ns"; }

json cell_json(const Cell& c, Metric metric) {
  const std::string unit = unit_of(metric);
  json j = {{"row", c.row},
            {"col", c.col},
            {"value_" + unit, c.value},
            {"stats", stats_json(c.stats, unit)},
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

Cell decode_cell(const Fields& j, const Matrix& m) {
  const std::string unit = unit_of(m.metric);
  Cell c;
  c.row = j.get<int>("row");
  c.col = j.get<int>("col");
  if (c.row < 0 || static_cast<std::size_t>(c.row) >= m.row_labels.size()) j.bad("row", "not a row of the matrix");
  if (c.col < 0 || static_cast<std::size_t>(c.col) >= m.col_labels.size()) j.bad("col", "not a column of the matrix");
  c.value = j.get<double>(("value_" + unit).c_str());
  c.samples = j.get(("samples_" + unit).c_str(), std::vector<double>{});
  c.stats = decode_stats(j, unit, j.get("samples", 0));
  c.link = j.get<std::string>("link", "");
  c.outlier = j.get("outlier", false);
  c.host_page_bytes = j.get("host_page_bytes", std::uint64_t{0});
  c.note = j.get<std::string>("note", "");
  c.invalid = j.get("invalid", false);
  c.invalid_reason = j.get<std::string>("invalid_reason", "");
  c.error = j.get<std::string>("error", "");
  if (m.metric == Metric::latency_ns) {
    c.bytes_per_copy = j.get("buffer_bytes", std::uint64_t{0});
    c.copies_per_sample = j.get("accesses_per_sample", 0);
    return c;
  }
  c.bytes_per_copy = j.get("bytes_per_copy", std::uint64_t{0});
  c.copies_per_sample = j.get("copies_per_sample", 0);
  c.gated = j.get("gated", true);
  c.peak = decode_peak(j, "peak");
  c.efficiency = j.get("efficiency", 0.0);
  c.verification.status = decode_check(j);
  if (j.has("verification"))
    c.verification.first_bad_offset = j.object("verification").get("first_bad_offset", std::uint64_t{0});
  return c;
}

json matrix_json(const Matrix& m) {
  json cells = json::array();
  for (const auto& c : m.cells) cells.push_back(cell_json(c, m.metric));
  return {{"name", m.name}, {"title", m.title}, {"metric", to_string(m.metric)},
          {"row_labels", m.row_labels}, {"col_labels", m.col_labels}, {"cells", cells}};
}

Matrix decode_matrix(const Fields& j) {
  Matrix m;
  m.name = j.get<std::string>("name", "");
  m.title = j.get<std::string>("title", "");
  m.metric = j.get("metric", {Metric::bandwidth_gbps, Metric::latency_ns}, Metric::bandwidth_gbps);
  m.row_labels = j.get<std::vector<std::string>>("row_labels");
  m.col_labels = j.get<std::vector<std::string>>("col_labels");
  for (const Fields& c : j.items("cells")) m.cells.push_back(decode_cell(c, m));
  return m;
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

CaseResult decode_case(const Fields& j) {
  CaseResult c;
  c.index = j.get("index", 0);
  c.name = j.get<std::string>("name");
  c.description = j.get<std::string>("description", "");
  c.status = j.get("status",
                   {CaseStatus::passed, CaseStatus::failed, CaseStatus::waived, CaseStatus::error, CaseStatus::not_run},
                   CaseStatus::passed);
  c.message = j.get<std::string>("message", "");
  c.wall_seconds = j.get("wall_seconds", 0.0);
  for (const Fields& m : j.items("matrices")) c.matrices.push_back(decode_matrix(m));
  if (j.has("waived_cells"))
    for (const Fields& w : j.items("waived_cells"))
      c.waived_cells.push_back({w.get<int>("row"), w.get<int>("col"), w.get<std::string>("reason", "")});
  return c;
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

PairSelection decode_pairs(const Fields& j) {
  PairSelection p;
  using Mode = PairSelection::Mode;
  p.mode = j.get("mode", {Mode::all, Mode::given, Mode::sampled}, Mode::all);
  for (const auto& [from, to] : j.get("pairs", std::vector<std::pair<int, int>>{})) p.pairs.push_back({from, to});
  p.available = j.get("available_pairs", 0);
  p.requested = j.get("requested", 0);
  p.seed = j.get("seed", std::uint64_t{0});
  p.note = j.get<std::string>("note", "");
  return p;
}

json settings_json(const RunSettings& s) {
  json j = measure_json(s.measure, s.statistic);
  j["buffer_bytes"] = s.buffer_bytes;
  j["warmup_copies"] = s.measure.warmup_copies;
  j["sm_repeat_in_kernel"] = s.measure.sm_repeat_in_kernel;
  j["host_memory"] = to_string(s.measure.host_kind);
  j["gpu_pairs"] = pairs_json(s.pairs);
  return j;
}

RunSettings decode_settings(const Fields& j) {
  RunSettings s;
  s.buffer_bytes = j.get("buffer_bytes", std::uint64_t{0});
  decode_measure(j, s.measure, s.statistic);
  s.measure.host_kind = j.get("host_memory",
                              {MemKind::device, MemKind::pinned, MemKind::pageable, MemKind::write_combined,
                               MemKind::mapped, MemKind::managed, MemKind::hugepages},
                              MemKind::pinned);
  if (j.has("gpu_pairs")) s.pairs = decode_pairs(j.object("gpu_pairs"));
  return s;
}

MemoryAmount decode_amount(const Fields& j) {
  MemoryAmount a;
  a.gpu = j.get("gpu_bytes", a.gpu);
  a.host = j.get("host_bytes", std::uint64_t{0});
  a.host_locked = j.get("host_page_locked_bytes", std::uint64_t{0});
  a.host_hugepages = j.get("host_hugepage_bytes", std::uint64_t{0});
  return a;
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

MemoryCost decode_memory(const Fields& j) {
  MemoryCost m;
  m.host_peak_rss_bytes = j.get("peak_host_rss_bytes", std::uint64_t{0});
  if (j.has("peak_gpu"))
    for (const Fields& g : j.items("peak_gpu"))
      m.gpus.push_back({g.get<int>("index"), g.get("peak_bytes", std::uint64_t{0}), g.get<std::string>("source", "")});
  if (j.has("planned_peak")) m.planned = decode_amount(j.object("planned_peak"));
  if (j.has("budget")) {
    m.budget = decode_amount(j.object("budget"));
    m.budget_fixed = j.object("budget").get<std::string>("mode", "") == "max-memory";
  }
  if (!j.has("pool")) return m;
  const Fields p = j.object("pool");
  m.pool.host_allocations = p.get("host_allocations", std::uint64_t{0});
  m.pool.host_allocation_seconds = p.get("host_allocation_seconds", 0.0);
  m.pool.gpu_allocations = p.get("gpu_allocations", std::uint64_t{0});
  m.pool.gpu_allocation_seconds = p.get("gpu_allocation_seconds", 0.0);
  m.pool.evictions = p.get("evictions", std::uint64_t{0});
  m.pool.eviction_seconds = p.get("eviction_seconds", 0.0);
  return m;
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

Stability decode_stability(const Fields& j) {
  Stability s;
  s.checked = j.get("checked", false);
  s.tolerance_pct = j.get("tolerance_pct", s.tolerance_pct);
  if (j.has("references"))
    for (const Fields& r : j.items("references"))
      s.entries.push_back({{r.get<std::string>("case", ""), r.get("row", 0), r.get("col", 0),
                            r.get<std::string>("label", ""), r.get<std::string>("link", "")},
                           r.get("start_gbps", 0.0), r.get("end_gbps", 0.0), r.get("drift_pct", 0.0)});
  s.max_abs_drift_pct = j.get("max_abs_drift_pct", 0.0);
  s.stable = j.get("stable", true);
  s.error = j.get<std::string>("error", "");
  return s;
}

// Time limit, resume source and, for an incomplete run, why and what is missing.
json stop_json(const RunResult& run) {
  json j = stop_section_json(run.status, run.stop, run.stop_reason, run.not_run, run.time_limit_s);
  j["resumed_from"] = run.resumed_from.empty() ? json(nullptr) : json(run.resumed_from);
  return j;
}

}  // namespace

json amount_json(const MemoryAmount& a) {
  json j = {{"gpu_bytes", a.gpu}, {"host_bytes", a.host}, {"host_page_locked_bytes", a.host_locked}};
  if (a.host_hugepages > 0) j["host_hugepage_bytes"] = a.host_hugepages;
  return j;
}

json run_json(const RunResult& run) {
  json cases = json::array();
  for (const auto& c : run.cases) cases.push_back(case_json(c));
  return {{"schema", kSchemaName},
          {"schema_version", kSchemaVersion},
          {"tool", tool_json()},
          {"command_line", run.command_line},
          {"start_time_utc", run.start_time_utc},
          {"wall_seconds", run.wall_seconds},
          {"stability", stability_json(run.stability)},
          {"status", run_verdict(run)},
          {"stop", stop_json(run)},
          {"settings", settings_json(run.settings)},
          {"environment", system_json(run.system)},
          {"memory", memory_json(run.memory)},
          {"cases", cases}};
}

RunResult decode_run(const json& doc, const std::string& name) {
  return decode_document(name, kSchemaName, [&doc] {
    const Fields d(doc, "");
    RunResult r;
    r.command_line = d.get("command_line", r.command_line);
    r.start_time_utc = d.get<std::string>("start_time_utc", "");
    r.wall_seconds = d.get("wall_seconds", 0.0);
    if (d.has("stability")) r.stability = decode_stability(d.object("stability"));
    if (decode_stop(d, r.status, r.stop, r.stop_reason, r.time_limit_s))
      r.not_run = d.object("stop").get("not_run", r.not_run);
    if (d.has("stop")) r.resumed_from = d.object("stop").get<std::string>("resumed_from", "");
    if (d.has("settings")) r.settings = decode_settings(d.object("settings"));
    if (d.has("environment")) r.system = decode_system(doc.at("environment"), "environment", false);
    if (d.has("memory")) r.memory = decode_memory(d.object("memory"));
    for (const Fields& c : d.items("cases")) r.cases.push_back(decode_case(c));
    return r;
  });
}

}  // namespace xb::records
