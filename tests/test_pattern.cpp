#include <gtest/gtest.h>

#include <vector>

#include "base/pattern.hpp"

TEST(Pattern, SeedsAndIndicesDiffer) {
  EXPECT_NE(xb::pattern_word(1, 0), xb::pattern_word(2, 0));
  EXPECT_NE(xb::pattern_word(1, 0), xb::pattern_word(1, 1));
  EXPECT_EQ(xb::pattern_word(7, 123), xb::pattern_word(7, 123));
}

TEST(Pattern, HostFillVerifiesIncludingTail) {
  for (std::uint64_t bytes : {1ull, 3ull, 4ull, 17ull, 4099ull}) {
    std::vector<unsigned char> buf(bytes);
    xb::fill_pattern_host(buf.data(), bytes, 99);
    EXPECT_EQ(xb::verify_pattern_host(buf.data(), bytes, 99), bytes) << bytes;
    EXPECT_EQ(xb::verify_pattern_host(buf.data(), bytes, 98), 0u) << "another seed must not verify";
  }
}

TEST(Pattern, PlantedCorruptionIsFoundAtItsOffset) {
  std::vector<unsigned char> buf(1 << 16);
  xb::fill_pattern_host(buf.data(), buf.size(), 5);
  for (std::uint64_t off : {0ull, 1ull, 4097ull, 65535ull}) {
    std::vector<unsigned char> copy = buf;
    copy[off] ^= 0x10;
    EXPECT_EQ(xb::verify_pattern_host(copy.data(), copy.size(), 5), off);
  }
}
