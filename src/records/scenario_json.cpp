#include "records/scenario_json.hpp"

#include "records/document.hpp"
#include "records/system_json.hpp"

namespace xb::records {
namespace {

using json = nlohmann::json;

constexpr std::initializer_list<MemKind> kMemKinds = {MemKind::device,         MemKind::pinned, MemKind::pageable,
                                                      MemKind::write_combined, MemKind::mapped, MemKind::managed,
                                                      MemKind::hugepages};
constexpr std::initializer_list<Engine> kEngines = {Engine::copy_engine, Engine::sm,      Engine::sm_split,
                                                    Engine::cpu,         Engine::tma,     Engine::sm_read,
                                                    Engine::sm_write};
constexpr std::initializer_list<StreamMode> kStreamModes = {StreamMode::per_transfer, StreamMode::per_device,
                                                            StreamMode::only_one};

// Nothing of an unmeasured scenario (stopped, or its measurement failed)
// may read as a number: its measured fields are null.
bool measured(const ScenarioResult& r) {
  return r.completion.status == RunStatus::complete && r.completion.error.empty();
}

bool host_side(const TransferResult& t) { return t.direction == "HtoD" || t.direction == "DtoH"; }

// The transfer's described fields, then the measured ones (null unless `m`).
template <class Io, class T>
void transfer_fields(Io& io, T& t, bool m) {
  io.need("id", t.id);
  io.need("label", t.label);
  io("device", t.device);
  io("device_name", t.device_name);
  io("src_gpu", t.src_gpu);
  io("dst_gpu", t.dst_gpu);
  io("direction", t.direction);
  io("bytes_per_copy", t.bytes);
  io.choice("memory_kind", t.memory, kMemKinds);
  io.choice("engine", t.engine, kEngines);
  io.null_unless(m, "elapsed_s", t.elapsed_s);
  io.null_unless(m, "sample_elapsed_s", t.sample_elapsed_s);
  io.null_unless(m, "bandwidth_gbps", t.bandwidth_gbps);
  io.object_or_null(m, "stats", t.stats, [](auto& s, auto& x) { stats_fields(s, x, "gbps"); });
  io.null_unless(m, "samples_gbps", t.samples_gbps);
  io("link", t.link);
  io("peak", t.peak);
  io.null_unless(m && t.peak.known(), "efficiency", t.efficiency);
  io.object("verification", t.verification, [](auto& v, auto& x) {
    check_fields(v, x.status);
    v.when(x.status == Verification::Status::failed, "first_bad_offset", x.first_bad_offset);
  });
  io.null_unless(m, "start_s", t.start_s);
  io.null_unless(m, "end_s", t.end_s);
  // Host sides only; a host buffer on no NUMA node is null.
  if (host_side(t) || Io::reading) io.null_unless(t.host_numa >= 0, "host_numa_node", t.host_numa);
  io.text("invalid", !t.invalid_reason.empty());
  io.when(!t.invalid_reason.empty(), "invalid_reason", t.invalid_reason);
}

constexpr auto settings_fields = [](auto& io, auto& r) {
  io.choice("stream_mode", r.streams, kStreamModes);
  io("statistic", r.statistic);
  io("copies_per_sample", r.copies_per_sample);
  io("samples", r.samples);
  io("gated", r.gated);
  io("min_samples", r.measure.min_samples);
  io("max_samples", r.measure.max_samples);
  io("target_relative_error", r.measure.target_rel_error);
  io("budget_s", r.measure.budget_s);
  io("target_sample_s", r.measure.target_sample_s);
  io("verify", r.measure.verify);
  io("numa_affinity", r.measure.numa_affinity);
};

constexpr auto aggregate_stats_fields = [](auto& io, auto& s) {
  io("median_gbps", s.median);
  io("min_gbps", s.min);
  io("max_gbps", s.max);
  io.text("p50_gbps", s.median);
  io("p95_gbps", s.p95);
  io("p99_gbps", s.p99);
  io("cov", s.cov);
};

constexpr auto figures_fields = [](auto& io, auto& r) {
  io("span_s", r.span_s);
  io.text("span_definition", "gate release to the last transfer's end, in the median-span sample");
  io("total_bytes", r.total_bytes);
  io("aggregate_bandwidth_gbps", r.aggregate_bandwidth_gbps);
  io.text("aggregate_bandwidth_definition", "total_bytes / span_s");
  io.object("aggregate_stats", r.aggregate_stats, aggregate_stats_fields);
  io("sum_of_transfer_bandwidths_gbps", r.sum_of_transfer_bandwidths_gbps);
  io("overlapped_s", r.overlapped_s);
  io("overlap_fraction", r.overlap_fraction);
  io.text("overlap_definition", "share of span_s during which more than one transfer ran");
  io("max_concurrent_transfers", r.max_concurrent);
  io("timeline_sample", r.timeline_sample);
};

constexpr auto tool_fields = [](auto& io, auto& t) {
  io("name", t.name);
  io("version", t.version);
  io.when(!t.git.empty(), "git", t.git);
};

template <class Io, class R>
void scenario_fields(Io& io, R& r) {
  const bool m = measured(r);
  io("command_line", r.command_line);
  io("start_time_utc", r.start_time_utc);
  io("wall_s", r.wall_s);
  io("front_end", r.front_end);
  io.object("settings", r, settings_fields);
  io.need_list("transfers", r.transfers, [m](auto& t, auto& x) { transfer_fields(t, x, m); });
  io.object_or_null(m, "scenario", r, figures_fields);
  io.when(!r.completion.error.empty(), "error", r.completion.error);
}

}  // namespace

std::string scenario_status(const ScenarioResult& r) {
  if (r.completion.status != RunStatus::complete) return to_string(r.completion.status);
  return all_valid(r) && r.completion.error.empty() ? "passed" : "failed";
}

json scenario_json(const ScenarioResult& r) {
  json doc = Writer::of(r, [](auto& io, auto& x) { scenario_fields(io, x); });
  doc["schema"] = kScenarioSchemaName;
  doc["schema_version"] = kScenarioSchemaVersion;
  doc["tool"] = r.written_by ? Writer::of(*r.written_by, tool_fields) : tool_json();
  doc["status"] = scenario_status(r);
  doc["environment"] = system_json(r.system);
  if (r.completion.status != RunStatus::complete) {
    doc["stop"] = completion_json(r.completion);
    doc["stop"].erase("time_limit_seconds");  // a scenario's result has no time limit of its own
  }
  return doc;
}

ScenarioResult decode_scenario(const json& doc, const std::string& name) {
  return decode_document(name, kScenarioSchemaName, [&doc] {
    const Fields d(doc, "");
    ScenarioResult r;
    // The completion first: it says whether the measured fields are there.
    decode_completion(d, r.completion);
    r.completion.error = d.get<std::string>("error", "");
    Reader::into(d, r, [](auto& io, auto& x) { scenario_fields(io, x); });
    if (d.has("tool")) Reader::into(d.object("tool"), r.written_by.emplace(), tool_fields);
    if (d.has("environment")) r.system = decode_system(doc.at("environment"), "environment", false);
    return r;
  });
}

}  // namespace xb::records
