// Signals and the options that bound a run in time, for every command that
// measures (run, sweep, pingpong, first-touch; check adopts them the same
// way, see docs/interrupts.md):
//
//   StopSignals signals;  // from here on SIGINT / SIGTERM ask the loops to stop
//
// The first SIGINT or SIGTERM records a stop request (base/stop.hpp) and
// prints one line; the loops abandon the cell in flight at their next poll,
// the command writes what it completed and exits 130 / 143. A second signal
// ends the process at once, by that signal (a SIGTERM within 2 s of the
// first is srun's copy of Slurm's, not a second one).
#pragma once

#include <condition_variable>
#include <csignal>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include "base/stop.hpp"
#include "cases/resume.hpp"

namespace xb::app {

class StopSignals {
 public:
  // Clears any earlier stop request and installs the handlers.
  StopSignals();
  // Restores the handlers that were there before and clears the stop state
  // (a recorded signal, a deadline).
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

// Under mpirun a signal to mpirun becomes SIGTERM to every rank and SIGKILL
// one second later (Open MPI's odls_base_sigkill_timeout), which can be
// sooner than the ranks reach the next point where they agree to stop (the
// end of a large message size). So rank 0 keeps a copy of what it measured
// (update()); if a stop request has not ended the command within `grace_s`,
// a watcher thread writes that copy (status interrupted) and ends the
// process with 130 / 143, unless the ranks have already agreed to stop
// (acknowledge_stop(): they are writing in order). finished() (or the
// destructor) disarms it.
class EmergencyWriter {
 public:
  using Write = std::function<void(StopReason)>;
  EmergencyWriter(double grace_s, Write write);
  ~EmergencyWriter();
  EmergencyWriter(const EmergencyWriter&) = delete;
  EmergencyWriter& operator=(const EmergencyWriter&) = delete;
  // Runs `update` (which refreshes the copy) under the lock the watcher takes.
  void update(const std::function<void()>& refresh);
  void finished();

 private:
  void watch();
  double grace_s_;
  Write write_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  std::thread thread_;
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

// --resume FILE: the earlier result (`doc`, read before any GPU was looked
// for) decoded by `decode`, once it is known to come from this machine,
// this build and the same command line (`argv`). Empty without a file.
template <typename Result>
std::optional<Result> resumed(const std::string& file, const std::optional<nlohmann::json>& doc, const System& sys,
                              const std::vector<std::string>& argv,
                              Result (*decode)(const nlohmann::json&, const std::string&)) {
  if (!doc) return std::nullopt;
  const std::string name = "'" + file + "'";
  check_same_identity(identity_of(*doc, name), identity_of(sys, argv), name);
  Result earlier = decode(*doc, file);
  earlier.resumed_from = file;
  return earlier;
}

}  // namespace xb::app
