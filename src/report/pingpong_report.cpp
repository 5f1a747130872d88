// Reporters for process-to-process results: the seed's table (text) and
// CSV; the JSON (schema "xferbench-pingpong") is pingpong/pingpong_json's.
// Two-rank runs: `#` header lines, the seed's columns plus min, median,
// p99 and max one-way time, a `#` footer with the verification verdict.
// --all-pairs: rank table with hosts and GPUs, then bandwidth (largest
// size) and median and p99 one-way time (smallest size) matrices.
#include <map>

#include <fmt/format.h>

#include "report/formats.hpp"

namespace xb::report {

using pingpong::PairResult;
using pingpong::Result;
using pingpong::SizeResult;

namespace {

std::string device_label(int gpu) { return gpu < 0 ? "host" : fmt::format("gpu{}", gpu); }

std::string timing_note(const Result& r) {
  switch (r.mode) {
    case pingpong::Mode::pingpong:
      return r.buffers == pingpong::Buffers::echo
                 ? "one-way time = round trip / 2; the responder sends back from the buffer it received into"
                 : "one-way time = round trip / 2; each rank sends from its send buffer into the peer's receive buffer";
    case pingpong::Mode::bw: return fmt::format("one-way time = window time / {} messages (osu_bw)", r.window);
    case pingpong::Mode::bibw:
      return fmt::format("one-way time = window time / {} messages, bandwidth counts both directions (osu_bibw)",
                         r.window);
  }
  return "";
}

constexpr const char* kTableRule =
    "|---------------|-----------------------|------------------|--------------|-----------------|--------------|"
    "--------------|\n";

}  // namespace

std::string pingpong_text_header(const Result& r) {
  return fmt::format(
      "# xferbench pingpong: mode {}, {} ranks, loop count {}, warm-up {}, buffers {}\n# {}; GB/s = 1e9 B/s\n",
      to_string(r.mode), r.world_size, r.loop_count, r.warmup, to_string(r.buffers), timing_note(r));
}

namespace {

std::string pair_title(const PairResult& p) {
  std::string out = fmt::format("# rank {} ({}, {}) <-> rank {} ({}, {}), transport {}\n", p.rank_a, p.host_a,
                                device_label(p.gpu_a), p.rank_b, p.host_b, device_label(p.gpu_b), p.transport);
  if (!p.path.empty()) out += fmt::format("# path: {}\n", p.path);
  return out;
}

}  // namespace

std::string pingpong_pair_head(const PairResult& p) {
  std::string out = pair_title(p);
  out +=
      "| Data Size (B) | Avg Transfer Time (s) | Bandwidth (GB/s) | Min Time (s) | Median Time (s) | p99 Time (s) "
      "| Max Time (s) |\n";
  return out + kTableRule;
}

std::string pingpong_size_row(const SizeResult& s) {
  if (!s.error.empty()) return fmt::format("|{:>15}| ERROR: {}\n", s.bytes, s.error);
  const auto& t = s.one_way_s;
  return fmt::format("|{:>15}|{:>23.9f}|{:>18.9f}|{:>14.9f}|{:>17.9f}|{:>14.9f}|{:>14.9f}|{}\n", s.bytes, t.mean,
                     s.bandwidth_gbps, t.min, t.median, s.one_way_s.p99, t.max, s.verified ? "" : " FAILED");
}

std::string pingpong_pair_foot(const PairResult& p) {
  if (!p.error.empty() && p.sizes.empty()) return fmt::format("# error: {}\n", p.error);
  int failed = 0;
  for (const SizeResult& s : p.sizes) failed += s.verified ? 0 : 1;  // a size with an error is not verified
  std::string out = kTableRule;
  // A pair that failed or stopped keeps the sizes it measured.
  if (!p.error.empty()) out += fmt::format("# error after {} size(s): {}\n", p.sizes.size(), p.error);
  if (!p.not_run.empty()) out += fmt::format("# {} size(s) not run\n", p.not_run.size());
  if (failed == 0) return out + fmt::format("# data verified: all {} sizes passed\n", p.sizes.size());
  return out + fmt::format("# data verification FAILED for {} of {} sizes\n", failed, p.sizes.size());
}

namespace {

void append_pair_table(std::string& out, const PairResult& p) {
  // A pair that failed before its first size has no table.
  out += !p.error.empty() && p.sizes.empty() ? pair_title(p) : pingpong_pair_head(p);
  for (const SizeResult& s : p.sizes) out += pingpong_size_row(s);
  out += pingpong_pair_foot(p);
}

// One matrix cell per pair, mirrored (a pair is measured once): `value` of
// its largest or smallest size.
void append_matrix(std::string& out, const Result& r, const std::string& title, bool largest,
                   double (*value)(const SizeResult&)) {
  out += fmt::format("# {} (row and column: rank)\n{:>6}", title, "");
  for (int c = 0; c < r.world_size; ++c) out += fmt::format("{:>12}", fmt::format("r{}", c));
  out += "\n";
  std::map<std::pair<int, int>, std::string> cells;
  for (const auto& p : r.pairs) {
    const SizeResult* s = p.sizes.empty() ? nullptr : largest ? &p.sizes.back() : &p.sizes.front();
    const std::string v = !p.error.empty() ? "ERR" : !s ? "?" : s->error.empty() ? fmt::format("{:.3f}", value(*s)) : "ERR";
    cells[{p.rank_a, p.rank_b}] = v;
    cells[{p.rank_b, p.rank_a}] = v;
  }
  for (int row = 0; row < r.world_size; ++row) {
    out += fmt::format("{:>6}", fmt::format("r{}", row));
    for (int c = 0; c < r.world_size; ++c) {
      const auto it = cells.find({row, c});
      out += fmt::format("{:>12}", row == c ? "-" : it == cells.end() ? "?" : it->second);
    }
    out += "\n";
  }
}

std::string all_pairs_text(const Result& r) {
  std::string out = pingpong_text_header(r);
  std::map<int, std::string> ranks;  // "host HOST, GPU" per rank
  for (const auto& p : r.pairs) {
    ranks[p.rank_a] = fmt::format("host {}, {}", p.host_a, device_label(p.gpu_a));
    ranks[p.rank_b] = fmt::format("host {}, {}", p.host_b, device_label(p.gpu_b));
  }
  for (const auto& [rank, where] : ranks) out += fmt::format("# rank {}: {}\n", rank, where);
  append_matrix(out, r, "bandwidth (GB/s) at the largest size", true,
                [](const SizeResult& s) { return s.bandwidth_gbps; });
  append_matrix(out, r, "median one-way time (us) at the smallest size", false,
                [](const SizeResult& s) { return s.one_way_s.median * 1e6; });
  append_matrix(out, r, "p99 one-way time (us) at the smallest size", false,
                [](const SizeResult& s) { return s.one_way_s.p99 * 1e6; });
  for (const auto& p : r.pairs) {
    std::string verdict = p.error.empty() ? "verified" : "error: " + p.error;
    for (const auto& s : p.sizes) {
      if (!s.verified) verdict = "data verification FAILED";
    }
    out += fmt::format("# r{}-r{}: transport {}, {}\n", p.rank_a, p.rank_b, p.transport.empty() ? "none" : p.transport,
                       verdict);
  }
  return out + completion_line(r.completion, "run", "size(s) or pair(s)");
}

}  // namespace

std::string pingpong_text(const Result& r) {
  if (r.all_pairs) return all_pairs_text(r);
  std::string out = pingpong_text_header(r);
  for (const auto& p : r.pairs) append_pair_table(out, p);
  return out + completion_line(r.completion, "run", "size(s) or pair(s)");
}


std::string pingpong_csv(const Result& r) {
  std::string out =
      "rank_a,rank_b,host_a,host_b,gpu_a,gpu_b,transport,mode,bytes,one_way_time_mean_s,one_way_time_min_s,"
      "one_way_time_max_s,one_way_time_median_s,one_way_time_p99_s,bandwidth_gbps,bandwidth_min_gbps,"
      "bandwidth_max_gbps,verified,one_way_time_p50_s,one_way_time_p95_s\n";
  for (const auto& p : r.pairs) {
    for (const auto& s : p.sizes) {
      out += fmt::format("{},{},{},{},{},{},{},{},{},{:.9e},{:.9e},{:.9e},{:.9e},{:.9e},{:.9f},{:.9f},{:.9f},{},{:.9e},{:.9e}\n",
                         p.rank_a, p.rank_b, p.host_a, p.host_b, device_label(p.gpu_a), device_label(p.gpu_b),
                         p.transport, to_string(r.mode), s.bytes, s.one_way_s.mean, s.one_way_s.min,
                         s.one_way_s.max, s.one_way_s.median, s.one_way_s.p99, s.bandwidth_gbps,
                         s.bandwidth_min_gbps, s.bandwidth_max_gbps, s.verified ? "true" : "false",
                         s.one_way_s.median, s.one_way_s.p95);
    }
  }
  return out;
}

}  // namespace xb::report
