#include "pingpong/pattern.hpp"

#include <cstring>

namespace xb::pingpong {
namespace {

// splitmix64: every word depends on the seed and its index, so a shifted,
// truncated or repeated copy does not match.
std::uint64_t word_at(std::uint64_t seed, std::uint64_t index) {
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ULL + index + 0x632BE59BD9B4E019ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

}  // namespace

void fill_pattern(void* dst, std::size_t bytes, std::uint64_t seed) {
  auto* out = static_cast<unsigned char*>(dst);
  for (std::size_t off = 0, i = 0; off < bytes; off += 8, ++i) {
    const std::uint64_t w = word_at(seed, i);
    std::memcpy(out + off, &w, bytes - off < 8 ? bytes - off : 8);
  }
}

std::size_t first_mismatch(const void* data, std::size_t bytes, std::uint64_t seed) {
  const auto* in = static_cast<const unsigned char*>(data);
  for (std::size_t off = 0, i = 0; off < bytes; off += 8, ++i) {
    const std::uint64_t w = word_at(seed, i);
    const std::size_t n = bytes - off < 8 ? bytes - off : 8;
    if (std::memcmp(in + off, &w, n) != 0) {
      const auto* wb = reinterpret_cast<const unsigned char*>(&w);
      for (std::size_t k = 0; k < n; ++k) {
        if (in[off + k] != wb[k]) return off + k;
      }
    }
  }
  return bytes;
}

}  // namespace xb::pingpong
