#include <gtest/gtest.h>

#include "base/error.hpp"
#include "base/units.hpp"

using xb::Error;
using xb::ErrorKind;

TEST(ParseSize, PlainAndBinarySuffixes) {
  EXPECT_EQ(xb::parse_size("0"), 0u);
  EXPECT_EQ(xb::parse_size("4096"), 4096u);
  EXPECT_EQ(xb::parse_size("1K"), 1024u);
  EXPECT_EQ(xb::parse_size("1k"), 1024u);
  EXPECT_EQ(xb::parse_size("64KiB"), 64u * 1024);
  EXPECT_EQ(xb::parse_size("32M"), 32u << 20);
  EXPECT_EQ(xb::parse_size("2GB"), 2ull << 30);
  EXPECT_EQ(xb::parse_size("1T"), 1ull << 40);
  EXPECT_EQ(xb::parse_size("512B"), 512u);
}

TEST(ParseSize, RejectsMalformedWithTheText) {
  for (const char* bad : {"", "K", "-1", "1.5G", "12Q", "1KK", " 1", "1 K"}) {
    try {
      xb::parse_size(bad, "size");
      FAIL() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::usage);
      EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos) << e.what();
    }
  }
}

TEST(ParseSize, RejectsOverflow) {
  EXPECT_THROW(xb::parse_size("18446744073709551616"), Error);
  EXPECT_THROW(xb::parse_size("17179869184G"), Error);
  EXPECT_EQ(xb::parse_size("16777215T"), 16777215ull << 40);
}

TEST(ParseIntList, CommaSeparated) {
  EXPECT_EQ(xb::parse_int_list("1,0", "pair"), (std::vector<int>{1, 0}));
  EXPECT_EQ(xb::parse_int_list("7", "x"), (std::vector<int>{7}));
  EXPECT_THROW(xb::parse_int_list("1,", "x"), Error);
  EXPECT_THROW(xb::parse_int_list("a,1", "x"), Error);
}

TEST(BytesLabel, ExactBinaryUnits) {
  EXPECT_EQ(xb::bytes_label(512ull << 20), "512 MiB");
  EXPECT_EQ(xb::bytes_label(1000), "1000 B");
  EXPECT_EQ(xb::bytes_label(1ull << 30), "1 GiB");
}

TEST(ExitCodes, DocumentedValues) {
  EXPECT_EQ(xb::exit_code(ErrorKind::verification), 1);
  EXPECT_EQ(xb::exit_code(ErrorKind::usage), 2);
  EXPECT_EQ(xb::exit_code(ErrorKind::no_device), 3);
  EXPECT_EQ(xb::exit_code(ErrorKind::resources), 4);
  EXPECT_EQ(xb::exit_code(ErrorKind::nvml), 5);
}
