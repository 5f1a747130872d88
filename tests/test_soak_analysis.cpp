// soak analysis on synthesized soaks (a sample every 60 s over 8 h, three
// cells, 0.3% gaussian noise from a fixed seed): a planted drift, steps,
// a throttle span, an XID and an ECC increase are found with their times;
// a steady soak finds nothing.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <future>
#include <memory>
#include <thread>
#include <functional>
#include <random>

#include <fmt/format.h>

#include "machine/nvml.hpp"
#include "soak/soak_analysis.hpp"

namespace {

using namespace xb::soak;

constexpr double kPeriod = 60, kHours = 8;
const char* const kBw = "host_to_device_memcpy_ce[0,0]";
const char* const kBw2 = "device_to_host_memcpy_ce[0,0]";
const char* const kLat = "device_local_copy_latency[0,0]";

std::string utc(double t) {
  const int s = static_cast<int>(t);
  return fmt::format("2026-11-25T{:02}:{:02}:{:02}.000Z", 4 + s / 3600, s / 60 % 60, s % 60);
}

// Factor applied to a cell's value at time t; telemetry of gpu0 at t.
using Shape = std::function<double(const std::string& cell, double t)>;
using Tele = std::function<void(GpuTelemetry&, double t)>;

// Three cells per round, 1 s apart, 0.3% noise.
SoakFile soak(const Shape& shape = {}, const Tele& tele = {}, unsigned seed = 42) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0, 0.003);
  SoakFile f;
  f.header.cases = {"host_to_device_memcpy_ce", "device_to_host_memcpy_ce", "device_local_copy_latency"};
  f.header.duration_s = kHours * 3600;
  int round = 0;
  for (double t0 = 0; t0 <= kHours * 3600; t0 += kPeriod) {
    ++round;
    int i = 0;
    for (const auto& [cell, unit, base] : {std::tuple{kBw, "gbps", 55.0}, {kBw2, "gbps", 52.0}, {kLat, "ns", 2000.0}}) {
      Sample s;
      s.t_s = t0 + i++;
      s.time_utc = utc(s.t_s);
      s.round = round;
      s.cell = cell;
      s.unit = unit;
      s.value = base * (1 + noise(rng)) * (shape ? shape(cell, s.t_s) : 1.0);
      GpuTelemetry g;
      g.gpu = 0;
      g.clock_reasons = 0;
      g.ecc_corrected = 0;
      g.ecc_uncorrected = 0;
      g.pcie_replays = 0;
      g.row_remap_pending = false;
      if (tele) tele(g, s.t_s);
      s.telemetry = {g};
      f.samples.push_back(s);
    }
  }
  return f;
}

const CellSummary& cell(const SoakSummary& s, const std::string& name) {
  for (const CellSummary& c : s.cells)
    if (c.cell == name) return c;
  throw std::runtime_error("no cell " + name);
}

std::string lines(const SoakSummary& s) {
  std::string out;
  for (const auto& l : s.finding_lines) out += l + "\n";
  return out;
}

TEST(SoakAnalysis, SteadySoakFindsNothing) {
  const SoakSummary s = analyze(soak());
  ASSERT_EQ(s.cells.size(), 3u);
  EXPECT_EQ(s.cells[0].cell, kBw);  // in the order cells first appear
  EXPECT_EQ(s.cells[2].cell, kLat);
  EXPECT_EQ(s.rounds, 481);
  EXPECT_DOUBLE_EQ(s.duration_s, 8 * 3600 + 2);
  for (const CellSummary& c : s.cells) {
    EXPECT_EQ(c.samples, 481);
    EXPECT_EQ(c.failed, 0);
    EXPECT_LT(std::abs(c.slope_pct_per_hour), 0.05) << c.cell;
    EXPECT_LT(c.slope_low, c.slope_high);
    EXPECT_FALSE(c.drift) << c.cell;
    EXPECT_FALSE(c.worse) << c.cell;
    EXPECT_TRUE(c.steps.empty()) << c.cell;
    EXPECT_LE(c.min, c.median);
    EXPECT_LE(c.median, c.max);
  }
  EXPECT_NEAR(cell(s, kBw).median, 55.0, 0.1);
  EXPECT_TRUE(s.episodes.empty());
  EXPECT_FALSE(s.findings) << lines(s);
  EXPECT_TRUE(s.finding_lines.empty());
}

