#include "fabric/options.hpp"

#include <climits>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/names.hpp"

namespace xb::fabric {
namespace {

constexpr Named<Judge> kJudges[] = {{Judge::all, "all"}, {Judge::bandwidth, "bandwidth"}, {Judge::latency, "latency"}};

void positive(int value, const char* option) {
  if (value < 1) fail(ErrorKind::usage, fmt::format("invalid {} '{}': must be 1 or more", option, value));
}

void at_least_zero(int value, const char* option) {
  if (value < 0) fail(ErrorKind::usage, fmt::format("invalid {} '{}': must be 0 or more", option, value));
}

pingpong::Options leg_base(const Options& o) {
  pingpong::Options p;
  p.dev1 = o.buffers;
  p.dev2 = o.buffers;
  p.num_sizes = 1;
  p.transport = o.transport;
  p.cuda_aware = o.cuda_aware;
  p.all_pairs = true;  // several pairs at once: a failed pair is data, not the end of the run
  p.timeout_s = o.timeout_s;
  p.seed = o.pattern_seed;
  p.ll_max_bytes = o.ll_max_bytes;
  p.stage_chunk_bytes = o.stage_chunk_bytes;
  return p;
}

}  // namespace

const char* to_string(Judge j) noexcept { return lookup_name(kJudges, j); }

Judge parse_judge(const std::string& text) {
  if (const auto j = lookup_value(kJudges, text)) return *j;
  fail(ErrorKind::usage, fmt::format("invalid --metric '{}': expected all, bandwidth or latency", text));
}

double silence_of(const Options& o) { return o.silence_s > 0 ? o.silence_s : 2 * o.timeout_s + 10; }

void validate(const Options& o) {
  positive(o.window, "--window");
  positive(o.bw_reps, "--loop-count");
  at_least_zero(o.bw_warmup, "--warmup");
  positive(o.latency_reps, "--latency-loop-count");
  at_least_zero(o.latency_warmup, "--latency-warmup");
  at_least_zero(o.rounds, "--rounds");
  if (o.window > 1048576) fail(ErrorKind::usage, fmt::format("invalid --window '{}': at most 1048576", o.window));
  if (!(o.min_ratio > 0 && o.min_ratio < 1))
    fail(ErrorKind::usage, fmt::format("invalid --min-ratio '{}': must be above 0 and below 1", o.min_ratio));
  for (const auto& [bytes, option] : {std::pair{o.bytes, "--size"}, std::pair{o.latency_bytes, "--latency-size"}})
    if (bytes > static_cast<std::uint64_t>(INT_MAX))
      fail(ErrorKind::usage, fmt::format("invalid {} of {} bytes: at most 2 GiB - 1 (MPI's largest message)", option,
                                         bytes));
  if (!(o.timeout_s > 0) || !std::isfinite(o.timeout_s))
    fail(ErrorKind::usage, fmt::format("invalid --timeout '{}': must be greater than 0", o.timeout_s));
  pingpong::validate(bandwidth_leg(o));
  pingpong::validate(latency_leg(o));
}

pingpong::Options bandwidth_leg(const Options& o) {
  pingpong::Options p = leg_base(o);
  p.mode = pingpong::Mode::bw;
  p.min_bytes = o.bytes;
  p.window = o.window;
  p.loop_count = o.bw_reps;
  p.warmup = o.bw_warmup;
  return p;
}

pingpong::Options latency_leg(const Options& o) {
  pingpong::Options p = leg_base(o);
  p.mode = pingpong::Mode::pingpong;
  p.min_bytes = o.latency_bytes;
  p.loop_count = o.latency_reps;
  p.warmup = o.latency_warmup;
  return p;
}

}  // namespace xb::fabric
