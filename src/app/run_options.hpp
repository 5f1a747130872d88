// Options of 'xferbench run' and their validation into a RunRequest. Pure:
// no GPU is touched, so every argument error is reported first.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/output.hpp"
#include "core/runner.hpp"

namespace xb::app {

struct RunOptions {
  std::vector<std::string> testcases;  // names or indices
  std::vector<std::string> prefixes;
  std::string suite;                   // quick (default) | full
  std::string buffer_mib;              // -b: MiB, as nvbandwidth
  std::string buffer_size;             // --buffer-size: bytes with suffixes
  int samples = -1;                    // -i: fixed sample count (-1 = adaptive)
  int min_samples = 3, max_samples = 40;
  double target_error_pct = 0.5;
  double budget_s = 3.0;
  double sample_ms = 20.0;
  int copies = 0;
  double gate_timeout_s = 10.0;
  bool mean = false, skip_verification = false, disable_affinity = false, list = false;
  std::string sm_config;               // --sm-config BLOCKS_PER_SM,THREADS,UNROLL[,streaming]
  OutputOptions out;
};

void add_run_options(CLI::App& cmd, RunOptions& opts);

// Throws Error(usage) naming the bad value.
RunRequest build_request(const RunOptions& opts, const std::vector<std::string>& command_line);

}  // namespace xb::app
