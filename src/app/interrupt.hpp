// Signals and the options that bound a run in time, for every command that
// measures (run, sweep, pingpong, first-touch; check adopts them the same
// way, see docs/interrupts.md):
//
//   StopSignals signals;  // from here on SIGINT / SIGTERM ask the loops to stop
//
// The first SIGINT or SIGTERM records a stop request (core/stop.hpp) and
// prints one line; the loops abandon the cell in flight at their next poll,
// the command writes what it completed and exits 130 / 143. A second signal
// ends the process at once, by that signal.
#pragma once

#include <csignal>
#include <string>

#include <CLI/CLI.hpp>

namespace xb::app {

class StopSignals {
 public:
  // Clears any earlier stop request and installs the handlers.
  StopSignals();
  // Restores the handlers that were there before.
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

struct StopOptions {
  std::string time_limit;   // --time-limit as typed
  std::string resume;       // --resume FILE
  double time_limit_s = 0;  // parsed; 0: none
};

// Adds --time-limit (and --resume FILE when `with_resume`) to a command.
void add_stop_options(CLI::App& cmd, StopOptions& o, bool with_resume);

// Parses --time-limit; throws Error(usage) naming a bad value.
void validate_stop_options(StopOptions& o);

}  // namespace xb::app
