#include "cases/sweep_json.hpp"

#include "records/document.hpp"
#include "records/system_json.hpp"

namespace xb::records {
namespace {

using json = nlohmann::json;

constexpr auto gbps_stats = [](auto& io, auto& s) { stats_fields(io, s, "gbps"); };

// Present only when valid (null otherwise).
constexpr auto fit_fields = [](auto& io, auto& f) {
  if constexpr (std::decay_t<decltype(io)>::reading) f.valid = true;
  io.text("model", "seconds_per_copy = startup_s + bytes / (asymptotic_gbps * 1e9)");
  io.text("method", "least squares on relative residuals");
  io("points", f.points);
  io("startup_s", f.startup_s);
  io("asymptotic_gbps", f.asymptotic_gbps);
  io("n_half_bytes", f.n_half_bytes);
  io("rms_relative_residual", f.rms_relative_residual);
};

template <class Io, class R>
void row_fields(Io& io, R& r, const Peak& peak) {
  io.need("bytes", r.bytes);
  io("time_per_copy_s", r.seconds_per_copy);
  io.need("value_gbps", r.value_gbps);
  io.need_object("stats", r.stats, gbps_stats);
  io("samples", r.stats.count);
  io("samples_gbps", r.samples_gbps);
  percentiles_from_samples(io, r.stats, r.samples_gbps);
  io("copies_per_sample", r.copies_per_sample);
  io.null_unless(peak.known(), "efficiency", r.efficiency);
  io.object("verification", r.verification, check_fields);
  io("invalid", r.invalid);
}

constexpr auto series_fields = [](auto& io, auto& s) {
  io.need("label", s.label);
  io("link", s.link);
  io("peak", s.peak);
  io.need_list("rows", s.rows, [&s](auto& r, auto& row) { row_fields(r, row, s.peak); });
  io.object_or_null(s.fit.valid, "fit", s.fit, fit_fields);
};

json timeline_json(const SweepTimeline& t) {
  if (t.labels.empty()) return nullptr;
  json transfers = json::array();
  for (std::size_t i = 0; i < t.labels.size(); ++i)
    transfers.push_back({{"label", t.labels[i]}, {"start_s", t.start_s[i]}, {"end_s", t.end_s[i]}});
  return {{"bytes", t.bytes}, {"copies_per_sample", t.copies_per_sample},
          {"zero", "gate release of each sample"}, {"transfers", transfers}};
}

SweepTimeline decode_timeline(const Fields& j) {
  SweepTimeline t;
  t.bytes = j.get("bytes", std::uint64_t{0});
  t.copies_per_sample = j.get("copies_per_sample", 0);
  for (const Fields& x : j.items("transfers")) {
    t.labels.push_back(x.get<std::string>("label"));
    t.start_s.push_back(x.get("start_s", std::vector<double>{}));
    t.end_s.push_back(x.get("end_s", std::vector<double>{}));
  }
  return t;
}

// What sweep and SM sweep documents both hold.
template <class Io, class R>
void sweep_head_fields(Io& io, R& r) {
  io("command_line", r.command_line);
  io("start_time_utc", r.start_time_utc);
  io("wall_seconds", r.wall_seconds);
  io("messages", r.messages);
}

constexpr auto sweep_fields = [](auto& io, auto& r) {
  sweep_head_fields(io, r);
  io.object("source", r, [](auto& s, auto& x) {
    s("kind", x.source);
    s(x.source == "case" ? "case" : "spec", x.what);
    s.when(x.source != "case", "stream_mode", x.stream_mode);
  });
  io("sizes_bytes", r.sizes);
  io.object("settings", r, [](auto& s, auto& x) {
    measure_fields(s, x.measure);
    s("statistic", x.statistic);
    s("sm_repeat_in_kernel", x.measure.sm_repeat_in_kernel);
  });
  io.need_list("series", r.series, series_fields);
};

constexpr auto sm_point_fields = [](auto& io, auto& p, const Peak& peak) {
  io.need("sms", p.sms);
  io.need("value_gbps", p.value_gbps);
  io.need_object("stats", p.stats, gbps_stats);
  io("samples", p.stats.count);
  io("samples_gbps", p.samples_gbps);
  percentiles_from_samples(io, p.stats, p.samples_gbps);
  io("copies_per_sample", p.copies_per_sample);
  io.null_unless(peak.known(), "efficiency", p.efficiency);
  io("of_all_sms", p.of_all);
  io.object("verification", p.verification, check_fields);
};

constexpr auto sm_series_fields = [](auto& io, auto& s) {
  io.need("label", s.label);
  io("link", s.link);
  io("peak", s.peak);
  io("gpu_sms", s.gpu_sms);
  io("all_sm_gbps", s.all_sm_gbps);
  io.null_unless(s.sms_for_90 > 0, "sms_for_90pct", s.sms_for_90);
  io.null_unless(s.sms_for_95 > 0, "sms_for_95pct", s.sms_for_95);
  io("per_sm_gbps", s.per_sm_gbps);
  io.null_unless(s.named_gbps > 0, "named_case_gbps", s.named_gbps);
  io("disagrees_with_named_case", s.disagrees);
  io.need_list("points", s.points, [&s](auto& p, auto& x) { sm_point_fields(p, x, s.peak); });
};

constexpr auto sm_sweep_fields = [](auto& io, auto& r) {
  sweep_head_fields(io, r);
  using S = SweepStatus;
  io.choice("status", r.status, {S::passed, S::failed, S::waived});
  io("case", r.case_name);
  io("bytes_per_copy", r.bytes);
  io.object("settings", r, [](auto& s, auto& x) {
    measure_fields(s, x.measure);
    s("statistic", x.statistic);
    s.text("sm_pinning", "spread");
  });
  io.need_list("series", r.series, sm_series_fields);
};

}  // namespace

std::string sweep_status_text(const SweepResult& r) {
  return r.completion.status != RunStatus::complete ? to_string(r.completion.status) : to_string(r.status);
}

json sweep_json(const SweepResult& r) {
  json j = Writer::of(r, sweep_fields);
  j["schema"] = kSweepSchemaName;
  j["schema_version"] = kSweepSchemaVersion;
  j["tool"] = tool_json();
  j["status"] = sweep_status_text(r);
  // The sizes not run are numbers, under their own key.
  json& stop = j["stop"] = completion_json(r.completion);
  stop["resumed_from"] = r.resumed_from.empty() ? json(nullptr) : json(r.resumed_from);
  if (stop.contains("not_run")) {
    stop["not_run_bytes"] = json::array();
    for (const std::string& bytes : r.completion.not_run) stop["not_run_bytes"].push_back(std::stoull(bytes));
    stop.erase("not_run");
  }
  j["environment"] = system_json(r.system);
  j["timeline"] = timeline_json(r.timeline);
  return j;
}

SweepResult decode_sweep(const json& doc, const std::string& name) {
  return decode_document(name, kSweepSchemaName, [&doc] {
    const Fields d(doc, "");
    SweepResult r;
    Reader::into(d, r, sweep_fields);
    const std::string status = d.get<std::string>("status", "passed");
    r.status = status == "failed" ? SweepStatus::failed : status == "waived" ? SweepStatus::waived : SweepStatus::passed;
    decode_completion(d, r.completion);
    if (d.has("stop"))
      for (std::uint64_t bytes : d.object("stop").get("not_run_bytes", std::vector<std::uint64_t>{}))
        r.completion.not_run.push_back(std::to_string(bytes));
    if (d.has("stop")) r.resumed_from = d.object("stop").get<std::string>("resumed_from", "");
    if (d.has("environment")) r.system = decode_system(doc.at("environment"), "environment", false);
    if (d.has("timeline")) r.timeline = decode_timeline(d.object("timeline"));
    return r;
  });
}

json sm_sweep_json(const SmSweepResult& r) {
  json j = Writer::of(r, sm_sweep_fields);
  j["schema"] = kSmSweepSchemaName;
  j["schema_version"] = kSmSweepSchemaVersion;
  j["tool"] = {{"name", "xferbench"}, {"version", XFERBENCH_VERSION}};
  j["sm_counts"] = json::array();
  for (int n : r.sms) j["sm_counts"].push_back(n > 0 ? json(n) : json("all"));
  j["environment"] = system_json(r.system);
  return j;
}

SmSweepResult decode_sm_sweep(const json& doc, const std::string& name) {
  return decode_document(name, kSmSweepSchemaName, [&doc] {
    const Fields d(doc, "");
    SmSweepResult r;
    Reader::into(d, r, sm_sweep_fields);
    for (const json& n : doc.value("sm_counts", json::array())) r.sms.push_back(n == "all" ? 0 : n.get<int>());
    if (d.has("environment")) r.system = decode_system(doc.at("environment"), "environment", false);
    return r;
  });
}

}  // namespace xb::records
