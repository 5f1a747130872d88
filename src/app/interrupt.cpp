#include "app/interrupt.hpp"

#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>

#include "base/time_budget.hpp"

namespace xb::app {
namespace {

// Slurm sends SIGTERM to every task of a job it cancels or whose time is up,
// and srun, which gets one too, sends its tasks SIGTERM again: a SIGTERM
// this soon after the first is that copy, not a second request (which would
// end the process before it writes what it measured).
constexpr long long kSrunCopyNs = 2'000'000'000;
std::atomic<long long> g_first_sigterm_ns{0};

long long monotonic_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);  // async-signal-safe
  return static_cast<long long>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

extern "C" void on_stop_signal(int signal_number) {
  const long long now = monotonic_ns();
  if (!xb::request_stop(signal_number)) {
    if (signal_number == SIGTERM && xb::signal_stop() == StopReason::sigterm &&
        now - g_first_sigterm_ns.load() < kSrunCopyNs)
      return;
    // The second signal: end now, the way that signal ends a process.
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(signal_number, &dfl, nullptr);
    raise(signal_number);
    return;
  }
  if (signal_number == SIGTERM) g_first_sigterm_ns.store(now);
  static const char msg[] =
      "\nxferbench: stopping: the cells measured so far are kept and written (signal again to end at once)\n";
  // write(2) is async-signal-safe; its result cannot be acted on here.
  const ssize_t ignored = write(STDERR_FILENO, msg, sizeof msg - 1);
  (void)ignored;
}

}  // namespace

StopSignals::StopSignals() {
  clear_stop();
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  // Interrupted system calls resume: the loops poll the stop state instead.
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, &old_int_);
  sigaction(SIGTERM, &sa, &old_term_);
}

StopSignals::~StopSignals() {
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
  clear_stop();  // the command is over: nothing after it must see its stop or deadline
}

EmergencyWriter::EmergencyWriter(double grace_s, Write write)
    : grace_s_(grace_s), write_(std::move(write)), thread_([this] { watch(); }) {}

EmergencyWriter::~EmergencyWriter() {
  finished();
  thread_.join();
}

void EmergencyWriter::update(const std::function<void()>& refresh) {
  std::lock_guard<std::mutex> lock(mutex_);
  refresh();
}

void EmergencyWriter::finished() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
  }
  wake_.notify_all();
}

void EmergencyWriter::watch() {
  using namespace std::chrono;
  std::unique_lock<std::mutex> lock(mutex_);
  // Only this process's own signals: a time limit or a signal relayed from
  // another process ends the run in order, nobody kills this one.
  while (!wake_.wait_for(lock, milliseconds(20),
                         [this] { return done_ || (signal_stop() != StopReason::none && !stop_relayed()); })) {
  }
  if (done_) return;
  const StopReason why = signal_stop();
  if (wake_.wait_for(lock, duration<double>(grace_s_), [this] { return done_; })) return;
  // The ranks agreed to stop and are writing in order: let them.
  if (stop_acknowledged()) return;
  // The main thread is still inside a measurement (or a blocking MPI call).
  try {
    write_(why);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "xferbench: error: %s\n", e.what());
  }
  std::fflush(stdout);
  std::fflush(stderr);
  _exit(stop_exit_code(why));
}

void add_stop_options(CLI::App& cmd, StopOptions& o, bool with_resume) {
  cmd.add_option("--time-limit", o.time_limit,
                 "Finish within DURATION (90s, 5m, 1h): cells that would not end in time are skipped and listed, "
                 "status partial, exit 10");
  if (with_resume)
    cmd.add_option("--resume", o.resume,
                   "Complete an interrupted or partial result FILE (JSON) of the same command on this machine: "
                   "measure only its missing cells and write one merged result");
}

void validate_stop_options(StopOptions& o) {
  o.time_limit_s = o.time_limit.empty() ? 0.0 : parse_duration_s(o.time_limit, "--time-limit");
}

}  // namespace xb::app
