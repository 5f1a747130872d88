#include "app/seed_args.hpp"

#include <algorithm>

#include "app/validators.hpp"
#include "base/units.hpp"

namespace xb::app {

namespace {

// Seed spelling -> our spelling; "-n" is a valid short option already.
std::string rewrite(const std::string& token) {
  static const std::pair<const char*, const char*> names[] = {
      {"-dev1", "--dev1"}, {"-dev2", "--dev2"}, {"-loop_count", "--loop-count"}, {"--loop_count", "--loop-count"}};
  for (const auto& [seed, ours] : names) {
    const std::string s(seed);
    if (token == s) return ours;
    if (token.rfind(s + "=", 0) == 0) return std::string(ours) + token.substr(s.size());
  }
  return token;
}

}  // namespace

std::vector<std::string> normalize_seed_args(std::vector<std::string> args) {
  const auto it = std::find(args.begin(), args.end(), "pingpong");
  if (it == args.end()) return args;
  std::transform(it + 1, args.end(), it + 1, rewrite);
  return args;
}

void add_pingpong_options(CLI::App& cmd, PingpongArgs& a) {
  cmd.add_option("--dev1", a.dev1, "Buffer of rank 0 (the initiator): host, gpu or gpu:ID (seed: vh, ve)")
      ->capture_default_str();
  cmd.add_option("--dev2", a.dev2, "Buffer of rank 1 (the responder): host, gpu or gpu:ID")->capture_default_str();
  cmd.add_option("-n", a.num_sizes, "Number of message sizes, doubling from --min-size (25: 8 B .. 128 MiB)")
      ->capture_default_str();
  cmd.add_option("--min-size", a.min_size, "First message size (K, M, G binary suffixes)")->capture_default_str();
  cmd.add_option("--loop-count", a.loop_count, "Timed repetitions per size")->capture_default_str();
  cmd.add_option("--warmup", a.warmup, "Untimed repetitions per size before timing")->capture_default_str();
  cmd.add_option("--transport", a.transport,
                 "auto, mpi, staged, ipc, nccl or device (auto: the best path available; device: a persistent "
                 "kernel stores into the peer's memory and raises flags)")
      ->capture_default_str();
  cmd.add_option("--mode", a.mode, "pingpong (round trips), bw or bibw (windowed, as osu_bw / osu_bibw)")
      ->capture_default_str();
  cmd.add_option("--window", a.window, "Messages in flight per repetition in bw and bibw modes")
      ->capture_default_str();
  cmd.add_flag("--all-pairs", a.all_pairs, "Measure every pair of ranks in rounds of disjoint pairs; print matrices");
  cmd.add_option("--cuda-aware", a.cuda_aware, "Whether MPI accepts GPU pointers: yes, no or auto (detect)")
      ->capture_default_str();
  cmd.add_option("--timeout", a.timeout_s, "Seconds to wait for a peer before giving up")->capture_default_str();
  cmd.add_option("--seed", a.seed, "Seed of the data pattern that is verified after timing")
      ->check(unsigned_number("--seed"))
      ->capture_default_str();
  cmd.add_option("--ll-max", a.ll_max,
                 "device transport: messages up to SIZE travel as LL words (4 data bytes and a sequence number per "
                 "8 bytes, no fence); larger ones as stores plus a release flag. 0: never LL")
      ->capture_default_str();
  cmd.add_option("--staged-chunk", a.staged_chunk,
                 "staged transport: larger messages are split into chunks of SIZE whose GPU copies overlap the "
                 "MPI transfer")
      ->capture_default_str();
  add_output_options(cmd, a.output);
}

pingpong::Options to_options(const PingpongArgs& a) {
  pingpong::Options o;
  o.dev1 = pingpong::parse_endpoint(a.dev1);
  o.dev2 = pingpong::parse_endpoint(a.dev2);
  o.num_sizes = a.num_sizes;
  o.min_bytes = parse_size(a.min_size, "--min-size");
  o.loop_count = a.loop_count;
  o.warmup = a.warmup;
  o.transport = pingpong::parse_transport(a.transport);
  o.mode = pingpong::parse_mode(a.mode);
  o.window = a.window;
  o.all_pairs = a.all_pairs;
  o.cuda_aware = pingpong::parse_cuda_aware(a.cuda_aware);
  o.timeout_s = a.timeout_s;
  o.seed = a.seed;
  o.ll_max_bytes = parse_size(a.ll_max, "--ll-max");
  o.stage_chunk_bytes = parse_size(a.staged_chunk, "--staged-chunk");
  pingpong::validate(o);
  return o;
}

}  // namespace xb::app
