// The pingpong command line: seed spellings, option conversion and errors,
// parsed from string vectors without starting MPI.
#include <gtest/gtest.h>

#include <algorithm>

#include "app/seed_args.hpp"
#include "base/error.hpp"

namespace xb::app {
namespace {

TEST(PingpongCli, SeedSpellingsAreRewrittenOnlyAfterPingpong) {
  const std::vector<std::string> in = {"-dev1", "pingpong", "-dev1", "vh", "-dev2=ve", "-n", "25",
                                       "-loop_count", "10", "--loop_count=3", "--dev1x"};
  const std::vector<std::string> want = {"-dev1", "pingpong", "--dev1", "vh", "--dev2=ve", "-n", "25",
                                         "--loop-count", "10", "--loop-count=3", "--dev1x"};
  EXPECT_EQ(normalize_seed_args(in), want);
  EXPECT_EQ(normalize_seed_args({"run", "-dev1"}), (std::vector<std::string>{"run", "-dev1"}));
}

pingpong::Options parse(std::vector<std::string> args) {
  CLI::App app;
  PingpongArgs raw;
  add_pingpong_options(app, raw);
  args = normalize_seed_args(std::move(args));
  args.erase(args.begin());  // the subcommand name
  std::reverse(args.begin(), args.end());
  app.parse(args);
  return to_options(raw);
}

TEST(PingpongCli, TheSeedsCommandLineParses) {
  const auto o = parse({"pingpong", "-dev1", "vh", "-dev2", "ve", "-n", "20", "-loop_count", "7"});
  EXPECT_FALSE(o.dev1.gpu);
  EXPECT_TRUE(o.dev2.gpu);
  EXPECT_EQ(o.dev2.device, -1);
  EXPECT_EQ(o.num_sizes, 20);
  EXPECT_EQ(o.loop_count, 7);
  EXPECT_EQ(o.transport, pingpong::TransportKind::automatic);
}

TEST(PingpongCli, EveryOptionReachesTheOptions) {
  const auto o = parse({"pingpong", "--dev1", "gpu:1", "--dev2", "host", "--min-size", "1K", "-n", "4", "--warmup", "0",
                        "--transport", "staged", "--mode", "bibw", "--window", "16", "--all-pairs", "--cuda-aware",
                        "yes", "--timeout", "2.5", "--seed", "9", "--ll-max", "4K", "--staged-chunk", "1M"});
  EXPECT_EQ(o.dev1.device, 1);
  EXPECT_EQ(o.min_bytes, 1024u);
  EXPECT_EQ(o.warmup, 0);
  EXPECT_EQ(o.transport, pingpong::TransportKind::staged);
  EXPECT_EQ(o.mode, pingpong::Mode::bibw);
  EXPECT_EQ(o.window, 16);
  EXPECT_TRUE(o.all_pairs);
  EXPECT_EQ(o.cuda_aware, pingpong::CudaAware::yes);
  EXPECT_DOUBLE_EQ(o.timeout_s, 2.5);
  EXPECT_EQ(o.seed, 9u);
  EXPECT_EQ(o.ll_max_bytes, 4096u);
  EXPECT_EQ(o.stage_chunk_bytes, 1u << 20);
  EXPECT_EQ(parse({"pingpong", "--transport", "device", "--ll-max", "0"}).transport, pingpong::TransportKind::device);
}

// A huge window was a bad_alloc (exit 70); it is a usage error
// naming the value, found before MPI or any GPU starts.
TEST(PingpongCli, AHugeWindowIsAUsageErrorNamingIt) {
  try {
    parse({"pingpong", "--mode", "bw", "--window", "2000000000"});
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_NE(std::string(e.what()).find("--window 2000000000 is too large"), std::string::npos) << e.what();
  }
}

TEST(PingpongCli, BadValuesAreUsageErrors) {
  for (const auto& args : std::vector<std::vector<std::string>>{{"pingpong", "--dev1", "tpu"},
                                                                {"pingpong", "--transport", "tcp"},
                                                                {"pingpong", "-loop_count", "0"},
                                                                {"pingpong", "--cuda-aware", "maybe"},
                                                                {"pingpong", "-n", "40"},
                                                                {"pingpong", "--ll-max", "2M"},
                                                                {"pingpong", "--staged-chunk", "1"}}) {
    try {
      parse(args);
      ADD_FAILURE() << args[1] << " accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::usage) << e.what();
    }
  }
}

// CLI11 alone read "--seed -1" as 2^64 - 1 and "--seed ''" as 0.
TEST(PingpongCli, ASeedIsAWholeNumberThatFits) {
  for (const std::string seed : {"-1", "", "18446744073709551616", "0x10"}) {
    try {
      parse({"pingpong", "--seed", seed});
      ADD_FAILURE() << "--seed '" << seed << "' accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::usage) << e.what();
      EXPECT_NE(std::string(e.what()).find("invalid --seed '" + seed + "'"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(parse({"pingpong", "--seed", "18446744073709551615"}).seed, 18446744073709551615ull);
}

}  // namespace
}  // namespace xb::app
