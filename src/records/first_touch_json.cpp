#include "records/first_touch_json.hpp"

#include <cmath>

#include "records/document.hpp"

namespace xb::records {
namespace {

using json = nlohmann::json;
using firsttouch::kNotMeasured;
using firsttouch::Phases;
using firsttouch::VariantResult;

// JSON has no NaN: null stands for "not measured".
json num(double v) { return std::isnan(v) ? json(nullptr) : json(v); }

json phases_json(const Phases& p) {
  json steady = json::array();
  for (double s : p.steady_copy_s) steady.push_back(num(s));
  return {{"alloc_sender_time_s", num(p.alloc_sender_s)}, {"alloc_receiver_time_s", num(p.alloc_receiver_s)},
          {"ipc_export_time_s", num(p.export_s)},         {"ipc_open_time_s", num(p.open_s)},
          {"register_time_s", num(p.register_s)},         {"first_copy_time_s", num(p.first_copy_s)},
          {"steady_copy_time_s", steady}};
}

Phases decode_phases(const Fields& j) {
  Phases p;
  p.alloc_sender_s = j.get("alloc_sender_time_s", kNotMeasured);
  p.alloc_receiver_s = j.get("alloc_receiver_time_s", kNotMeasured);
  p.export_s = j.get("ipc_export_time_s", kNotMeasured);
  p.open_s = j.get("ipc_open_time_s", kNotMeasured);
  p.register_s = j.get("register_time_s", kNotMeasured);
  p.first_copy_s = j.get("first_copy_time_s", kNotMeasured);
  for (const json& s : j.get("steady_copy_time_s", json::array()))
    p.steady_copy_s.push_back(s.is_null() ? kNotMeasured : s.get<double>());
  return p;
}

json variant_json(const VariantResult& v) {
  const firsttouch::FirstSteady s = firsttouch::summarize(v.times_s);
  json per_iteration = json::array();
  for (const auto& p : v.phases) per_iteration.push_back(phases_json(p));
  const Phases m = firsttouch::median_phases(v.phases);
  json median = phases_json(m);
  median["steady_copy_time_s"] = num(m.steady_copy_s.empty() ? kNotMeasured : m.steady_copy_s[0]);
  return {{"label", v.label},
          {"memory", v.memory},
          {"buffer_bytes", v.buffer_bytes},
          {"overalloc_bytes", v.overalloc_bytes},
          {"alloc_bytes", v.alloc_bytes()},
          {"first_time_s", num(s.first_s)},
          {"steady_time_s", num(s.steady_s)},
          {"first_over_steady_ratio", num(s.ratio)},
          {"phases_median", median},
          {"phases", per_iteration},
          {"times_s", v.times_s},
          {"failed_iterations", v.failed}};
}

VariantResult decode_variant(const Fields& j) {
  VariantResult v;
  v.label = j.get<std::string>("label", "");
  v.memory = j.get<std::string>("memory", "");
  v.buffer_bytes = j.get("buffer_bytes", std::uint64_t{0});
  v.overalloc_bytes = j.get("overalloc_bytes", std::uint64_t{0});
  v.times_s = j.get("times_s", v.times_s);
  v.failed = j.get("failed_iterations", v.failed);
  for (const Fields& p : j.items("phases")) v.phases.push_back(decode_phases(p));
  return v;
}

std::string status_of(const firsttouch::Result& r) {
  if (r.status != RunStatus::complete) return to_string(r.status);
  bool failed = !r.error.empty();
  for (const auto& v : r.variants) failed = failed || !v.failed.empty();
  return failed ? "failed" : "passed";
}

json gpu_or_null(int gpu) { return gpu < 0 ? json(nullptr) : json(gpu); }

}  // namespace

json first_touch_json(const firsttouch::Result& r, const std::vector<std::string>& argv) {
  json rows = json::array();
  for (const auto& v : r.variants) rows.push_back(variant_json(v));
  return {{"schema", kFirstTouchSchema},
          {"schema_version", kFirstTouchSchemaVersion},
          {"command_line", argv},
          {"mode", r.mode},
          {"transport", r.transport},
          {"world_size", r.world_size},
          {"sender", {{"rank", r.sender_rank}, {"host", r.sender_host}, {"gpu", gpu_or_null(r.sender_gpu)}}},
          {"receiver", {{"rank", r.receiver_rank}, {"host", r.receiver_host}, {"gpu", gpu_or_null(r.receiver_gpu)}}},
          {"iterations", r.iterations},
          {"sub_iterations", r.sub_iterations},
          {"p2p_bytes", r.p2p_bytes},
          {"warmup_time_s", num(r.warmup_s)},
          {"connect_time_s", num(r.connect_s)},
          {"time_definition",
           r.mode == "host" ? "host to GPU copy" : "send start to receiver acknowledgement, on the sender"},
          {"status", status_of(r)},
          {"stop", stop_section_json(r.status, r.stop, r.stop_reason, r.not_run, r.time_limit_s)},
          {"error", r.error.empty() ? json(nullptr) : json(r.error)},
          {"variants", rows}};
}

firsttouch::Result decode_first_touch(const json& doc, const std::string& name) {
  return decode_document(name, kFirstTouchSchema, [&doc] {
    const Fields d(doc, "");
    firsttouch::Result r;
    r.mode = d.get<std::string>("mode", "");
    r.transport = d.get<std::string>("transport", "");
    r.world_size = d.get("world_size", 1);
    const Fields sender = d.object("sender"), receiver = d.object("receiver");
    r.sender_rank = sender.get("rank", 0);
    r.sender_host = sender.get<std::string>("host", "");
    r.sender_gpu = sender.get("gpu", -1);
    r.receiver_rank = receiver.get("rank", 0);
    r.receiver_host = receiver.get<std::string>("host", "");
    r.receiver_gpu = receiver.get("gpu", -1);
    r.iterations = d.get("iterations", 0);
    r.sub_iterations = d.get("sub_iterations", 0);
    r.p2p_bytes = d.get("p2p_bytes", std::uint64_t{0});
    r.warmup_s = d.get("warmup_time_s", kNotMeasured);
    r.connect_s = d.get("connect_time_s", kNotMeasured);
    if (decode_stop(d, r.status, r.stop, r.stop_reason, r.time_limit_s))
      r.not_run = d.object("stop").get("not_run", r.not_run);
    r.error = d.get<std::string>("error", "");
    for (const Fields& v : d.items("variants")) r.variants.push_back(decode_variant(v));
    return r;
  });
}

std::string phases_to_wire(const std::vector<std::vector<Phases>>& per_variant) {
  json all = json::array();
  for (const auto& variant : per_variant) {
    json v = json::array();
    for (const auto& p : variant) v.push_back(phases_json(p));
    all.push_back(std::move(v));
  }
  return all.dump();
}

std::vector<std::vector<Phases>> phases_from_wire(const std::string& text) {
  std::vector<std::vector<Phases>> out;
  for (const json& v : json::parse(text)) {
    out.emplace_back();
    for (const json& p : v) out.back().push_back(decode_phases(Fields(p, "phases")));
  }
  return out;
}

}  // namespace xb::records
