#include "pingpong/result.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace xb::pingpong {

Result result_header(const Options& o, int world_size) {
  Result r;
  r.mode = o.mode;
  r.buffers = o.buffers;
  r.loop_count = o.loop_count;
  r.warmup = o.warmup;
  r.window = o.window;
  r.world_size = world_size;
  r.all_pairs = o.all_pairs;
  r.requested_transport = to_string(o.transport);
  return r;
}

double bytes_per_one_way(Mode mode, std::uint64_t message_bytes) {
  const double b = static_cast<double>(message_bytes);
  return mode == Mode::bibw ? 2 * b : b;
}

SizeResult summarize_size(Mode mode, std::uint64_t bytes, int window, const std::vector<double>& rep_seconds) {
  const double per_rep = mode == Mode::pingpong ? 2.0 : static_cast<double>(window);
  std::vector<double> one_way;
  one_way.reserve(rep_seconds.size());
  for (double t : rep_seconds) one_way.push_back(t / per_rep);
  SizeResult s;
  s.bytes = bytes;
  s.one_way_s = summarize(one_way);
  s.one_way_p99_s = percentile(one_way, 0.99);
  const double moved = bytes_per_one_way(mode, bytes);
  const auto gbps = [moved](double seconds) { return seconds > 0 ? moved / seconds / 1e9 : 0.0; };
  s.bandwidth_gbps = gbps(s.one_way_s.mean);
  s.bandwidth_min_gbps = gbps(s.one_way_s.max);
  s.bandwidth_max_gbps = gbps(s.one_way_s.min);
  return s;
}

std::optional<Error> first_failure(const Result& r) {
  for (const auto& p : r.pairs) {
    if (!p.error.empty()) return Error(p.error_kind, p.error);
  }
  for (const auto& p : r.pairs) {
    for (const auto& s : p.sizes) {
      if (!s.error.empty())
        return Error(s.error_kind, fmt::format("rank {} and rank {} at {} bytes: {}", p.rank_a, p.rank_b, s.bytes, s.error));
      if (!s.verified) {
        return Error(ErrorKind::verification,
                     fmt::format("data check failed between rank {} and rank {} at {} bytes: {}", p.rank_a,
                                 p.rank_b, s.bytes, s.verify_error));
      }
    }
  }
  return std::nullopt;
}

namespace {

nlohmann::json size_to_json(const SizeResult& s) {
  const auto& t = s.one_way_s;
  return {{"bytes", s.bytes},
          {"t", {t.count, t.median, t.mean, t.min, t.max, t.stddev, t.cov, s.one_way_p99_s}},
          {"bw", {s.bandwidth_gbps, s.bandwidth_min_gbps, s.bandwidth_max_gbps}},
          {"verified", s.verified},
          {"verify_error", s.verify_error},
          {"error", s.error},
          {"error_kind", static_cast<int>(s.error_kind)}};
}

SizeResult size_from_json(const nlohmann::json& j) {
  SizeResult s;
  s.bytes = j.at("bytes").get<std::uint64_t>();
  const auto& t = j.at("t");
  s.one_way_s.count = t.at(0).get<int>();
  s.one_way_s.median = t.at(1).get<double>();
  s.one_way_s.mean = t.at(2).get<double>();
  s.one_way_s.min = t.at(3).get<double>();
  s.one_way_s.max = t.at(4).get<double>();
  s.one_way_s.stddev = t.at(5).get<double>();
  s.one_way_s.cov = t.at(6).get<double>();
  s.one_way_p99_s = t.at(7).get<double>();
  const auto& bw = j.at("bw");
  s.bandwidth_gbps = bw.at(0).get<double>();
  s.bandwidth_min_gbps = bw.at(1).get<double>();
  s.bandwidth_max_gbps = bw.at(2).get<double>();
  s.verified = j.at("verified").get<bool>();
  s.verify_error = j.at("verify_error").get<std::string>();
  s.error = j.value("error", "");
  s.error_kind = static_cast<ErrorKind>(j.value("error_kind", static_cast<int>(ErrorKind::internal)));
  return s;
}

}  // namespace

std::string pairs_to_wire(const std::vector<PairResult>& pairs) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& p : pairs) {
    nlohmann::json sizes = nlohmann::json::array();
    for (const auto& s : p.sizes) sizes.push_back(size_to_json(s));
    out.push_back({{"a", p.rank_a}, {"b", p.rank_b}, {"host_a", p.host_a}, {"host_b", p.host_b},
                   {"gpu_a", p.gpu_a}, {"gpu_b", p.gpu_b}, {"transport", p.transport}, {"path", p.path}, {"sizes", sizes},
                   {"error", p.error}, {"error_kind", static_cast<int>(p.error_kind)},
                   {"stop", static_cast<int>(p.stop)}, {"not_run", p.not_run}});
  }
  return out.dump();
}

std::vector<PairResult> pairs_from_wire(const std::string& text) {
  std::vector<PairResult> out;
  for (const auto& j : nlohmann::json::parse(text)) {
    PairResult p;
    p.rank_a = j.at("a").get<int>();
    p.rank_b = j.at("b").get<int>();
    p.host_a = j.at("host_a").get<std::string>();
    p.host_b = j.at("host_b").get<std::string>();
    p.gpu_a = j.at("gpu_a").get<int>();
    p.gpu_b = j.at("gpu_b").get<int>();
    p.transport = j.at("transport").get<std::string>();
    p.path = j.at("path").get<std::string>();
    for (const auto& s : j.at("sizes")) p.sizes.push_back(size_from_json(s));
    p.error = j.at("error").get<std::string>();
    p.error_kind = static_cast<ErrorKind>(j.at("error_kind").get<int>());
    p.stop = static_cast<StopReason>(j.value("stop", 0));
    p.not_run = j.value("not_run", std::vector<std::uint64_t>{});
    out.push_back(std::move(p));
  }
  return out;
}

int exit_code_of(const Result& r) {
  if (is_interruption(r.stop))
    return stop_exit_code(r.stop);
  if (const auto failure = first_failure(r)) return xb::exit_code(failure->kind());
  return r.status == RunStatus::complete ? 0 : stop_exit_code(StopReason::time_limit);
}

}  // namespace xb::pingpong
