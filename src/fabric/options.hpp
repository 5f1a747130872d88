// What a fabric run is asked to do (docs/fabric.md): plain data filled by
// the command line (src/app/cmd_fabric.cpp) or by tests.
#pragma once

#include <cstdint>
#include <string>

#include "pingpong/options.hpp"

namespace xb::fabric {

// Every pair of nodes up to this many nodes; random matchings above.
inline constexpr int kAllPairsMaxNodes = 64;
// --rounds when there are more nodes than kAllPairsMaxNodes and none is given.
inline constexpr int kDefaultRounds = 16;

// Which figures make a pair an outlier (--metric).
enum class Judge { all, bandwidth, latency };
const char* to_string(Judge j) noexcept;
Judge parse_judge(const std::string& text);  // Error(usage) naming --metric

struct Options {
  pingpong::Endpoint buffers;              // host, or a GPU (-1: by node-local rank)
  std::uint64_t bytes = 64ULL << 20;       // bandwidth message size
  int window = 4;                          // messages in flight per bandwidth repetition
  int bw_reps = 10, bw_warmup = 2;         // bandwidth repetitions per direction
  std::uint64_t latency_bytes = 8;
  int latency_reps = 1000, latency_warmup = 100;
  pingpong::TransportKind transport = pingpong::TransportKind::automatic;
  pingpong::CudaAware cuda_aware = pingpong::CudaAware::automatic;
  bool rails_one = false;  // --rails one: a node pair's rails one at a time
  int rounds = 0;          // 0: every pair up to kAllPairsMaxNodes nodes, kDefaultRounds matchings above
  std::uint64_t seed = 1;  // of the random matchings
  double min_ratio = 0.85;
  Judge judge = Judge::all;
  bool fail_on_culprit = false;  // exit 1 when a culprit is named
  double timeout_s = 30;   // longest wait for a peer inside a pair
  // A rank silent this long is lost (dead or hung): the coordinator stops
  // waiting for it and the other pairs go on. 0: 2 x timeout_s + 10.
  double silence_s = 0;
  std::uint64_t pattern_seed = 42;
  std::uint64_t ll_max_bytes = 16 << 10;      // device transport
  std::uint64_t stage_chunk_bytes = 4 << 20;  // staged transport
  // The plan's time estimate assumes this bandwidth per direction and this
  // one-way latency (nothing is known before measuring).
  double assume_gbps = 25;
  double assume_latency_s = 5e-6;
  double assume_setup_s = 0.5;  // per leg: transport setup (an NCCL communicator, buffers)
};

double silence_of(const Options& o);
// Range checks that need no peer; Error(usage) naming the option.
void validate(const Options& o);

// The pingpong options of one leg: bandwidth (osu_bw's window) or latency (round trips).
pingpong::Options bandwidth_leg(const Options& o);
pingpong::Options latency_leg(const Options& o);

}  // namespace xb::fabric
