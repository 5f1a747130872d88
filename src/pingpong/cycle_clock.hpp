// Cheap per-repetition timestamps on the CPU. A clock_gettime pair per
// round trip would add tens of nanoseconds (more in a VM) to
// sub-microsecond messages; the x86 time-stamp counter costs a few and runs
// at a constant rate on every CPU this targets. Ticks become seconds with
// the steady clock measured over the whole run (ticks_to_seconds).
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace xb::pingpong {

inline std::uint64_t cycle_counter() {
#if defined(__x86_64__)
  return __rdtsc();
#else
  return static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
#endif
}

// stamps[0..n]: counter values at the start and after each of n repetitions;
// total_seconds: the same span on a trusted clock. Returns each repetition's
// seconds, scaled so they add up to total_seconds. Used for CPU cycles
// against the steady clock and for GPU SM cycles (clock64) against the GPU's
// global timer.
std::vector<double> ticks_to_seconds(const std::vector<std::uint64_t>& stamps, double total_seconds);

// Runs `rep` `reps` times back to back and returns each one's seconds.
template <typename Rep>
std::vector<double> time_reps(int reps, Rep&& rep) {
  std::vector<std::uint64_t> stamps;
  stamps.reserve(static_cast<std::size_t>(reps) + 1);
  const auto t0 = std::chrono::steady_clock::now();
  stamps.push_back(cycle_counter());
  for (int i = 0; i < reps; ++i) {
    rep();
    stamps.push_back(cycle_counter());
  }
  return ticks_to_seconds(stamps, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

}  // namespace xb::pingpong
