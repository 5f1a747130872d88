// The seeded data pattern written into every source buffer and checked in
// every destination after a timed copy. Word i of a buffer filled with seed s
// is pattern_word(s, i); a trailing partial word holds the low bytes of the
// next word. Usable from host and device code.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define XB_HOST_DEVICE __host__ __device__
#else
#define XB_HOST_DEVICE
#endif

namespace xb {

XB_HOST_DEVICE inline std::uint32_t pattern_word(std::uint64_t seed, std::uint64_t index) {
  // splitmix64 finalizer over (seed, index): neighbouring words and seeds
  // differ in about half their bits, so a shifted or stale copy is caught.
  std::uint64_t x = seed * 0x9E3779B97F4A7C15ull + index;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  x ^= x >> 31;
  return static_cast<std::uint32_t>(x) ^ static_cast<std::uint32_t>(x >> 32);
}

XB_HOST_DEVICE inline std::uint8_t pattern_byte(std::uint64_t seed, std::uint64_t offset) {
  return static_cast<std::uint8_t>(pattern_word(seed, offset / 4) >> (8 * (offset % 4)));
}

// Host implementations for memory the GPU cannot reach (pageable buffers).
void fill_pattern_host(void* buf, std::uint64_t bytes, std::uint64_t seed);
// Returns the first byte offset that differs, or `bytes` if all match.
std::uint64_t verify_pattern_host(const void* buf, std::uint64_t bytes, std::uint64_t seed);

}  // namespace xb
