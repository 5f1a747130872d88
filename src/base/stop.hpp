// The process-wide stop state that every measuring loop polls: a signal
// (SIGINT / SIGTERM, recorded by the handler in src/app/interrupt.cpp) or a
// hard deadline (--time-limit) asks the run to stop; the loops call
// throw_if_stopped() between cells and between samples, and the command
// catches Stopped, keeps what was completed and writes it.
//
// Stopped is deliberately not an xb::Error: the many `catch (const Error&)`
// sites that turn a failure into data (a cell error, an agreed rank error)
// must not swallow a stop request and carry on measuring.
//
// Everything here is lock-free atomics, so request_stop() may be called from
// a signal handler.
#pragma once

#include <chrono>
#include <functional>
#include <stdexcept>
#include <string>

namespace xb {

enum class StopReason {
  none,
  sigint,        // exit 130
  sigterm,       // exit 143
  time_limit,    // --time-limit reached: exit 10 (partial)
  gpu_unusable,  // a sticky CUDA error: the context cannot be used any more
  // Not a stop: the run went on, but cells were waived because their
  // buffers did not fit (memory, --max-memory): partial, exit 10 as for
  // time_limit. Never thrown as Stopped.
  memory,
};
const char* to_string(StopReason r) noexcept;

// Exit code of a run that ended for `r`: 130, 143, 10 (time_limit, memory), 8 (CUDA); 0 for none.
int stop_exit_code(StopReason r) noexcept;

// The stop an exit code stands for: 130 sigint, 143 sigterm, 10
// time_limit (partial); none for any other code.
StopReason stop_of_exit_code(int code) noexcept;

// SIGINT or SIGTERM.
bool is_signal(StopReason r) noexcept;
// A stop that makes a result "interrupted" and its exit code the stop's
// own: a signal, or a GPU left unusable (the time limit and memory make it
// "partial" instead).
bool is_interruption(StopReason r) noexcept;

class Stopped : public std::runtime_error {
 public:
  Stopped(StopReason reason, const std::string& message) : std::runtime_error(message), reason_(reason) {}
  StopReason reason() const noexcept { return reason_; }

 private:
  StopReason reason_;
};

// Records a signal (SIGINT or SIGTERM) this process got. The first one
// wins; returns false when this process already got one (the caller's
// second signal). Async-signal-safe.
bool request_stop(int signal_number) noexcept;

// Records a signal another process got (comm/stop_relay.hpp): the loops
// stop as for one of this process's own, but it is not this process's
// first signal (its own next one is not "the second"), and what guards
// against a launcher's kill after a signal (the emergency writer, the
// short waits for a peer) does not apply: nobody is about to kill this
// process.
void relay_stop(int signal_number) noexcept;
// The recorded signal came only from another process.
bool stop_relayed() noexcept;

// The recorded signal's reason (sigint / sigterm), or none.
StopReason signal_stop() noexcept;

// Hard deadline for the loops: after it, stop_requested() reports
// time_limit. clear_stop() removes it and any recorded signal (tests, and
// commands that run twice in one process).
void set_stop_deadline(std::chrono::steady_clock::time_point deadline) noexcept;
void clear_stop() noexcept;

// A recorded signal first, then a passed deadline; none otherwise.
StopReason stop_requested() noexcept;

// Multi-process commands: every rank has agreed to stop and is on its way
// to writing the result. Until then, a rank that waits in vain for a peer
// after a signal may give up (comm/mpi_comm.cpp, app/interrupt.hpp);
// afterwards it must not, since the waits are the orderly ending.
void acknowledge_stop() noexcept;
bool stop_acknowledged() noexcept;

// Throws Stopped when stop_requested() is not none. First runs the poll
// this thread installed (StopPoll), if any.
void throw_if_stopped();
// stop_requested() after this thread's poll, for loops that agree on stops
// themselves instead of throwing (pingpong).
StopReason polled_stop();

// Installs `poll` for this thread while in scope: throw_if_stopped() runs
// it before it looks at the stop state, so every measuring loop (between
// cells and between samples) runs it. Under mpirun it is the relay that
// turns another node's signal into this process's stop request
// (comm/stop_relay.hpp). Only the installing thread runs it, so it may
// make MPI calls.
class StopPoll {
 public:
  explicit StopPoll(std::function<void()> poll);
  ~StopPoll();
  StopPoll(const StopPoll&) = delete;
  StopPoll& operator=(const StopPoll&) = delete;

 private:
  std::function<void()> poll_;
  std::function<void()>* previous_;
};

// The message of a Stopped for `r`: "interrupted by SIGINT", "time limit reached".
std::string stop_message(StopReason r);

}  // namespace xb
