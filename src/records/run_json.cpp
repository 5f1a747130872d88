#include "records/run_json.hpp"

#include "records/result.hpp"
#include "records/document.hpp"
#include "records/system_json.hpp"

namespace xb {

// A GPU pair as [from, to].
static void to_json(nlohmann::json& j, const GpuPair& p) { j = {p.from, p.to}; }
static void from_json(const nlohmann::json& j, GpuPair& p) { p = {j.at(0).get<int>(), j.at(1).get<int>()}; }

}  // namespace xb

namespace xb::records {
namespace {

using json = nlohmann::json;

constexpr auto loaded_fields = [](auto& io, auto& l) {
  io.need("idle_ns", l.idle_ns);
  io.check(l.idle_ns >= 0, "idle_ns", fmt::format("{}: a latency is not negative", l.idle_ns));
  io("loaded_ns", l.loaded_ns);
  io.need("ratio", l.ratio);
  // A negative ratio would pass any max_ratio a check spec sets.
  io.check(l.ratio >= 0, "ratio", fmt::format("{}: loaded over idle latency is not negative", l.ratio));
  io.object("load", l, [](auto& o, auto& x) {
    o("label", x.load);
    o.need("gbps", x.load_gbps);
    o("link", x.load_link);
    o("peak", x.load_peak);
    o.text("peak_gbps", x.load_peak.known() ? nlohmann::json(x.load_peak.gbps) : nlohmann::json(nullptr));
    o.null_unless(x.load_peak.known(), "pct_of_peak", x.load_pct);
    o("weak", x.weak);
  });
};

constexpr auto nvbandwidth_way_fields = [](auto& io, auto& w) {
  io.need("value_gbps", w.value);
  io.need("ratio", w.ratio);
  io("differs", w.differs);
  io("why", w.why);
  io.need_object("stats", w.stats, [](auto& s, auto& x) { stats_fields(s, x, "gbps"); });
  io("samples_gbps", w.samples);
  percentiles_from_samples(io, w.stats, w.samples);
};

template <class Io, class C>
void cell_fields(Io& io, C& c, const Matrix& m) {
  const std::string unit = m.metric == Metric::bandwidth_gbps ? "gbps" : "ns";
  io.need("row", c.row);
  io.need("col", c.col);
  io.check(c.row >= 0 && static_cast<std::size_t>(c.row) < m.row_labels.size(), "row", "not a row of the matrix");
  io.check(c.col >= 0 && static_cast<std::size_t>(c.col) < m.col_labels.size(), "col", "not a column of the matrix");
  io.need("value_" + unit, c.value);
  io.need_object("stats", c.stats, [&unit](auto& s, auto& x) { stats_fields(s, x, unit); });
  io("samples", c.stats.count);
  io("samples_" + unit, c.samples);
  percentiles_from_samples(io, c.stats, c.samples);
  io("link", c.link);
  io("outlier", c.outlier);
  if (m.metric == Metric::bandwidth_gbps) {
    io("bytes_per_copy", c.bytes_per_copy);
    io("copies_per_sample", c.copies_per_sample);
    io("gated", c.gated);
    io("peak", c.peak);
    io.null_unless(c.peak.known(), "efficiency", c.efficiency);
    io.object("verification", c.verification, [](auto& v, auto& x) {
      check_fields(v, x.status);
      v.when(x.status == Verification::Status::failed, "first_bad_offset", x.first_bad_offset);
    });
  } else {
    io("buffer_bytes", c.bytes_per_copy);
    io("accesses_per_sample", c.copies_per_sample);
  }
  io.when(c.host_page_bytes > 0, "host_page_bytes", c.host_page_bytes);
  io.when(!c.note.empty(), "note", c.note);
  io("invalid", c.invalid);
  io.when(c.invalid, "invalid_reason", c.invalid_reason);
  io.when(!c.error.empty(), "error", c.error);
  io.optional_object("loaded", c.loaded, loaded_fields);
  io.optional_object("nvbandwidth", c.nvbandwidth, nvbandwidth_way_fields);
}

constexpr auto matrix_fields = [](auto& io, auto& m) {
  io("name", m.name);
  io("title", m.title);
  io.choice("metric", m.metric, {Metric::bandwidth_gbps, Metric::latency_ns});
  io.need("row_labels", m.row_labels);
  io.need("col_labels", m.col_labels);
  io.need_list("cells", m.cells, [&m](auto& cell, auto& c) { cell_fields(cell, c, m); });
};

constexpr auto case_fields = [](auto& io, auto& c) {
  io("index", c.index);
  io.need("name", c.name);
  io("description", c.description);
  using S = CaseStatus;
  io.choice("status", c.status, {S::passed, S::failed, S::waived, S::error, S::not_run});
  io("message", c.message);
  io("wall_seconds", c.wall_seconds);
  io.need_list("matrices", c.matrices, matrix_fields);
  if (std::decay_t<decltype(io)>::reading || !c.waived_cells.empty())
    io.list("waived_cells", c.waived_cells, [](auto& w, auto& x) {
      w.need("row", x.row);
      w.need("col", x.col);
      w("reason", x.reason);
    });
};

constexpr auto pairs_fields = [](auto& io, auto& p) {
  using M = PairSelection::Mode;
  io.choice("mode", p.mode, {M::all, M::given, M::sampled});
  io("pairs", p.pairs);
  io("available_pairs", p.available);
  io.when(p.requested > 0, "requested", p.requested);
  io.when(p.requested > 0, "seed", p.seed);
  io.when(!p.note.empty(), "note", p.note);
};

constexpr auto settings_fields = [](auto& io, auto& s) {
  measure_fields(io, s.measure);
  io("statistic", s.statistic);
  io("buffer_bytes", s.buffer_bytes);
  io("warmup_copies", s.measure.warmup_copies);
  io("sm_repeat_in_kernel", s.measure.sm_repeat_in_kernel);
  io("nvbandwidth_way", s.measure.nvbandwidth_way);
  using K = MemKind;
  io.choice("host_memory", s.measure.host_kind,
            {K::device, K::pinned, K::pageable, K::write_combined, K::mapped, K::managed, K::hugepages});
  io.object("gpu_pairs", s.pairs, pairs_fields);
};

constexpr auto amount_fields = [](auto& io, auto& a) {
  io("gpu_bytes", a.gpu);
  io("host_bytes", a.host);
  io("host_page_locked_bytes", a.host_locked);
  io.when(a.host_hugepages > 0, "host_hugepage_bytes", a.host_hugepages);
};

// Measured peaks, and the budget the buffer pool kept to (docs/memory.md).
constexpr auto memory_fields = [](auto& io, auto& m) {
  io("peak_host_rss_bytes", m.host_peak_rss_bytes);
  io.text("host_source", "getrusage ru_maxrss");
  io.list("peak_gpu", m.gpus, [](auto& g, auto& x) {
    g.need("index", x.gpu);
    g("peak_bytes", x.peak_bytes);
    g("source", x.source);
  });
  io.text("gpu_sources",
          {{"nvml_process", "NVML's memory of this process on the GPU, CUDA context included"},
           {"cuda_used_rise", "rise of the GPU's used memory (cudaMemGetInfo) since the run started: buffers, "
                              "not the CUDA context; other processes' allocations included"}});
  io.text("gpu_sampling", "after every buffer allocation");
  io.object("planned_peak", m.planned, amount_fields);
  io.object("budget", m, [](auto& b, auto& x) {
    amount_fields(b, x.budget);
    std::string mode = x.budget_fixed ? "max-memory" : "largest cell";
    b("mode", mode);
    if constexpr (std::decay_t<decltype(b)>::reading) x.budget_fixed = mode == "max-memory";
  });
  io.object("pool", m.pool, [](auto& p, auto& x) {
    p("host_allocations", x.host_allocations);
    p("host_allocation_seconds", x.host_allocation_seconds);
    p("gpu_allocations", x.gpu_allocations);
    p("gpu_allocation_seconds", x.gpu_allocation_seconds);
    p("evictions", x.evictions);
    p("eviction_seconds", x.eviction_seconds);
  });
};

// A check that did not complete has start values only: no end or drift
// that could read as measured.
constexpr auto stability_fields = [](auto& io, auto& s) {
  io("checked", s.checked);
  io("tolerance_pct", s.tolerance_pct);
  io.list("references", s.entries, [&s](auto& r, auto& e) {
    r("case", e.ref.case_name);
    r("row", e.ref.row);
    r("col", e.ref.col);
    r("label", e.ref.label);
    r("link", e.ref.link);
    r("start_gbps", e.start_gbps);
    r.null_unless(s.checked, "end_gbps", e.end_gbps);
    r.null_unless(s.checked, "drift_pct", e.drift_pct);
  });
  io.when(s.checked, "max_abs_drift_pct", s.max_abs_drift_pct);
  io.when(s.checked, "stable", s.stable);
  io.when(!s.error.empty(), "error", s.error);
};

constexpr auto run_fields = [](auto& io, auto& r) {
  io("command_line", r.command_line);
  io("start_time_utc", r.start_time_utc);
  io("wall_seconds", r.wall_seconds);
  io.object("stability", r.stability, stability_fields);
  io.object("settings", r.settings, settings_fields);
  io.object("memory", r.memory, memory_fields);
  io.need_list("cases", r.cases, case_fields);
};

}  // namespace

json amount_json(const MemoryAmount& a) { return Writer::of(a, amount_fields); }

json run_json(const RunResult& run) {
  json j = Writer::of(run, run_fields);
  j["schema"] = kSchemaName;
  j["schema_version"] = kSchemaVersion;
  j["tool"] = tool_json();
  j["status"] = to_string(ending(run.completion, !all_passed(run)).outcome);
  // Time limit, resume source and, for an incomplete run, why and what is missing.
  j["stop"] = completion_json(run.completion);
  j["stop"]["resumed_from"] = run.resumed_from.empty() ? json(nullptr) : json(run.resumed_from);
  j["environment"] = system_json(run.system);
  return j;
}

RunResult decode_run(const json& doc, const std::string& name) {
  return decode_document(name, kSchemaName, [&doc] {
    const Fields d(doc, "");
    RunResult r;
    Reader::into(d, r, run_fields);
    decode_completion(d, r.completion);
    if (d.has("stop")) r.resumed_from = d.object("stop").get<std::string>("resumed_from", "");
    if (d.has("environment")) r.system = decode_system(doc.at("environment"), "environment", false);
    return r;
  });
}

}  // namespace xb::records
