// One rank's stand-in for the process-wide signal state in comm::StopRelay
// tests: its own signal and the stop requests relayed to it (threads as
// ranks share the real state). Shared by the relay and fleet tests.
#pragma once

#include <atomic>
#include <csignal>

#include "comm/stop_relay.hpp"

struct FakeRank {
  std::atomic<int> signal{0};
  std::atomic<int> requested{0};
  xb::comm::StopRelay::Hooks hooks() {
    xb::comm::StopRelay::Hooks h;
    h.local = [this] {
      const int s = signal.load();
      return s == SIGINT ? xb::StopReason::sigint : s == SIGTERM ? xb::StopReason::sigterm : xb::StopReason::none;
    };
    h.request = [this](int s) { requested = s; };
    return h;
  }
};
