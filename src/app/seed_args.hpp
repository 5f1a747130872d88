// The pingpong command line: its options, their conversion to
// pingpong::Options, and the seed tool's spellings. CLI11 cannot parse
// single-dash long names such as "-dev1", so main() rewrites them first
// with normalize_seed_args(). Everything here works on string vectors, so
// it is unit-tested without a process.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/output.hpp"
#include "pingpong/options.hpp"

namespace xb::app {

// After a "pingpong" token, rewrites the seed's "-dev1", "-dev2",
// "-loop_count" (and "--loop_count", "-dev1=vh" forms) to "--dev1",
// "--dev2", "--loop-count". Other tokens, and everything before
// "pingpong", are left alone. "-n" needs no rewrite.
std::vector<std::string> normalize_seed_args(std::vector<std::string> args);

// The raw option values as typed; to_options() checks and converts them.
struct PingpongArgs {
  std::string dev1 = "host", dev2 = "host";
  int num_sizes = 25;
  std::string min_size = "8";
  int loop_count = 10;
  int warmup = 5;
  std::string transport = "auto";
  std::string mode = "pingpong";
  int window = 64;
  bool all_pairs = false;
  std::string cuda_aware = "auto";
  double timeout_s = 30;
  std::uint64_t seed = 42;
  std::string ll_max = "16K";
  std::string staged_chunk = "4M";
  OutputOptions output;
};

void add_pingpong_options(CLI::App& cmd, PingpongArgs& args);
// Error(usage) naming the option on a bad value.
pingpong::Options to_options(const PingpongArgs& args);

}  // namespace xb::app
