#include "firsttouch/first_touch_json.hpp"

#include <cmath>

#include "records/document.hpp"

namespace xb::records {
namespace {

using json = nlohmann::json;
using firsttouch::kNotMeasured;
using firsttouch::Phases;

// JSON has no NaN: null stands for "not measured".
json num(double v) { return std::isnan(v) ? json(nullptr) : json(v); }
template <class Io, class D>
void time(Io& io, const std::string& key, D& v) {
  io.null_unless(!std::isnan(v), key, v);
}

constexpr auto phases_fields = [](auto& io, auto& p) {
  time(io, "alloc_sender_time_s", p.alloc_sender_s);
  time(io, "alloc_receiver_time_s", p.alloc_receiver_s);
  time(io, "ipc_export_time_s", p.export_s);
  time(io, "ipc_open_time_s", p.open_s);
  time(io, "register_time_s", p.register_s);
  time(io, "first_copy_time_s", p.first_copy_s);
  json steady = json::array();
  for (double s : p.steady_copy_s) steady.push_back(num(s));
  io("steady_copy_time_s", steady);
  if constexpr (std::decay_t<decltype(io)>::reading)
    for (const json& s : steady) p.steady_copy_s.push_back(s.is_null() ? kNotMeasured : s.get<double>());
};

constexpr auto variant_fields = [](auto& io, auto& v) {
  io("label", v.label);
  io("memory", v.memory);
  io("buffer_bytes", v.buffer_bytes);
  io("overalloc_bytes", v.overalloc_bytes);
  io.need_list("phases", v.phases, phases_fields);
  io("times_s", v.times_s);
  io("failed_iterations", v.failed);
  if constexpr (!std::decay_t<decltype(io)>::reading) {  // derived from the above
    io.text("alloc_bytes", v.alloc_bytes());
    const firsttouch::FirstSteady s = firsttouch::summarize(v.times_s);
    io.text("first_time_s", num(s.first_s));
    io.text("steady_time_s", num(s.steady_s));
    io.text("first_over_steady_ratio", num(s.ratio));
    const Phases m = firsttouch::median_phases(v.phases);
    json median = Writer::of(m, phases_fields);
    median["steady_copy_time_s"] = num(m.steady_copy_s.empty() ? kNotMeasured : m.steady_copy_s[0]);
    io.text("phases_median", median);
  }
};

constexpr auto first_touch_fields = [](auto& io, auto& r) {
  io("mode", r.mode);
  io("transport", r.transport);
  io("world_size", r.world_size);
  io.object("sender", r, [](auto& e, auto& x) {
    e("rank", x.sender_rank);
    e("host", x.sender_host);
    e.null_unless(x.sender_gpu >= 0, "gpu", x.sender_gpu);
  });
  io.object("receiver", r, [](auto& e, auto& x) {
    e("rank", x.receiver_rank);
    e("host", x.receiver_host);
    e.null_unless(x.receiver_gpu >= 0, "gpu", x.receiver_gpu);
  });
  io("iterations", r.iterations);
  io("sub_iterations", r.sub_iterations);
  io("p2p_bytes", r.p2p_bytes);
  time(io, "warmup_time_s", r.warmup_s);
  time(io, "connect_time_s", r.connect_s);
  io.text("time_definition",
          r.mode == "host" ? "host to GPU copy" : "send start to receiver acknowledgement, on the sender");
  io.null_unless(!r.completion.error.empty(), "error", r.completion.error);
  io.need_list("variants", r.variants, variant_fields);
};

std::string status_of(const firsttouch::Result& r) {
  if (r.completion.status != RunStatus::complete) return to_string(r.completion.status);
  return !r.completion.error.empty() || firsttouch::any_failed(r) ? "failed" : "passed";
}

}  // namespace

json first_touch_json(const firsttouch::Result& r, const std::vector<std::string>& argv) {
  json j = Writer::of(r, first_touch_fields);
  j["schema"] = kFirstTouchSchema;
  j["schema_version"] = kFirstTouchSchemaVersion;
  j["command_line"] = argv;
  j["status"] = status_of(r);
  j["stop"] = completion_json(r.completion);
  return j;
}

firsttouch::Result decode_first_touch(const json& doc, const std::string& name) {
  return decode_document(name, kFirstTouchSchema, [&doc] {
    const Fields d(doc, "");
    firsttouch::Result r;
    Reader::into(d, r, first_touch_fields);
    decode_completion(d, r.completion);
    return r;
  });
}

std::string phases_to_wire(const std::vector<std::vector<Phases>>& per_variant) {
  json all = json::array();
  for (const auto& variant : per_variant) {
    json v = json::array();
    for (const auto& p : variant) v.push_back(Writer::of(p, phases_fields));
    all.push_back(std::move(v));
  }
  return all.dump();
}

std::vector<std::vector<Phases>> phases_from_wire(const std::string& text) {
  std::vector<std::vector<Phases>> out;
  for (const json& v : json::parse(text)) {
    out.emplace_back();
    for (const json& p : v) Reader::into(Fields(p, "phases"), out.back().emplace_back(), phases_fields);
  }
  return out;
}

}  // namespace xb::records
