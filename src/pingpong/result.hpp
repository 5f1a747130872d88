// The result record of a process-to-process run: one PairResult per
// measured pair of ranks, each with one SizeResult per message size. SI
// units; reporters (src/report/pingpong_report.cpp) only read these.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "records/result.hpp"
#include "base/stop.hpp"
#include "base/stats.hpp"
#include "pingpong/options.hpp"

namespace xb::pingpong {

struct SizeResult {
  std::uint64_t bytes = 0;
  Summary one_way_s;               // per repetition: round trip / 2, or window time / window
  double bandwidth_gbps = 0;       // bytes moved per one-way time, from the mean (1e9 B/s)
  double bandwidth_min_gbps = 0;   // from the slowest repetition
  double bandwidth_max_gbps = 0;   // from the fastest repetition
  bool verified = false;
  std::string verify_error;        // why verification failed, when it did
  std::string error;               // non-empty: this size could not be measured (no times); why
  ErrorKind error_kind = ErrorKind::internal;
};

struct PairResult {
  int rank_a = 0;  // initiator (dev1)
  int rank_b = 1;  // responder (dev2)
  std::string host_a, host_b;
  int gpu_a = -1, gpu_b = -1;  // -1: host buffers
  std::string transport;       // the path actually used
  std::string path;            // how that path moves data, per side (may be empty)
  std::vector<SizeResult> sizes;
  std::string error;           // non-empty: the pair could not be (fully) measured; sizes holds what it did
  ErrorKind error_kind = ErrorKind::internal;
  StopReason stop = StopReason::none;      // a stop request ended this pair early
  std::vector<std::uint64_t> not_run;      // sizes not measured (stop or time limit)
};

struct Result {
  Mode mode = Mode::pingpong;
  Buffers buffers = Buffers::separate;
  int loop_count = 0, warmup = 0, window = 0;
  int world_size = 0;
  bool all_pairs = false;
  std::string requested_transport;
  std::vector<PairResult> pairs;  // sorted by (rank_a, rank_b)
  // complete, or interrupted / partial (see xb::RunResult): what ended the
  // run early and what it did not measure ("r0-r1 @ 4096 B", "r2-r3").
  Completion completion;
};

// A Result with the run's settings and no pairs yet (what a report header needs).
Result result_header(const Options& o, int world_size);

// Turns one rank's per-repetition times into a SizeResult (verification
// left to the caller). `window` messages per repetition in bw/bibw.
SizeResult summarize_size(Mode mode, std::uint64_t bytes, int window, const std::vector<double>& rep_seconds);

// The error that decides the exit status: the first pair error, else the
// first failed verification (ErrorKind::verification); nullopt when all passed.
std::optional<Error> first_failure(const Result& r);
// Its kind: the failure the exit-code rule (records/completion.hpp) takes.
std::optional<ErrorKind> failure_kind(const Result& r);

}  // namespace xb::pingpong
