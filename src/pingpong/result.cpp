#include "pingpong/result.hpp"

#include <fmt/format.h>

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

SizeResult summarize_size(Mode mode, std::uint64_t bytes, int window, const std::vector<double>& rep_seconds) {
  const double per_rep = mode == Mode::pingpong ? 2.0 : static_cast<double>(window);
  std::vector<double> one_way;
  one_way.reserve(rep_seconds.size());
  for (double t : rep_seconds) one_way.push_back(t / per_rep);
  SizeResult s;
  s.bytes = bytes;
  s.one_way_s = summarize(one_way);
  // Bytes one "one-way time" carries: bibw counts both directions, as osu_bibw.
  const double moved = static_cast<double>(bytes) * (mode == Mode::bibw ? 2 : 1);
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

std::optional<ErrorKind> failure_kind(const Result& r) {
  const auto failure = first_failure(r);
  return failure ? std::optional(failure->kind()) : std::nullopt;
}

}  // namespace xb::pingpong