TEST(SoakAnalysis, PlantedDriftIsFoundAsDriftNotSteps) {
  // +0.5 %/h on the bandwidth cell (better), latency up 0.5 %/h (worse).
  const SoakSummary s = analyze(soak([](const std::string& c, double t) {
    return c == kBw2 ? 1.0 : 1 + 0.005 * t / 3600;
  }));
  for (const char* name : {kBw, kLat}) {
    const CellSummary& c = cell(s, name);
    EXPECT_GT(c.slope_pct_per_hour, 0.4) << name;
    EXPECT_LT(c.slope_pct_per_hour, 0.6) << name;
    EXPECT_LT(c.slope_low, c.slope_pct_per_hour);
    EXPECT_GT(c.slope_high, c.slope_pct_per_hour);
    EXPECT_GT(c.slope_low, 0);
    EXPECT_TRUE(c.drift) << name;
    EXPECT_TRUE(c.steps.empty()) << name;
  }
  EXPECT_FALSE(cell(s, kBw).worse);  // more bandwidth
  EXPECT_TRUE(cell(s, kLat).worse);  // more latency
  EXPECT_FALSE(cell(s, kBw2).drift);
  ASSERT_EQ(s.finding_lines.size(), 1u) << lines(s);
  EXPECT_NE(s.finding_lines[0].find(std::string(kLat) + ": +0.4"), std::string::npos) << lines(s);
  EXPECT_NE(s.finding_lines[0].find("%/h over 8.0 h (ci +0."), std::string::npos) << lines(s);
  // A drift the bad way on bandwidth, too; a steeper one is still no step.
  const SoakSummary down = analyze(soak([](const std::string& c, double t) {
    return c == kBw ? 1 - 0.03 * t / 3600 : 1.0;
  }));
  EXPECT_TRUE(cell(down, kBw).drift);
  EXPECT_TRUE(cell(down, kBw).worse);
  EXPECT_NEAR(cell(down, kBw).slope_pct_per_hour, -3.0 / 0.88, 0.3);  // % of the cell's median
  EXPECT_TRUE(cell(down, kBw).steps.empty());
  EXPECT_TRUE(down.findings);
}

// Five minutes, a sample every 5 s, a 3 %/h slope: clear in the interval,
// but 0.25 % over the soak, which a short soak cannot tell from wander; the
// same slope over 8 hours (24 %) is drift.
TEST(SoakAnalysis, ShortSoakSlopeMovingUnderOnePercentIsNotDrift) {
  auto sloped = [](double seconds, double step) {
    SoakFile f;
    f.header.cases = {"host_to_device_memcpy_ce"};
    int round = 0;
    for (double t = 0; t <= seconds; t += step) {
      Sample smp;
      smp.t_s = t;
      smp.round = ++round;
      smp.cell = kBw;
      smp.unit = "gbps";
      smp.value = 55.0 * (1 - 0.03 * t / 3600) * (1 + 0.0002 * ((round * 7) % 5 - 2));
      f.samples.push_back(smp);
    }
    return f;
  };
  const SoakSummary brief = analyze(sloped(300, 5));
  EXPECT_LT(cell(brief, kBw).slope_high, 0) << "the interval excludes 0";
  EXPECT_FALSE(cell(brief, kBw).drift);
  EXPECT_FALSE(brief.findings) << lines(brief);
  const SoakSummary longer = analyze(sloped(8 * 3600, 120));
  EXPECT_TRUE(cell(longer, kBw).drift);
  EXPECT_TRUE(longer.findings);
}

TEST(SoakAnalysis, PlantedStepsAreFoundAtTheirTime) {
  const double at = 3 * 3600;
  const SoakSummary s = analyze(soak([&](const std::string& c, double t) {
    if (t < at) return 1.0;
    return c == kBw ? 0.9 : c == kLat ? 1.1 : 1.0;
  }));
  const CellSummary& bw = cell(s, kBw);
  ASSERT_EQ(bw.steps.size(), 1u);
  EXPECT_NEAR(bw.steps[0].t_s, at, kPeriod);
  EXPECT_GE(bw.steps[0].t_s, at);  // the first sample after the change
  EXPECT_EQ(bw.steps[0].time_utc, utc(bw.steps[0].t_s));
  EXPECT_NEAR(bw.steps[0].change_pct, -10, 1);
  EXPECT_NEAR(bw.steps[0].before, 55, 0.5);
  EXPECT_NEAR(bw.steps[0].after, 49.5, 0.5);
  EXPECT_TRUE(bw.worse);
  const CellSummary& lat = cell(s, kLat);
  ASSERT_EQ(lat.steps.size(), 1u);
  EXPECT_NEAR(lat.steps[0].t_s, at, kPeriod);
  EXPECT_NEAR(lat.steps[0].change_pct, 10, 1);
  EXPECT_TRUE(lat.worse);
  EXPECT_TRUE(cell(s, kBw2).steps.empty());
  EXPECT_TRUE(s.findings);
  EXPECT_NE(lines(s).find(std::string(kBw) + ": step -9.9 % at 2026-11-25T07:00:00.000Z (t=10800 s), 54.99 -> 49.53 GB/s"), std::string::npos) << lines(s);
  // A step up on bandwidth is not worse; a dip and recovery is two steps.
  const SoakSummary up = analyze(soak([&](const std::string& c, double t) {
    return c == kBw && t >= at ? 1.1 : c == kBw2 && t >= 2 * 3600 && t < 4 * 3600 ? 0.8 : 1.0;
  }));
  ASSERT_EQ(cell(up, kBw).steps.size(), 1u);
  EXPECT_GT(cell(up, kBw).steps[0].change_pct, 0);
  EXPECT_FALSE(cell(up, kBw).worse);
  const CellSummary& dip = cell(up, kBw2);
  ASSERT_EQ(dip.steps.size(), 2u);
  EXPECT_NEAR(dip.steps[0].t_s, 2 * 3600, kPeriod);
  EXPECT_NEAR(dip.steps[1].t_s, 4 * 3600, kPeriod);
  EXPECT_LT(dip.steps[0].change_pct, 0);
  EXPECT_GT(dip.steps[1].change_pct, 0);
  EXPECT_TRUE(up.findings);  // the dip's way down
}

