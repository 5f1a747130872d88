// The soak summary's text (compared whole, golden-style) and JSON for a
// small fixed summary, and the reporters of --format that print them.
#include <gtest/gtest.h>

#include <sstream>

#include "report/reporter.hpp"
#include "report/soak_report.hpp"


namespace {

using namespace xb::soak;

// The whole text, as a user sees it.
const char* const kGolden = R"(# xferbench soak on node1: started 2026-11-25T04:00:00.000Z, 8.00 h, 480 rounds, 2 cells
# trend: Theil-Sen slope in % of the cell's median per hour (95% interval); drift: at least the drift threshold, the interval excludes 0 and at least 1% moved over the soak
#cell                          samples failed weak        min     median        max unit  trend %/h                   steps
host_to_device_memcpy_ce[0,0]      480      1    0     49.100     54.950     55.400 GB/s  -1.35 (-1.64..-0.66) drift  -9.9% at 2026-11-25T07:00:00.000Z (t=10800 s)
device_local_copy_latency[0,0]     480      0    2       1980       2001       2030 ns    +0.01 (-0.02..+0.03)        -
# episodes: 2
gpu1 throttle sw_thermal_slowdown from 2026-11-25T06:00:00.000Z to 2026-11-25T06:29:02.000Z (t=7200..8942 s): 60 samples of host_to_device_memcpy_ce[0,0], device_local_copy_latency[0,0]
gpu0 xid XID 79 at 2026-11-25T09:00:01.000Z (t=18001 s): 1 sample of host_to_device_memcpy_ce[0,0]
# finding: host_to_device_memcpy_ce[0,0]: -1.35 %/h over 8.0 h (ci -1.64..-0.66)
# finding: gpu0 XID 79 at ...
# FINDINGS: 2
)";

SoakSummary fixed_summary() {
  SoakSummary s;
  s.duration_s = 28800;
  s.rounds = 480;
  CellSummary bw;
  bw.cell = "host_to_device_memcpy_ce[0,0]";
  bw.unit = "gbps";
  bw.samples = 480;
  bw.failed = 1;
  bw.min = 49.1;
  bw.median = 54.95;
  bw.max = 55.4;
  bw.slope_pct_per_hour = -1.35;
  bw.slope_low = -1.64;
  bw.slope_high = -0.66;
  bw.drift = true;
  bw.worse = true;
  bw.steps = {{10800, "2026-11-25T07:00:00.000Z", 54.99, 49.53, -9.93}};
  CellSummary lat;
  lat.cell = "device_local_copy_latency[0,0]";
  lat.unit = "ns";
  lat.samples = 480;
  lat.weak_load_samples = 2;
  lat.min = 1980;
  lat.median = 2001;
  lat.max = 2030;
  lat.slope_pct_per_hour = 0.01;
  lat.slope_low = -0.02;
  lat.slope_high = 0.03;
  s.cells = {bw, lat};
  Episode x;
  x.kind = "xid";
  x.gpu = 0;
  x.start_s = x.end_s = 18001;
  x.start_utc = x.end_utc = "2026-11-25T09:00:01.000Z";
  x.detail = "XID 79";
  x.cells = {"host_to_device_memcpy_ce[0,0]"};
  x.samples = 1;
  Episode t;
  t.kind = "throttle";
  t.gpu = 1;
  t.start_s = 7200;
  t.end_s = 8942;
  t.start_utc = "2026-11-25T06:00:00.000Z";
  t.end_utc = "2026-11-25T06:29:02.000Z";
  t.detail = "sw_thermal_slowdown";
  t.cells = {"host_to_device_memcpy_ce[0,0]", "device_local_copy_latency[0,0]"};
  t.samples = 60;
  s.episodes = {t, x};
  s.findings = true;
  s.finding_lines = {"host_to_device_memcpy_ce[0,0]: -1.35 %/h over 8.0 h (ci -1.64..-0.66)", "gpu0 XID 79 at ..."};
  return s;
}

TEST(SoakReport, TextTable) {
  Header h;
  h.host = "node1";
  h.start_time_utc = "2026-11-25T04:00:00.000Z";
  std::ostringstream out;
  xb::report::print_soak_summary(out, fixed_summary(), h);
  EXPECT_EQ(out.str(), kGolden);
}

TEST(SoakReport, FailedCellAndSteadyVerdict) {
  SoakSummary s;
  s.duration_s = 3600;
  s.rounds = 1;
  CellSummary c;
  c.cell = "c[0,0]";
  c.unit = "gbps";
  c.samples = c.failed = 1;
  s.cells = {c};
  s.findings = true;
  s.finding_lines = {"c[0,0]: 1 of 1 samples failed"};
  std::ostringstream out;
  xb::report::print_soak_summary(out, s, Header{});
  EXPECT_NE(out.str().find("\nc[0,0]       1      1    0          -          -          - GB/s  -          -\n"),
            std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("# FINDINGS: 1\n"), std::string::npos) << out.str();
  std::ostringstream steady;
  xb::report::print_soak_summary(steady, SoakSummary{}, Header{});
  EXPECT_NE(steady.str().find("# episodes: 0\n# steady: no drift, steps, episodes or failed samples\n"),
            std::string::npos)
      << steady.str();
}

TEST(SoakReport, Json) {
  const nlohmann::json j = xb::report::soak_summary_json(fixed_summary());
  EXPECT_EQ(j["rounds"], 480);
  EXPECT_EQ(j["findings"], true);
  EXPECT_EQ(j["finding_lines"].size(), 2u);
  ASSERT_EQ(j["cells"].size(), 2u);
  const auto& bw = j["cells"][0];
  EXPECT_EQ(bw["cell"], "host_to_device_memcpy_ce[0,0]");
  EXPECT_EQ(bw["median"], 54.95);
  EXPECT_EQ(bw["slope_pct_per_hour"], -1.35);
  EXPECT_EQ(bw["slope_low"], -1.64);
  EXPECT_EQ(bw["drift"], true);
  EXPECT_EQ(bw["steps"][0]["t_s"], 10800);
  EXPECT_EQ(bw["steps"][0]["change_pct"], -9.93);
  EXPECT_EQ(j["cells"][1]["weak_load_samples"], 2);
  ASSERT_EQ(j["episodes"].size(), 2u);
  EXPECT_EQ(j["episodes"][1]["kind"], "xid");
  EXPECT_EQ(j["episodes"][1]["detail"], "XID 79");
  EXPECT_EQ(j["episodes"][0]["cells"].size(), 2u);
  EXPECT_EQ(j["episodes"][0]["end_utc"], "2026-11-25T06:29:02.000Z");
}

// soak --format text|json prints through the reporter of that format, as
// every command does: the text reporter gives the table, the JSON reporter
// the summary document indented as every JSON result.
TEST(SoakReport, ReportersOfEachFormatPrintTheSummary) {
  Header h;
  h.host = "node1";
  h.start_time_utc = "2026-11-25T04:00:00.000Z";
  std::ostringstream text, json, csv;
  xb::report::make_reporter("text", text)->soak(fixed_summary(), h);
  EXPECT_EQ(text.str(), kGolden);
  xb::report::make_reporter("json", json)->soak(fixed_summary(), h);
  EXPECT_EQ(json.str(), xb::report::soak_summary_json(fixed_summary()).dump(2) + "\n");
  // A format with no view of a soak prints nothing (the command offers text and json).
  xb::report::make_reporter("csv", csv)->soak(fixed_summary(), h);
  EXPECT_EQ(csv.str(), "");
}

}  // namespace
