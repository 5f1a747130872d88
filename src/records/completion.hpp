// How a command's measurement ended, the same in every record (run, sweep,
// scenario, pingpong, first-touch; a check through its run), and the one
// rule from that to the verdict and the exit code (docs/interrupts.md,
// "Outcome and exit code").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "base/stop.hpp"

namespace xb {

// complete: everything selected ran; interrupted: a signal or an unusable
// GPU stopped it; partial: --time-limit left cells out, or cells were
// waived because their buffers did not fit (memory, --max-memory). One
// status for both kinds of partial: JSON "partial", exit 10.
enum class RunStatus { complete, interrupted, partial };
const char* to_string(RunStatus s) noexcept;

struct Completion {
  RunStatus status = RunStatus::complete;
  StopReason stop = StopReason::none;  // what ended it early or left cells out, if anything
  std::string message;                 // why it is not complete ("interrupted by SIGINT", ...)
  std::vector<std::string> not_run;    // what was not measured (cells, sizes, pairs, iterations)
  double time_limit_s = 0;             // --time-limit; 0: none
  std::string error;                   // non-empty: an error ended the measurement early
  ErrorKind error_kind = ErrorKind::internal;
};

// A stop request ended the measurement: interrupted, or partial for the time limit.
void record_stop(Completion& c, const Stopped& stop);
// Settles the status once a loop that recorded its stop and its not_run is
// over: a stop makes it interrupted (partial for the time limit), and items
// left out by the time limit's estimates alone make it partial ("time
// limit: 3 size(s) would not have ended in time" for `unit` "size").
void settle(Completion& c, const char* unit);

// The verdict, in the order of precedence of the exit codes.
enum class Outcome { passed, partial, failed, interrupted };
const char* to_string(Outcome o) noexcept;

// What a partial completion means to a command: exit 10 (most), or 10
// only when the time limit left cells out (check: cells waived for memory
// are judged as waived; nvbandwidth: waived cases keep 0, as NVIDIA's tool).
enum class PartialMeans { partial, time_limit_only };

struct Ending {
  Outcome outcome = Outcome::passed;
  int exit_code = 0;
};

// The one rule: an interruption exits with its stop's code (130, 143, 8);
// an error with its kind's code; a failure of something measured (a data
// check, a cell, a size, an iteration: `failure` names its kind, which is
// verification, exit 1, but for pingpong's failed sizes) with its kind's
// code; a partial completion with 10; else 0.
Ending ending(const Completion& c, std::optional<ErrorKind> failure, PartialMeans partial = PartialMeans::partial);
// The same, `failed` standing for a verification failure.
inline Ending ending(const Completion& c, bool failed, PartialMeans partial = PartialMeans::partial) {
  return ending(c, failed ? std::optional(ErrorKind::verification) : std::nullopt, partial);
}

}  // namespace xb