TEST(SoakAnalysis, ThrottleSpanIsLinedUpWithItsSamples) {
  const SoakSummary s = analyze(soak({}, [](GpuTelemetry& g, double t) {
    if (t >= 2 * 3600 && t < 2.5 * 3600) g.clock_reasons = xb::clock_reason::sw_thermal | xb::clock_reason::gpu_idle;
    if (t > 6 * 3600 && t < 6 * 3600 + 120) g.clock_reasons = xb::clock_reason::gpu_idle;  // not a slowdown
  }));
  ASSERT_EQ(s.episodes.size(), 1u);
  const Episode& e = s.episodes[0];
  EXPECT_EQ(e.kind, "throttle");
  EXPECT_EQ(e.gpu, 0);
  EXPECT_EQ(e.start_s, 2 * 3600);
  EXPECT_EQ(e.end_s, 2.5 * 3600 - kPeriod + 2);  // the last throttled sample
  EXPECT_EQ(e.start_utc, utc(e.start_s));
  EXPECT_EQ(e.end_utc, utc(e.end_s));
  EXPECT_EQ(e.detail, "sw_thermal_slowdown");
  EXPECT_EQ(e.cells, (std::vector<std::string>{kBw, kBw2, kLat}));
  EXPECT_EQ(e.samples, 30 * 3);
  EXPECT_TRUE(s.findings);
  EXPECT_NE(lines(s).find("gpu0 throttle (sw_thermal_slowdown) from 2026-11-25T06:00:00.000Z"), std::string::npos)
      << lines(s);
  EXPECT_NE(lines(s).find("touched 90 samples of 3 cells"), std::string::npos) << lines(s);
}

TEST(SoakAnalysis, XidEccRemapAndReplaysAreEpisodes) {
  const SoakSummary s = analyze(soak({}, [](GpuTelemetry& g, double t) {
    if (t == 5 * 3600 + 1) g.xids = {79};
    if (t >= 3 * 3600 + 2) g.ecc_uncorrected = 2;
    if (t >= 4 * 3600) g.pcie_replays = 5;
    if (t >= 7 * 3600) g.row_remap_pending = true;
  }));
  ASSERT_EQ(s.episodes.size(), 4u);
  EXPECT_EQ(s.episodes[0].kind, "ecc");  // by start time
  EXPECT_EQ(s.episodes[0].start_s, 3 * 3600 + 2);
  EXPECT_EQ(s.episodes[0].detail, "+2 uncorrected");
  EXPECT_EQ(s.episodes[0].cells, std::vector<std::string>{kLat});
  EXPECT_EQ(s.episodes[1].kind, "pcie_replay");
  EXPECT_EQ(s.episodes[1].detail, "+5 replays");
  const Episode& x = s.episodes[2];
  EXPECT_EQ(x.kind, "xid");
  EXPECT_EQ(x.start_s, 5 * 3600 + 1);
  EXPECT_EQ(x.end_s, x.start_s);
  EXPECT_EQ(x.detail, "XID 79");
  EXPECT_EQ(x.samples, 1);
  EXPECT_EQ(x.cells, std::vector<std::string>{kBw2});
  EXPECT_EQ(s.episodes[3].kind, "row_remap");
  EXPECT_EQ(s.episodes[3].detail, "remap pending");
  EXPECT_NE(lines(s).find("gpu0 XID 79 at 2026-11-25T09:00:01.000Z (t=18001 s), touched 1 sample of 1 cell"),
            std::string::npos)
      << lines(s);
  EXPECT_TRUE(s.findings);
}

