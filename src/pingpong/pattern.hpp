// Seeded data patterns, so every message carries data that can be checked
// after timing and a stale or zero buffer never passes as a transfer.
#pragma once

#include <cstddef>
#include <cstdint>

namespace xb::pingpong {

void fill_pattern(void* dst, std::size_t bytes, std::uint64_t seed);
// Offset of the first byte that differs from the pattern, or `bytes`.
std::size_t first_mismatch(const void* data, std::size_t bytes, std::uint64_t seed);

}  // namespace xb::pingpong
