#include "pingpong/pingpong_json.hpp"

#include "records/document.hpp"

namespace xb::records {
namespace {

using json = nlohmann::json;
using pingpong::PairResult;

constexpr auto size_fields = [](auto& io, auto& s) {
  io.need("bytes", s.bytes);
  io("repetitions", s.one_way_s.count);
  io.object("one_way_time_s", s, [](auto& t, auto& x) {
    t("mean", x.one_way_s.mean);
    t("median", x.one_way_s.median);
    t.text("p50", x.one_way_s.median);
    t("p95", x.one_way_s.p95);
    t("p99", x.one_way_s.p99);
    t("min", x.one_way_s.min);
    t("max", x.one_way_s.max);
    t("stddev", x.one_way_s.stddev);
  });
  io("bandwidth_gbps", s.bandwidth_gbps);
  io("bandwidth_min_gbps", s.bandwidth_min_gbps);
  io("bandwidth_max_gbps", s.bandwidth_max_gbps);
  io("verified", s.verified);
  io.null_unless(!s.verify_error.empty(), "verify_error", s.verify_error);
  io.null_unless(!s.error.empty(), "error", s.error);
};

template <class Io, class P, class F>
void pair_fields(Io& io, P& p, F size) {
  io.need("rank_a", p.rank_a);
  io.need("rank_b", p.rank_b);
  io("host_a", p.host_a);
  io("host_b", p.host_b);
  io.null_unless(p.gpu_a >= 0, "gpu_a", p.gpu_a);
  io.null_unless(p.gpu_b >= 0, "gpu_b", p.gpu_b);
  io.text("buffer_a", p.gpu_a < 0 ? "host" : "gpu");
  io.text("buffer_b", p.gpu_b < 0 ? "host" : "gpu");
  io.null_unless(!p.transport.empty(), "transport", p.transport);
  io.null_unless(!p.path.empty(), "path", p.path);
  io.null_unless(!p.error.empty(), "error", p.error);
  io("not_run_bytes", p.not_run);
  io.need_list("sizes", p.sizes, size);
}

constexpr auto file_pair_fields = [](auto& io, auto& p) { pair_fields(io, p, size_fields); };

// An enum as its number, on the wire.
template <class Io, class E>
void number(Io& io, const std::string& key, E& e) {
  int n = static_cast<int>(e);
  io(key, n);
  if constexpr (Io::reading) e = static_cast<E>(n);
}

// The ranks also exchange the error kinds, the pair's stop and the CoV.
constexpr auto wire_pair_fields = [](auto& io, auto& p) {
  pair_fields(io, p, [](auto& s, auto& x) {
    size_fields(s, x);
    number(s, "error_kind", x.error_kind);
    s("cov", x.one_way_s.cov);
  });
  number(io, "error_kind", p.error_kind);
  number(io, "stop", p.stop);
};

constexpr auto pingpong_fields = [](auto& io, auto& r) {
  using pingpong::Buffers;
  using pingpong::Mode;
  io.choice("mode", r.mode, {Mode::pingpong, Mode::bw, Mode::bibw});
  io.choice("buffers", r.buffers, {Buffers::separate, Buffers::echo});
  io("requested_transport", r.requested_transport);
  io("world_size", r.world_size);
  io("all_pairs", r.all_pairs);
  io("loop_count", r.loop_count);
  io("warmup", r.warmup);
  io("window", r.window);
  io.text("gbps_definition", "1e9 bytes per second");
  io.need_list("pairs", r.pairs, file_pair_fields);
};

}  // namespace

json pingpong_json(const pingpong::Result& r, const std::vector<std::string>& argv) {
  json j = Writer::of(r, pingpong_fields);
  const auto failure = pingpong::first_failure(r);
  j["schema"] = kPingpongSchema;
  j["schema_version"] = kPingpongSchemaVersion;
  j["command_line"] = argv;
  j["status"] = r.completion.status != RunStatus::complete ? to_string(r.completion.status) : failure ? "failed" : "ok";
  j["stop"] = completion_json(r.completion);
  j["failure"] = failure ? json(failure->what()) : json(nullptr);
  return j;
}

pingpong::Result decode_pingpong(const json& doc, const std::string& name) {
  return decode_document(name, kPingpongSchema, [&doc] {
    const Fields d(doc, "");
    pingpong::Result r;
    Reader::into(d, r, pingpong_fields);
    decode_completion(d, r.completion);
    return r;
  });
}

std::string pairs_to_wire(const std::vector<PairResult>& pairs) {
  json out = json::array();
  for (const PairResult& p : pairs) out.push_back(Writer::of(p, wire_pair_fields));
  return out.dump();
}

std::vector<PairResult> pairs_from_wire(const std::string& text) {
  std::vector<PairResult> out;
  for (const json& p : json::parse(text)) Reader::into(Fields(p, "pairs"), out.emplace_back(), wire_pair_fields);
  return out;
}

}  // namespace xb::records
