#include "records/sweep_json.hpp"

#include "records/document.hpp"
#include "records/system_json.hpp"

namespace xb::records {
namespace {

using json = nlohmann::json;

json fit_json(const LinearFit& f) {
  if (!f.valid) return nullptr;
  return {{"model", "seconds_per_copy = startup_s + bytes / (asymptotic_gbps * 1e9)"},
          {"method", "least squares on relative residuals"},
          {"points", f.points},
          {"startup_s", f.startup_s},
          {"asymptotic_gbps", f.asymptotic_gbps},
          {"n_half_bytes", f.n_half_bytes},
          {"rms_relative_residual", f.rms_relative_residual}};
}

LinearFit decode_fit(const Fields& j) {
  return {true, j.get("points", 0), j.get("startup_s", 0.0), j.get("asymptotic_gbps", 0.0), j.get("n_half_bytes", 0.0),
          j.get("rms_relative_residual", 0.0)};
}

json row_json(const SweepRow& r, const Peak& peak) {
  return {{"bytes", r.bytes},
          {"time_per_copy_s", r.seconds_per_copy},
          {"value_gbps", r.value_gbps},
          {"stats", stats_json(r.stats, "gbps")},
          {"samples", r.stats.count},
          {"samples_gbps", r.samples_gbps},
          {"copies_per_sample", r.copies_per_sample},
          {"efficiency", peak.known() ? json(r.efficiency) : json(nullptr)},
          {"verification", {{"status", to_string(r.verification)}}},
          {"invalid", r.invalid}};
}

SweepRow decode_row(const Fields& j) {
  SweepRow r;
  r.bytes = j.get<std::uint64_t>("bytes");
  r.seconds_per_copy = j.get("time_per_copy_s", 0.0);
  r.value_gbps = j.get<double>("value_gbps");
  r.stats = decode_stats(j, "gbps", j.get("samples", 0));
  r.samples_gbps = j.get("samples_gbps", r.samples_gbps);
  r.copies_per_sample = j.get("copies_per_sample", 0);
  r.efficiency = j.get("efficiency", 0.0);
  r.verification = decode_check(j);
  r.invalid = j.get("invalid", false);
  return r;
}

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

SweepSeries decode_series(const Fields& j) {
  SweepSeries s;
  s.label = j.get<std::string>("label");
  s.link = j.get<std::string>("link", "");
  s.peak = decode_peak(j, "peak");
  for (const Fields& row : j.items("rows")) s.rows.push_back(decode_row(row));
  if (j.has("fit")) s.fit = decode_fit(j.object("fit"));
  return s;
}

// What sweep and SM sweep documents both hold.
template <class R>
void decode_head(const Fields& d, const json& doc, R& r) {
  r.command_line = d.get("command_line", r.command_line);
  r.start_time_utc = d.get<std::string>("start_time_utc", "");
  r.wall_seconds = d.get("wall_seconds", 0.0);
  r.messages = d.get("messages", r.messages);
  if (d.has("settings")) decode_measure(d.object("settings"), r.measure, r.statistic);
  if (d.has("environment")) r.system = decode_system(doc.at("environment"), "environment", false);
}

json sm_point_json(const SmPoint& p, const Peak& peak) {
  return {{"sms", p.sms},
          {"value_gbps", p.value_gbps},
          {"stats", stats_json(p.stats, "gbps")},
          {"samples", p.stats.count},
          {"samples_gbps", p.samples_gbps},
          {"copies_per_sample", p.copies_per_sample},
          {"efficiency", peak.known() ? json(p.efficiency) : json(nullptr)},
          {"of_all_sms", p.of_all},
          {"verification", {{"status", to_string(p.verification)}}}};
}

SmPoint decode_sm_point(const Fields& j) {
  SmPoint p;
  p.sms = j.get<int>("sms");
  p.value_gbps = j.get<double>("value_gbps");
  p.stats = decode_stats(j, "gbps", j.get("samples", 0));
  p.samples_gbps = j.get("samples_gbps", p.samples_gbps);
  p.copies_per_sample = j.get("copies_per_sample", 0);
  p.efficiency = j.get("efficiency", 0.0);
  p.of_all = j.get("of_all_sms", 0.0);
  p.verification = decode_check(j);
  return p;
}

json sm_series_json(const SmSeries& s) {
  json points = json::array();
  for (const SmPoint& p : s.points) points.push_back(sm_point_json(p, s.peak));
  return {{"label", s.label}, {"link", s.link}, {"peak", peak_json(s.peak)}, {"gpu_sms", s.gpu_sms},
          {"all_sm_gbps", s.all_sm_gbps},
          {"sms_for_90pct", s.sms_for_90 > 0 ? json(s.sms_for_90) : json(nullptr)},
          {"sms_for_95pct", s.sms_for_95 > 0 ? json(s.sms_for_95) : json(nullptr)},
          {"points", points}};
}

SmSeries decode_sm_series(const Fields& j) {
  SmSeries s;
  s.label = j.get<std::string>("label");
  s.link = j.get<std::string>("link", "");
  s.peak = decode_peak(j, "peak");
  s.gpu_sms = j.get("gpu_sms", 0);
  s.all_sm_gbps = j.get("all_sm_gbps", 0.0);
  s.sms_for_90 = j.get("sms_for_90pct", 0);
  s.sms_for_95 = j.get("sms_for_95pct", 0);
  for (const Fields& p : j.items("points")) s.points.push_back(decode_sm_point(p));
  return s;
}

}  // namespace

std::string sweep_status_text(const SweepResult& r) {
  return r.run_status != RunStatus::complete ? to_string(r.run_status) : to_string(r.status);
}

json sweep_json(const SweepResult& r) {
  json series = json::array();
  for (const auto& s : r.series) {
    json rows = json::array();
    for (const auto& row : s.rows) rows.push_back(row_json(row, s.peak));
    series.push_back({{"label", s.label}, {"link", s.link}, {"peak", peak_json(s.peak)}, {"rows", rows},
                      {"fit", fit_json(s.fit)}});
  }
  json source = {{"kind", r.source}};
  source[r.source == "case" ? "case" : "spec"] = r.what;
  if (r.source != "case") source["stream_mode"] = r.stream_mode;
  json stop = {{"time_limit_seconds", r.time_limit_s > 0 ? json(r.time_limit_s) : json(nullptr)},
               {"resumed_from", r.resumed_from.empty() ? json(nullptr) : json(r.resumed_from)}};
  if (r.run_status != RunStatus::complete) {
    stop["reason"] = to_string(r.stop);
    stop["message"] = r.stop_reason;
    stop["not_run_bytes"] = r.not_run;
  }
  json settings = measure_json(r.measure, r.statistic);
  settings["sm_repeat_in_kernel"] = r.measure.sm_repeat_in_kernel;
  return {{"schema", kSweepSchemaName},
          {"schema_version", kSweepSchemaVersion},
          {"tool", tool_json()},
          {"command_line", r.command_line},
          {"start_time_utc", r.start_time_utc},
          {"wall_seconds", r.wall_seconds},
          {"status", sweep_status_text(r)},
          {"stop", stop},
          {"messages", r.messages},
          {"source", source},
          {"sizes_bytes", r.sizes},
          {"settings", settings},
          {"environment", system_json(r.system)},
          {"series", series},
          {"timeline", timeline_json(r.timeline)}};
}

SweepResult decode_sweep(const json& doc, const std::string& name) {
  return decode_document(name, kSweepSchemaName, [&doc] {
    const Fields d(doc, "");
    SweepResult r;
    decode_head(d, doc, r);
    const std::string status = d.get<std::string>("status", "passed");
    r.status = status == "failed" ? SweepStatus::failed : status == "waived" ? SweepStatus::waived : SweepStatus::passed;
    if (decode_stop(d, r.run_status, r.stop, r.stop_reason, r.time_limit_s))
      r.not_run = d.object("stop").get("not_run_bytes", r.not_run);
    if (d.has("stop")) r.resumed_from = d.object("stop").get<std::string>("resumed_from", "");
    if (d.has("source")) {
      const Fields source = d.object("source");
      r.source = source.get<std::string>("kind", "");
      r.what = source.get<std::string>(r.source == "case" ? "case" : "spec", "");
      r.stream_mode = source.get<std::string>("stream_mode", "");
    }
    r.sizes = d.get("sizes_bytes", r.sizes);
    for (const Fields& s : d.items("series")) r.series.push_back(decode_series(s));
    if (d.has("timeline")) r.timeline = decode_timeline(d.object("timeline"));
    return r;
  });
}

json sm_sweep_json(const SmSweepResult& r) {
  json series = json::array();
  for (const SmSeries& s : r.series) series.push_back(sm_series_json(s));
  json sms = json::array();
  for (int n : r.sms) sms.push_back(n > 0 ? json(n) : json("all"));
  json settings = measure_json(r.measure, r.statistic);
  settings["one_block_per_sm"] = true;
  return {{"schema", kSmSweepSchemaName},
          {"schema_version", kSmSweepSchemaVersion},
          {"tool", {{"name", "xferbench"}, {"version", XFERBENCH_VERSION}}},
          {"command_line", r.command_line},
          {"start_time_utc", r.start_time_utc},
          {"wall_seconds", r.wall_seconds},
          {"status", to_string(r.status)},
          {"messages", r.messages},
          {"case", r.case_name},
          {"bytes_per_copy", r.bytes},
          {"sm_counts", sms},
          {"settings", settings},
          {"environment", system_json(r.system)},
          {"series", series}};
}

SmSweepResult decode_sm_sweep(const json& doc, const std::string& name) {
  return decode_document(name, kSmSweepSchemaName, [&doc] {
    const Fields d(doc, "");
    SmSweepResult r;
    decode_head(d, doc, r);
    r.status = d.get("status", {SweepStatus::passed, SweepStatus::failed, SweepStatus::waived}, SweepStatus::passed);
    r.case_name = d.get<std::string>("case", "");
    r.bytes = d.get("bytes_per_copy", std::uint64_t{0});
    for (const json& n : doc.value("sm_counts", json::array())) r.sms.push_back(n == "all" ? 0 : n.get<int>());
    for (const Fields& s : d.items("series")) r.series.push_back(decode_sm_series(s));
    return r;
  });
}

}  // namespace xb::records
