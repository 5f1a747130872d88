#include "records/pingpong_json.hpp"

#include "records/document.hpp"

namespace xb::records {
namespace {

using json = nlohmann::json;
using pingpong::PairResult;
using pingpong::SizeResult;

json text_or_null(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }
json gpu_or_null(int gpu) { return gpu < 0 ? json(nullptr) : json(gpu); }

json size_json(const SizeResult& s) {
  const auto& t = s.one_way_s;
  return {{"bytes", s.bytes},
          {"repetitions", t.count},
          {"one_way_time_s", {{"mean", t.mean}, {"median", t.median}, {"p99", s.one_way_p99_s}, {"min", t.min},
                              {"max", t.max}, {"stddev", t.stddev}}},
          {"bandwidth_gbps", s.bandwidth_gbps},
          {"bandwidth_min_gbps", s.bandwidth_min_gbps},
          {"bandwidth_max_gbps", s.bandwidth_max_gbps},
          {"verified", s.verified},
          {"verify_error", text_or_null(s.verify_error)},
          {"error", text_or_null(s.error)}};
}

SizeResult decode_size(const Fields& j) {
  SizeResult s;
  s.bytes = j.get<std::uint64_t>("bytes");
  const Fields t = j.object("one_way_time_s");
  s.one_way_s.count = j.get("repetitions", 0);
  s.one_way_s.mean = t.get("mean", 0.0);
  s.one_way_s.median = t.get("median", 0.0);
  s.one_way_p99_s = t.get("p99", 0.0);
  s.one_way_s.min = t.get("min", 0.0);
  s.one_way_s.max = t.get("max", 0.0);
  s.one_way_s.stddev = t.get("stddev", 0.0);
  s.one_way_s.cov = j.get("cov", 0.0);  // wire only
  s.bandwidth_gbps = j.get("bandwidth_gbps", 0.0);
  s.bandwidth_min_gbps = j.get("bandwidth_min_gbps", 0.0);
  s.bandwidth_max_gbps = j.get("bandwidth_max_gbps", 0.0);
  s.verified = j.get("verified", false);
  s.verify_error = j.get<std::string>("verify_error", "");
  s.error = j.get<std::string>("error", "");
  s.error_kind = static_cast<ErrorKind>(j.get("error_kind", static_cast<int>(ErrorKind::internal)));  // wire only
  return s;
}

json pair_json(const PairResult& p) {
  json sizes = json::array();
  for (const auto& s : p.sizes) sizes.push_back(size_json(s));
  return {{"rank_a", p.rank_a}, {"rank_b", p.rank_b}, {"host_a", p.host_a}, {"host_b", p.host_b},
          {"gpu_a", gpu_or_null(p.gpu_a)}, {"gpu_b", gpu_or_null(p.gpu_b)},
          {"buffer_a", p.gpu_a < 0 ? "host" : "gpu"}, {"buffer_b", p.gpu_b < 0 ? "host" : "gpu"},
          {"transport", text_or_null(p.transport)},
          {"path", text_or_null(p.path)},
          {"error", text_or_null(p.error)},
          {"not_run_bytes", p.not_run},
          {"sizes", sizes}};
}

PairResult decode_pair(const Fields& j) {
  PairResult p;
  p.rank_a = j.get<int>("rank_a");
  p.rank_b = j.get<int>("rank_b");
  p.host_a = j.get<std::string>("host_a", "");
  p.host_b = j.get<std::string>("host_b", "");
  p.gpu_a = j.get("gpu_a", -1);
  p.gpu_b = j.get("gpu_b", -1);
  p.transport = j.get<std::string>("transport", "");
  p.path = j.get<std::string>("path", "");
  p.error = j.get<std::string>("error", "");
  p.not_run = j.get("not_run_bytes", p.not_run);
  for (const Fields& s : j.items("sizes")) p.sizes.push_back(decode_size(s));
  p.error_kind = static_cast<ErrorKind>(j.get("error_kind", static_cast<int>(ErrorKind::internal)));  // wire only
  p.stop = static_cast<StopReason>(j.get("stop", 0));                                                 // wire only
  return p;
}

}  // namespace

json pingpong_json(const pingpong::Result& r, const std::vector<std::string>& argv) {
  json pairs = json::array();
  for (const auto& p : r.pairs) pairs.push_back(pair_json(p));
  const auto failure = pingpong::first_failure(r);
  return {{"schema", kPingpongSchema},
          {"schema_version", kPingpongSchemaVersion},
          {"command_line", argv},
          {"mode", to_string(r.mode)},
          {"buffers", to_string(r.buffers)},
          {"requested_transport", r.requested_transport},
          {"world_size", r.world_size},
          {"all_pairs", r.all_pairs},
          {"loop_count", r.loop_count},
          {"warmup", r.warmup},
          {"window", r.window},
          {"gbps_definition", "1e9 bytes per second"},
          {"status", r.status != RunStatus::complete ? to_string(r.status) : failure ? "failed" : "ok"},
          {"stop", stop_section_json(r.status, r.stop, r.stop_reason, r.not_run, r.time_limit_s)},
          {"failure", failure ? json(failure->what()) : json(nullptr)},
          {"pairs", pairs}};
}

pingpong::Result decode_pingpong(const json& doc, const std::string& name) {
  return decode_document(name, kPingpongSchema, [&doc] {
    const Fields d(doc, "");
    pingpong::Result r;
    using pingpong::Mode;
    r.mode = d.get("mode", {Mode::pingpong, Mode::bw, Mode::bibw}, Mode::pingpong);
    using pingpong::Buffers;
    r.buffers = d.get("buffers", {Buffers::separate, Buffers::echo}, Buffers::separate);
    r.requested_transport = d.get<std::string>("requested_transport", "");
    r.world_size = d.get("world_size", 0);
    r.all_pairs = d.get("all_pairs", false);
    r.loop_count = d.get("loop_count", 0);
    r.warmup = d.get("warmup", 0);
    r.window = d.get("window", 0);
    if (decode_stop(d, r.status, r.stop, r.stop_reason, r.time_limit_s))
      r.not_run = d.object("stop").get("not_run", r.not_run);
    for (const Fields& p : d.items("pairs")) r.pairs.push_back(decode_pair(p));
    return r;
  });
}

std::string pairs_to_wire(const std::vector<PairResult>& pairs) {
  json out = json::array();
  for (const auto& p : pairs) {
    json j = pair_json(p);
    j["error_kind"] = static_cast<int>(p.error_kind);
    j["stop"] = static_cast<int>(p.stop);
    for (std::size_t i = 0; i < p.sizes.size(); ++i) {
      j["sizes"][i]["cov"] = p.sizes[i].one_way_s.cov;
      j["sizes"][i]["error_kind"] = static_cast<int>(p.sizes[i].error_kind);
    }
    out.push_back(std::move(j));
  }
  return out.dump();
}

std::vector<PairResult> pairs_from_wire(const std::string& text) {
  std::vector<PairResult> out;
  for (const json& p : json::parse(text)) out.push_back(decode_pair(Fields(p, "pairs")));
  return out;
}

}  // namespace xb::records
