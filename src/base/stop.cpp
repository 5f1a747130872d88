#include "base/stop.hpp"

#include <atomic>
#include <csignal>
#include <cstdint>

#include "base/names.hpp"

namespace xb {
namespace {

std::atomic<int> g_signal{0};
// steady_clock ticks since its epoch; 0 = no deadline.
std::atomic<std::int64_t> g_deadline{0};
std::atomic<bool> g_acknowledged{false};
std::atomic<bool> g_own{false};  // this process got a signal itself (else g_signal came from a relay)
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<std::int64_t>::is_always_lock_free &&
                  std::atomic<bool>::is_always_lock_free,
              "the stop state is written from a signal handler");

}  // namespace

constexpr Named<StopReason> kStopReasons[] = {
    {StopReason::none, "none"},         {StopReason::sigint, "SIGINT"},             {StopReason::sigterm, "SIGTERM"},
    {StopReason::time_limit, "time_limit"}, {StopReason::gpu_unusable, "gpu_unusable"}, {StopReason::memory, "memory"}};

const char* to_string(StopReason r) noexcept { return lookup_name(kStopReasons, r, "none"); }

StopReason stop_of_exit_code(int code) noexcept {
  for (StopReason r : {StopReason::sigint, StopReason::sigterm, StopReason::time_limit})
    if (code == stop_exit_code(r)) return r;
  return StopReason::none;
}

bool is_signal(StopReason r) noexcept { return r == StopReason::sigint || r == StopReason::sigterm; }

bool is_interruption(StopReason r) noexcept { return is_signal(r) || r == StopReason::gpu_unusable; }

int stop_exit_code(StopReason r) noexcept {
  switch (r) {
    case StopReason::none: return 0;
    case StopReason::sigint: return 128 + SIGINT;
    case StopReason::sigterm: return 128 + SIGTERM;
    case StopReason::time_limit: return 10;
    case StopReason::memory: return 10;
    case StopReason::gpu_unusable: return 8;
  }
  return 0;
}

bool request_stop(int signal_number) noexcept {
  if (g_own.exchange(true)) return false;
  int expected = 0;
  g_signal.compare_exchange_strong(expected, signal_number);  // a relayed stop keeps its reason
  return true;
}

void relay_stop(int signal_number) noexcept {
  int expected = 0;
  g_signal.compare_exchange_strong(expected, signal_number);
}

bool stop_relayed() noexcept { return g_signal.load() != 0 && !g_own.load(); }

StopReason signal_stop() noexcept {
  const int s = g_signal.load();
  if (s == SIGINT) return StopReason::sigint;
  if (s == SIGTERM) return StopReason::sigterm;
  return StopReason::none;
}

void set_stop_deadline(std::chrono::steady_clock::time_point deadline) noexcept {
  const std::int64_t ticks = deadline.time_since_epoch().count();
  g_deadline.store(ticks == 0 ? 1 : ticks);
}

void clear_stop() noexcept {
  g_signal.store(0);
  g_deadline.store(0);
  g_acknowledged.store(false);
  g_own.store(false);
}

void acknowledge_stop() noexcept { g_acknowledged.store(true); }
bool stop_acknowledged() noexcept { return g_acknowledged.load(); }

StopReason stop_requested() noexcept {
  if (const StopReason s = signal_stop(); s != StopReason::none) return s;
  const std::int64_t d = g_deadline.load(std::memory_order_relaxed);
  if (d != 0 && std::chrono::steady_clock::now().time_since_epoch().count() >= d) return StopReason::time_limit;
  return StopReason::none;
}

constexpr Named<StopReason> kStopMessages[] = {
    {StopReason::sigint, "interrupted by SIGINT"}, {StopReason::sigterm, "interrupted by SIGTERM"},
    {StopReason::time_limit, "time limit reached"}, {StopReason::gpu_unusable, "the GPU is no longer usable"},
    {StopReason::memory, "cells waived: their buffers did not fit"}};

std::string stop_message(StopReason r) { return lookup_name(kStopMessages, r, "not stopped"); }

namespace {
thread_local std::function<void()>* t_poll = nullptr;
}  // namespace

StopPoll::StopPoll(std::function<void()> poll) : poll_(std::move(poll)), previous_(t_poll) { t_poll = &poll_; }

StopPoll::~StopPoll() { t_poll = previous_; }

StopReason polled_stop() {
  if (t_poll != nullptr && *t_poll) (*t_poll)();
  return stop_requested();
}

void throw_if_stopped() {
  const StopReason r = polled_stop();
  if (r != StopReason::none) throw Stopped(r, stop_message(r));
}

}  // namespace xb