TEST(SoakAnalysis, FailedAndWeakLoadSamplesAreCounted) {
  SoakFile f = soak();
  int n = 0;
  for (Sample& x : f.samples) {
    if (x.cell != kLat) continue;
    ++n;
    x.load_pct = n <= 7 ? 30.0 : 80.0;
    if (n == 100) x.error = "cudaErrorLaunchFailure", x.value = 0;
    if (n == 101) x.verified = false;
  }
  const SoakSummary s = analyze(f);
  const CellSummary& lat = cell(s, kLat);
  EXPECT_EQ(lat.weak_load_samples, 7);
  EXPECT_EQ(lat.failed, 2);
  EXPECT_EQ(lat.samples, 481);
  EXPECT_GT(lat.min, 1900);  // the failed sample's value is not in the stats
  EXPECT_EQ(cell(s, kBw).weak_load_samples, 0);
  EXPECT_TRUE(s.findings);
  EXPECT_NE(lines(s).find(std::string(kLat) + ": 2 of 481 samples failed"), std::string::npos) << lines(s);
  EXPECT_NE(lines(s).find(std::string(kLat) + ": 7 of 481 samples under a load below 50% of its peak"),
            std::string::npos)
      << lines(s);
}

TEST(SoakAnalysis, ManySamplesStayDeterministic) {
  // 20000 samples of one cell: the slope uses a fixed subsample of pairs.
  SoakFile f;
  std::mt19937 rng(1);
  std::normal_distribution<double> noise(0, 0.003);
  for (int i = 0; i < 20000; ++i) {
    Sample s;
    s.t_s = i * 2.0;
    s.cell = kBw;
    s.unit = "gbps";
    s.value = 50 * (1 + noise(rng)) * (1 - 0.01 * s.t_s / 3600);
    f.samples.push_back(s);
  }
  const SoakSummary a = analyze(f), b = analyze(f);
  EXPECT_NEAR(a.cells[0].slope_pct_per_hour, -1.0 / 0.9445, 0.05);
  EXPECT_EQ(a.cells[0].slope_pct_per_hour, b.cells[0].slope_pct_per_hour);
  EXPECT_TRUE(a.cells[0].steps.empty());
}

TEST(SoakAnalysis, EmptySoakAndFailedCells) {
  EXPECT_FALSE(analyze(SoakFile{}).findings);
  SoakFile f = soak();
  for (Sample& x : f.samples)
    if (x.cell == kBw) x.error = "waived";
  const SoakSummary s = analyze(f);
  EXPECT_EQ(cell(s, kBw).failed, 481);
  EXPECT_EQ(cell(s, kBw).median, 0);
  EXPECT_TRUE(s.findings);
}


// With 633 or more samples of a cell at one time (a merged or
// hand-made file) every pair the slope drew had no time between its two
// samples, and the draws went on for ever. The analysis must end: it runs
// on its own thread here, so a hang fails this test instead of stalling
// the suite (the wait is a generous cap, not a timing).
TEST(SoakAnalysis, ManySamplesAtOneTimeEnd) {
  SoakFile f;
  for (int i = 0; i < 700; ++i) {
    Sample s;
    s.t_s = 100;
    s.cell = kBw;
    s.unit = "gbps";
    s.value = 50 + i % 7;
    f.samples.push_back(s);
  }
  auto done = std::make_shared<std::promise<SoakSummary>>();
  std::future<SoakSummary> result = done->get_future();
  std::thread([f, done] { done->set_value(analyze(f)); }).detach();
  ASSERT_EQ(result.wait_for(std::chrono::minutes(2)), std::future_status::ready) << "the analysis did not end";
  const SoakSummary s = result.get();
  ASSERT_EQ(s.cells.size(), 1u);
  EXPECT_EQ(s.cells[0].samples, 700);
  EXPECT_EQ(s.cells[0].slope_pct_per_hour, 0);  // no time passed: no trend
  EXPECT_FALSE(s.cells[0].drift);
}

// A counter that rises in every one of 20000 readings is 19999 episodes,
// each touching the one sample at its time (counted by bisection over the
// readings in time order, not a pass over all of them per episode).
TEST(SoakAnalysis, AnEpisodeInEveryReadingIsCountedOnce) {
  SoakFile f;
  for (int i = 0; i < 20000; ++i) {
    Sample s;
    s.t_s = i;
    s.cell = i % 2 ? kBw : kLat;
    s.unit = i % 2 ? "gbps" : "ns";
    s.value = 50;
    GpuTelemetry t;
    t.ecc_corrected = static_cast<std::uint64_t>(i);
    s.telemetry = {t};
    f.samples.push_back(s);
  }
  const SoakSummary s = analyze(f);
  ASSERT_EQ(s.episodes.size(), 19999u);
  EXPECT_EQ(s.episodes[5].samples, 1);
  EXPECT_EQ(s.episodes[5].detail, "+1 corrected");
}

}  // namespace
