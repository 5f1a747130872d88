// Cells nvbandwidth measures another way than xferbench: the
// fan cases' total on three or more GPUs (nvbandwidth's timing) and the
// split-warp host cases (nvbandwidth's in-place order; in the all-GPU
// cases also interferers only as long as the measured copy). The plan
// carries nvbandwidth's scenario, the runner measures it too, and the text
// and JSON say where the two ways part by more than 3%.
#include <gtest/gtest.h>

#include <sstream>

#include <fmt/format.h>

#include "cases/case_plan.hpp"
#include "cases/cases.hpp"
#include "cases/runner.hpp"
#include "fake_source.hpp"
#include "fake_system.hpp"
#include "records/run_json.hpp"
#include "render.hpp"
#include "report/reporter.hpp"

namespace {

using xb::select_cases;

const xb::CaseDef& named(const std::string& name) { return *select_cases({name}, {}).at(0); }

xb::RunResult run_named(FakeSource& src, const std::vector<std::string>& names) {
  xb::RunRequest req;
  for (const auto& n : names) req.cases.push_back(&named(n));
  req.buffer_bytes = 64 << 20;
  return xb::run_cases(src, req, {}, xb::RunControls{});
}

TEST(NvbandwidthWay, FanCellsOfSeveralPeersCarryNvbandwidthTiming) {
  for (const char* name : {"all_to_one_read_ce", "one_to_all_write_ce", "all_to_one_write_sm", "one_to_all_read_sm"}) {
    const auto four = xb::plan_case(named(name), fake_system(4), 1 << 20);
    ASSERT_EQ(four.cells.size(), 4u) << name;
    for (const auto& c : four.cells) {
      ASSERT_TRUE(c.nvbandwidth.has_value()) << name;
      EXPECT_EQ(c.nvbandwidth->timing, xb::Timing::nvbandwidth);
      EXPECT_EQ(c.scenario.timing, xb::Timing::gate);
      ASSERT_EQ(c.nvbandwidth->transfers.size(), c.scenario.transfers.size());
      for (std::size_t i = 0; i < c.scenario.transfers.size(); ++i)
        EXPECT_EQ(c.nvbandwidth->transfers[i].label, c.scenario.transfers[i].label);
      EXPECT_NE(c.nvbandwidth_why.find("warm-up"), std::string::npos);
    }
    // One peer: one stream, and the two timings measure the same thing.
    for (const auto& c : xb::plan_case(named(name), fake_system(2), 1 << 20).cells)
      EXPECT_FALSE(c.nvbandwidth.has_value()) << name;
  }
}

TEST(NvbandwidthWay, EveryGpuWritingToTheHostBySmIsMeasuredNvbandwidthsWayToo) {
  const auto four = xb::plan_case(named("all_to_host_memcpy_sm"), fake_system(4), 1 << 20);
  ASSERT_EQ(four.cells.size(), 4u);
  for (const auto& c : four.cells) {
    ASSERT_TRUE(c.nvbandwidth.has_value());
    EXPECT_EQ(c.nvbandwidth->timing, xb::Timing::nvbandwidth);
    EXPECT_EQ(c.scenario.timing, xb::Timing::gate);
    ASSERT_EQ(c.nvbandwidth->transfers.size(), 4u);
    EXPECT_EQ(c.nvbandwidth->transfers[0].repeat, 1);
    for (std::size_t i = 1; i < 4; ++i) EXPECT_EQ(c.nvbandwidth->transfers[i].repeat, 2);  // twice as long
    for (const auto& t : c.nvbandwidth->transfers) {
      EXPECT_FALSE(t.repeat_in_place);
      EXPECT_TRUE(t.nvbandwidth_kernel);  // nvbandwidth's kernel shape
    }
    for (const auto& t : c.scenario.transfers) EXPECT_FALSE(t.nvbandwidth_kernel);
    EXPECT_NE(c.nvbandwidth_why.find("16 copies in one kernel"), std::string::npos);
  }
  // One GPU writes alone; reading from the host, and the copy engines, agree.
  for (const auto& c : xb::plan_case(named("all_to_host_memcpy_sm"), fake_system(1), 1 << 20).cells)
    EXPECT_FALSE(c.nvbandwidth.has_value());
  for (const char* name : {"host_to_all_memcpy_sm", "all_to_host_memcpy_ce"})
    for (const auto& c : xb::plan_case(named(name), fake_system(4), 1 << 20).cells)
      EXPECT_FALSE(c.nvbandwidth.has_value()) << name;
}

TEST(NvbandwidthWay, SplitWarpCellsWalkTheBufferAndMeasureNvbandwidthsInPlaceOrderToo) {
  for (const char* name : {"host_to_all_bidirectional_memcpy_sm", "all_to_host_bidirectional_memcpy_sm"}) {
    const auto plan = xb::plan_case(named(name), fake_system(4), 1 << 20);
    ASSERT_EQ(plan.cells.size(), 4u);
    for (const auto& c : plan.cells) {
      ASSERT_TRUE(c.nvbandwidth.has_value()) << name;
      ASSERT_EQ(c.scenario.transfers.size(), 4u);
      ASSERT_EQ(c.nvbandwidth->transfers.size(), 4u);
      for (std::size_t i = 0; i < 4; ++i) {
        EXPECT_FALSE(c.scenario.transfers[i].repeat_in_place) << name;     // xferbench: whole-buffer passes
        EXPECT_TRUE(c.nvbandwidth->transfers[i].repeat_in_place) << name;  // nvbandwidth: each piece in place
      }
      for (std::size_t i = 1; i < 4; ++i) {
        EXPECT_EQ(c.scenario.transfers[i].repeat, 2) << name;       // xferbench: the interferers cover the copy
        EXPECT_EQ(c.nvbandwidth->transfers[i].repeat, 1) << name;  // nvbandwidth: as long as it
      }
      EXPECT_EQ(c.nvbandwidth->timing, xb::Timing::nvbandwidth);
      EXPECT_NE(c.nvbandwidth_why.find("only as long as this one"), std::string::npos);
    }
  }
  // One GPU, and the single-GPU split cells: the order differs, no interferer.
  for (const char* name : {"host_to_all_bidirectional_memcpy_sm", "host_to_device_bidirectional_memcpy_sm",
                           "device_to_host_bidirectional_memcpy_sm"})
    for (const auto& c : xb::plan_case(named(name), fake_system(1), 1 << 20).cells) {
      ASSERT_TRUE(c.nvbandwidth.has_value()) << name;
      ASSERT_EQ(c.nvbandwidth->transfers.size(), 1u) << name;
      EXPECT_TRUE(c.nvbandwidth->transfers[0].repeat_in_place) << name;
      EXPECT_EQ(c.nvbandwidth_why.find("only as long as this one"), std::string::npos) << name;
    }
  // The streaming cases are the own figure alone; copy-engine cases size
  // their interferers as nvbandwidth does.
  for (const char* name : {"host_to_all_bidirectional_memcpy_sm_streaming", "host_to_all_bidirectional_memcpy_ce",
                           "host_to_all_memcpy_ce", "device_to_device_bidirectional_memcpy_write_ce"})
    for (const auto& c : xb::plan_case(named(name), fake_system(4), 1 << 20).cells)
      EXPECT_FALSE(c.nvbandwidth.has_value()) << name;
}

TEST(NvbandwidthWay, MeasuredTooAndFlaggedOnlyBeyondThreePercent) {
  FakeSource src(4);
  src.nvbandwidth_timing = 1.2;  // nvbandwidth's way takes 20% longer: 1/1.2 of the figure
  const xb::RunResult run = run_named(src, {"all_to_one_read_ce", "host_to_device_memcpy_ce"});
  const xb::Cell& fan = run.cases.at(0).matrices.at(0).cells.at(0);
  ASSERT_TRUE(fan.nvbandwidth.has_value());
  EXPECT_NEAR(fan.nvbandwidth->ratio, 1 / 1.2, 1e-9);
  EXPECT_NEAR(fan.nvbandwidth->value, fan.value / 1.2, 1e-6);
  EXPECT_TRUE(fan.nvbandwidth->differs);
  EXPECT_EQ(fan.nvbandwidth->samples.size(), 3u);
  EXPECT_DOUBLE_EQ(xb::nvbandwidth_value(fan), fan.nvbandwidth->value);
  const xb::Cell& h2d = run.cases.at(1).matrices.at(0).cells.at(0);
  EXPECT_FALSE(h2d.nvbandwidth.has_value());
  EXPECT_DOUBLE_EQ(xb::nvbandwidth_value(h2d), h2d.value);

  const std::string text = xb::testing::rendered("text", [&](auto& f) { f.run_case(run.cases[0]); });
  EXPECT_NE(text.find("NVBANDWIDTH'S WAY"), std::string::npos) << text;
  EXPECT_NE(text.find("(-17%)"), std::string::npos) << text;

  FakeSource close(4);
  close.nvbandwidth_timing = 1.02;
  const xb::RunResult near = run_named(close, {"one_to_all_write_ce"});
  const xb::Cell& c = near.cases.at(0).matrices.at(0).cells.at(0);
  ASSERT_TRUE(c.nvbandwidth.has_value());
  EXPECT_FALSE(c.nvbandwidth->differs);
  const std::string quiet = xb::testing::rendered("text", [&](auto& f) { f.run_case(near.cases[0]); });
  EXPECT_EQ(quiet.find("NVBANDWIDTH'S WAY"), std::string::npos) << quiet;
}

// nvbandwidth's layouts print the figure measured its way; xferbench's
// own text prints its own.
TEST(NvbandwidthWay, NvbandwidthLayoutsPrintTheFigureMeasuredItsWay) {
  FakeSource src(4);
  src.nvbandwidth_timing = 1.25;
  // A host split-warp case: the fake's fan totals are above their peak.
  const xb::RunResult run = run_named(src, {"host_to_all_bidirectional_memcpy_sm"});
  const xb::Cell& c = run.cases.at(0).matrices.at(0).cells.at(0);
  ASSERT_TRUE(c.nvbandwidth.has_value());
  const std::string own = fmt::format("{:.2f}", c.value), nvb = fmt::format("{:.2f}", c.nvbandwidth->value);
  ASSERT_NE(own, nvb);
  for (const char* format : {"nvbandwidth", "nvbandwidth-json"}) {
    const std::string text = xb::testing::rendered(format, [&](auto& f) {
      f.run_begin(run);
      f.run_case(run.cases[0]);
      f.run(run);
    });
    const std::string json_nvb = fmt::format("{:g}", c.nvbandwidth->value);
    EXPECT_NE(text.find(std::string(format) == "nvbandwidth" ? nvb : json_nvb), std::string::npos) << format << text;
    EXPECT_EQ(text.find(own), std::string::npos) << format << text;
  }
  const std::string mine = xb::testing::rendered("text", [&](auto& f) { f.run_case(run.cases[0]); });
  EXPECT_NE(mine.find(own), std::string::npos) << mine;
}

TEST(NvbandwidthWay, JsonKeepsBothFiguresAndReadsBack) {
  FakeSource src(4);
  src.nvbandwidth_timing = 1.2;
  const xb::RunResult run = run_named(src, {"one_to_all_write_ce"});
  const std::string json = xb::records::run_json(run).dump();
  const xb::RunResult back = xb::records::decode_run(nlohmann::json::parse(json), "run.json");
  const xb::Cell& a = run.cases.at(0).matrices.at(0).cells.at(1);
  const xb::Cell& b = back.cases.at(0).matrices.at(0).cells.at(1);
  ASSERT_TRUE(b.nvbandwidth.has_value());
  EXPECT_DOUBLE_EQ(b.nvbandwidth->value, a.nvbandwidth->value);
  EXPECT_DOUBLE_EQ(b.nvbandwidth->ratio, a.nvbandwidth->ratio);
  EXPECT_TRUE(b.nvbandwidth->differs);
  EXPECT_EQ(b.nvbandwidth->why, a.nvbandwidth->why);
  EXPECT_EQ(b.nvbandwidth->samples, a.nvbandwidth->samples);
}

}  // namespace
