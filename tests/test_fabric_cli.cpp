// The fabric command line, parsed in-process (no MPI): options reach the
// request, bad values are one usage line each, and --dry-run prints the
// plan for N nodes without a launch.
#include <gtest/gtest.h>

#include <algorithm>

#include "cli_parse.hpp"
#include "comm/launch_env.hpp"
#include "comm/mpi_comm.hpp"
#include "fabric/options.hpp"
#include "in_process.hpp"

#include <nlohmann/json.hpp>

namespace {

Parsed parse_fabric(std::vector<std::string> args) {
  args.insert(args.begin(), "fabric");
  return parse(std::move(args), xb::app::add_fabric_command);
}

TEST(FabricCli, OptionsReachTheRequest) {
  const Parsed p = parse_fabric({"--buffers", "host", "--size", "1M", "--window", "8", "--loop-count", "5", "--warmup",
                                 "0", "--latency-loop-count", "200", "--transport", "mpi", "--rails", "one",
                                 "--rounds", "4", "--seed", "9", "--min-ratio", "0.7", "--metric", "bandwidth",
                                 "--fail-on-culprit", "--timeout", "5"});
  ASSERT_EQ(p.code, -1) << p.err;
  EXPECT_EQ(p.command, "fabric");
  const auto o = std::any_cast<xb::fabric::Options>(p.plan);
  EXPECT_FALSE(o.buffers.gpu);
  EXPECT_EQ(o.bytes, 1u << 20);
  EXPECT_EQ(o.window, 8);
  EXPECT_EQ(o.bw_reps, 5);
  EXPECT_EQ(o.bw_warmup, 0);
  EXPECT_EQ(o.latency_reps, 200);
  EXPECT_EQ(o.transport, xb::pingpong::TransportKind::mpi);
  EXPECT_TRUE(o.rails_one);
  EXPECT_EQ(o.rounds, 4);
  EXPECT_EQ(o.seed, 9u);
  EXPECT_DOUBLE_EQ(o.min_ratio, 0.7);
  EXPECT_EQ(o.judge, xb::fabric::Judge::bandwidth);
  EXPECT_TRUE(o.fail_on_culprit);
  EXPECT_DOUBLE_EQ(o.timeout_s, 5);
}

TEST(FabricCli, DefaultsAreGpuBuffers64MiBAndAMinRatioOf85Percent) {
  const Parsed p = parse_fabric({});
  ASSERT_EQ(p.code, -1) << p.err;
  const auto o = std::any_cast<xb::fabric::Options>(p.plan);
  EXPECT_TRUE(o.buffers.gpu);
  EXPECT_EQ(o.bytes, 64u << 20);
  EXPECT_EQ(o.latency_bytes, 8u);
  EXPECT_DOUBLE_EQ(o.min_ratio, 0.85);
  EXPECT_FALSE(o.rails_one);
}

TEST(FabricCli, BadValuesAreOneUsageLineNamingTheValue) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--min-ratio", "1.2"}, "invalid --min-ratio '1.2'"},
      {{"--min-ratio", "0"}, "invalid --min-ratio '0'"},
      {{"--rails", "two"}, "invalid --rails 'two'"},
      {{"--metric", "speed"}, "invalid --metric 'speed'"},
      {{"--size", "0"}, "invalid --size '0'"},
      {{"--size", "3G"}, "invalid --size of 3221225472 bytes: at most 2 GiB - 1"},
      {{"--window", "0"}, "invalid --window '0'"},
      {{"--rounds", "-1"}, "invalid --rounds '-1'"},
      {{"--timeout", "0"}, "invalid --timeout '0'"},
      {{"--transport", "carrier-pigeon"}, "carrier-pigeon"},
      {{"--buffers", "disk"}, "invalid --buffers 'disk'"},
      {{"--dry-run"}, "--dry-run needs --nodes N"},
      {{"--nodes", "8"}, "--nodes applies to --dry-run only"},
      {{"--dry-run", "--nodes", "1"}, "--nodes"},
      {{"--dry-run", "--nodes", "8", "--format", "prometheus"}, "not --format prometheus"},
  };
  for (const auto& [args, words] : cases) {
    const Parsed p = parse_fabric(args);
    EXPECT_EQ(p.code, 2) << args[0] << ": " << p.err;
    EXPECT_NE(p.err.find(words), std::string::npos) << args[0] << ": " << p.err;
    EXPECT_EQ(std::count(p.err.begin(), p.err.end(), '\n') <= 2, true) << p.err;
  }
}

// Parses and runs `xferbench fabric ARGS` in-process, stdout captured.
InProcessRun run_fabric(std::vector<std::string> args) {
  xb::app::Context ctx;
  ctx.argv = {"xferbench"};
  auto app = xb::app::make_app(ctx);
  xb::app::add_fabric_command(*app, ctx);
  args.insert(args.begin(), "fabric");
  return run_parsed(*app, ctx, std::move(args));
}

TEST(FabricCli, DryRunPrintsThePlanAndItsEstimateForNNodes) {
  const InProcessRun r =
      run_fabric({"--dry-run", "--nodes", "1024", "--ranks-per-node", "8", "--rounds", "16", "--assume-gbps", "50"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("# xferbench fabric: 1024 nodes x 8 rails; GPU buffers, transport auto"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("16 rounds of random matchings (seed 1): each node meets 16 others"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("8192 node pairs, 65536 pairs with rails, 16 rounds"), std::string::npos) << r.out;
  // 16 rounds x (2 x (0.5 s + 12 x 4 x 64 MiB at 50 GB/s) + 0.5 s + 1100 x 2 x 5 us)
  EXPECT_NE(r.out.find("# estimated time: 26 s, assuming 50 GB/s"), std::string::npos) << r.out;
  const InProcessRun small = run_fabric({"--dry-run", "--nodes", "9", "--format", "json"});
  ASSERT_EQ(small.code, 0) << small.err;
  const auto doc = nlohmann::json::parse(small.out);
  EXPECT_EQ(doc["schema"], "xferbench-fabric");
  EXPECT_EQ(doc["dry_run"], true);
  EXPECT_EQ(doc["plan"]["node_rounds"], 9);  // odd: a bye each round
  EXPECT_EQ(doc["plan"]["node_pairs"], 36);
  EXPECT_EQ(doc["pairs"].size(), 0u);
}

TEST(FabricCli, WithoutALauncherItSaysHowToLaunchIt) {
  if (xb::comm::started_by_launcher(xb::comm::process_getenv)) GTEST_SKIP() << "this test runs under a launcher";
  const InProcessRun r = run_fabric({"--buffers", "host"});
  EXPECT_EQ(r.code, 6) << r.err;
  EXPECT_NE(r.err.find("xferbench fabric runs one MPI process per GPU on 2 or more nodes: launch it with srun"),
            std::string::npos)
      << r.err;
}

}  // namespace
