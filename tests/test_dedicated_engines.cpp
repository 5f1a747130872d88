// The cases, options and helpers added with nvbandwidth v0.9/v0.10's
// features: TMA and read/write-only cases, huge pages, SM budget sweeps.
#include <gtest/gtest.h>

#include "cli_parse.hpp"
#include "cases/case_plan.hpp"
#include "cases/cases.hpp"
#include "base/error.hpp"
#include "machine/hugepages.hpp"
#include "machine/pairs.hpp"
#include "cases/runner.hpp"
#include "cases/sm_sweep.hpp"
#include "fake_source.hpp"
#include "fake_system.hpp"
#include "frontends/spec.hpp"

using xb::select_cases;

namespace {
const xb::CaseDef& named(const std::string& n) { return *select_cases({n}, {}).at(0); }
}  // namespace

TEST(DedicatedEngineCases, IndicesFrom39WithTheirOrigin) {
  const std::vector<std::pair<int, std::string>> added = {
      {39, "device_to_device_memcpy_read_tma"}, {40, "device_to_device_memcpy_write_tma"},
      {41, "device_to_device_latency_tma"},     {42, "device_local_copy_tma"},
      {43, "device_local_read_sm"},             {44, "device_local_write_sm"}};
  for (const auto& [index, name] : added) {
    const auto& d = *select_cases({std::to_string(index)}, {}).at(0);
    EXPECT_EQ(d.name, name);
    EXPECT_EQ(d.origin, xb::kOriginXferbench);
  }
  for (const auto* d : xb::suite_cases("full")) EXPECT_EQ(d->origin, xb::kOriginNvbandwidth);
  try {
    select_cases({"51"}, {});
    FAIL();
  } catch (const xb::Error& e) {
    EXPECT_NE(std::string(e.what()).find("the catalogue has 0-50"), std::string::npos) << e.what();
  }
  // Copy, TMA copy, read, write, and the local latency idle and under load.
  EXPECT_EQ(select_cases({}, {"device_local"}).size(), 6u);
}

TEST(DedicatedEngineCases, TmaNeedsComputeCapabilityNine) {
  auto sys = fake_system(2);
  EXPECT_FALSE(xb::waive_reason(named("device_local_copy_tma"), sys).has_value());
  for (auto& g : sys.gpus) g.cc_major = 8;
  const auto why = xb::waive_reason(named("device_local_copy_tma"), sys);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("Tensor Memory Accelerator"), std::string::npos);
  EXPECT_NE(why->find("gpu0 8.0"), std::string::npos) << *why;
  EXPECT_FALSE(xb::waive_reason(named("device_local_read_sm"), sys).has_value());
  // Mixed machine: only cells run by a GPU with a TMA are kept.
  sys.gpus[1].cc_major = 9;
  auto plan = xb::plan_case(named("device_to_device_memcpy_write_tma"), sys, 1 << 20);
  EXPECT_EQ(xb::restrict_plan(named("device_to_device_memcpy_write_tma"), sys, nullptr, plan), 1u);
  ASSERT_EQ(plan.cells.size(), 1u);
  EXPECT_EQ(plan.cells[0].scenario.transfers[0].exec_device, 1);
}

TEST(DedicatedEngineCases, PlansOfTheNewCases) {
  const auto sys = fake_system(2);
  auto p = xb::plan_case(named("device_to_device_memcpy_read_tma"), sys, 4096);
  ASSERT_EQ(p.cells.size(), 2u);
  EXPECT_EQ(p.cells[0].scenario.transfers[0].engine, xb::Engine::tma);
  EXPECT_EQ(p.cells[0].scenario.transfers[0].src.device, 1);  // row 0 reads column 1
  EXPECT_NEAR(p.cells[0].outputs[0].peak.gbps, 478.125, 1e-9);
  EXPECT_NE(p.matrices[0].title.find("TMA"), std::string::npos);
  p = xb::plan_case(named("device_to_device_latency_tma"), sys, 4096);
  EXPECT_TRUE(p.latency);
  EXPECT_NE(p.matrices[0].title.find("16-byte"), std::string::npos);
  for (const char* n : {"device_local_read_sm", "device_local_write_sm"}) {
    p = xb::plan_case(named(n), sys, 4096);
    ASSERT_EQ(p.cells.size(), 2u);
    EXPECT_DOUBLE_EQ(p.cells[1].outputs[0].peak.gbps, 4900);  // the memory figure, not a copy's half
    EXPECT_EQ(p.cells[1].scenario.transfers[0].exec_device, 1);
  }
  EXPECT_EQ(xb::plan_case(named("device_local_write_sm"), sys, 64).cells[0].scenario.transfers[0].engine,
            xb::Engine::sm_write);
}

TEST(DedicatedEngineCases, PairFilterOnlyTouchesPairwiseCases) {
  const auto sys = fake_system(4);
  const auto sel = xb::given_pairs({{1, 3}}, sys);
  auto p = xb::plan_case(named("device_to_device_bidirectional_memcpy_read_sm"), sys, 64);
  xb::restrict_plan(named("device_to_device_bidirectional_memcpy_read_sm"), sys, &sel, p);
  ASSERT_EQ(p.cells.size(), 1u);
  EXPECT_EQ(p.cells[0].row, 1);
  EXPECT_EQ(p.cells[0].col, 3);
  p = xb::plan_case(named("one_to_all_read_ce"), sys, 64);
  EXPECT_EQ(xb::restrict_plan(named("one_to_all_read_ce"), sys, &sel, p), 0u);
  EXPECT_TRUE(xb::uses_host_memory(xb::Pattern::host_device_latency));
  EXPECT_FALSE(xb::uses_host_memory(xb::Pattern::local_read));
  EXPECT_TRUE(xb::is_pairwise(xb::Pattern::d2d_latency));
  EXPECT_FALSE(xb::is_pairwise(xb::Pattern::all_to_one_read));
}

TEST(HugePages, PageSizeFromSmaps) {
  const std::string smaps =
      "00400000-00452000 r-xp 00000000 08:02 173521      /usr/bin/dbus-daemon\n"
      "Size:                328 kB\n"
      "KernelPageSize:        4 kB\n"
      "7f0000000000-7f0040000000 rw-p 00000000 00:0f 4242   /anon_hugepage (deleted)\n"
      "Size:            1048576 kB\n"
      "AnonHugePages:         0 kB\n"
      "KernelPageSize:     2048 kB\n"
      "VmFlags: rd wr mr mw me de ht\n";
  EXPECT_EQ(xb::kernel_page_bytes_in(smaps, 0x7f0000200000ull), 2u << 20);
  EXPECT_EQ(xb::kernel_page_bytes_in(smaps, 0x00401000ull), 4096u);
  EXPECT_EQ(xb::kernel_page_bytes_in(smaps, 0x1000ull), 0u);  // in no mapping
}

TEST(HugePages, ShortageSaysHowToFixIt) {
  EXPECT_EQ(xb::hugepages_for(1), 1u);
  EXPECT_EQ(xb::hugepages_for(512ull << 20), 256u);
  EXPECT_EQ(xb::hugepages_for((512ull << 20) + 1), 257u);
  const std::string none = xb::hugepage_shortage({0, 0}, 256);
  EXPECT_NE(none.find("none are reserved"), std::string::npos) << none;
  EXPECT_NE(none.find("sysctl vm.nr_hugepages=256"), std::string::npos) << none;
  const std::string few = xb::hugepage_shortage({300, 100}, 256);  // 200 in use + 256 wanted
  EXPECT_NE(few.find("100 free of 300"), std::string::npos) << few;
  EXPECT_NE(few.find("vm.nr_hugepages=456"), std::string::npos) << few;
  EXPECT_NE(xb::hugepage_shortage({}, 4).find("no 2 MiB hugetlb pool"), std::string::npos);
}

TEST(HugePages, SpecMemoryOption) {
  const auto r = xb::parse_transfer_spec("0:HtoD:64M:hugepages");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].memory, xb::MemKind::hugepages);
  EXPECT_THROW(xb::parse_transfer_spec("0:HtoD:hugepages,mapped"), xb::Error);
  EXPECT_STREQ(xb::to_string(xb::MemKind::hugepages), "hugepages");
  EXPECT_TRUE(xb::is_host(xb::MemKind::hugepages));
}

TEST(SmSweep, Counts) {
  EXPECT_EQ(xb::sm_counts("", {132}), (std::vector<int>{1, 2, 4, 8, 16, 32, 64, 128, 0}));
  EXPECT_EQ(xb::sm_counts("", {8}), (std::vector<int>{1, 2, 4, 0}));
  EXPECT_EQ(xb::sm_counts("32,all,8,8", {132, 132}), (std::vector<int>{8, 32, 0}));
  EXPECT_EQ(xb::sm_counts("132", {132}), (std::vector<int>{0}));  // every SM is the "all" point
  EXPECT_EQ(xb::sm_counts("114", {132, 114}), (std::vector<int>{114, 0}));
  for (const auto& [text, needle] : std::vector<std::pair<std::string, std::string>>{
           {"0", "gpu0 has 132 SMs"}, {"133", "gpu0 has 132 SMs"}, {"1,x", "expected SM counts"}}) {
    try {
      xb::sm_counts(text, {132});
      FAIL() << text;
    } catch (const xb::Error& e) {
      EXPECT_EQ(e.kind(), xb::ErrorKind::usage);
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  }
  try {
    xb::sm_counts("120", {132, 114});
    FAIL();
  } catch (const xb::Error& e) {
    EXPECT_NE(std::string(e.what()).find("gpu1 has 114 SMs"), std::string::npos) << e.what();
  }
}

TEST(SmSweep, ThresholdsAreTheSmallestCountsReachingThem) {
  xb::SmSeries s;
  for (const auto& [sms, gbps] : std::vector<std::pair<int, double>>{{1, 20}, {2, 40}, {4, 80}, {8, 150}, {16, 280},
                                                                     {32, 340}, {64, 370}, {132, 375}}) {
    xb::SmPoint p;
    p.sms = sms;
    p.value_gbps = gbps;
    s.points.push_back(p);
  }
  xb::finish_series(s);
  EXPECT_DOUBLE_EQ(s.all_sm_gbps, 375);
  EXPECT_EQ(s.sms_for_90, 32);  // 340 >= 337.5
  EXPECT_EQ(s.sms_for_95, 64);  // 370 >= 356.25
  EXPECT_NEAR(s.points[4].of_all, 280.0 / 375, 1e-12);
}

// The SM-limited sweep on the fake source: a host link saturates from 4 SMs,
// a GPU's memory from 64 (fake_source.hpp); the curve, its marks, the GB/s
// per SM and the named case measured again.
TEST(SmSweep, FakeSourceCurveMarksAndNamedCase) {
  FakeSource src(1);
  xb::SmSweepRequest req;
  req.bytes = 64ull << 20;
  req.def = xb::sm_sweep_case("host_to_device_memcpy_sm");
  const xb::SmSweepResult host = xb::sweep_sms(src, req);
  ASSERT_EQ(host.status, xb::SweepStatus::passed) << (host.messages.empty() ? "" : host.messages[0]);
  EXPECT_EQ(host.sms, (std::vector<int>{1, 2, 4, 8, 16, 32, 64, 128, 0}));
  ASSERT_EQ(host.series.size(), 1u);
  const xb::SmSeries& h = host.series[0];
  ASSERT_EQ(h.points.size(), 9u);
  EXPECT_EQ(h.points.back().sms, 132);
  EXPECT_NEAR(h.points[0].value_gbps, 12.5, 0.1);
  EXPECT_NEAR(h.points[1].of_all, 0.5, 0.01);
  EXPECT_EQ(h.sms_for_90, 4);
  EXPECT_EQ(h.sms_for_95, 4);
  EXPECT_NEAR(h.per_sm_gbps, 12.5, 0.1);
  EXPECT_NEAR(h.named_gbps, h.all_sm_gbps, 1e-9);
  EXPECT_FALSE(h.disagrees);
  req.def = xb::sm_sweep_case("device_local_read_sm");
  req.sms_text = "16,32,48,64,all";
  const xb::SmSweepResult local = xb::sweep_sms(src, req);
  ASSERT_EQ(local.series.size(), 1u);
  EXPECT_EQ(local.series[0].sms_for_90, 64);  // 48 SMs give 75%
  EXPECT_EQ(local.series[0].sms_for_95, 64);
  EXPECT_NEAR(local.series[0].per_sm_gbps, 350.0 / 64, 0.05);
}

// A GPU that slows down during the sweep: the named case measured again
// no longer matches the all-SM point, and the sweep fails naming the curve.
TEST(SmSweep, AllSmPointThatDisagreesWithTheNamedCaseFails) {
  class Drifting : public FakeSource {
   public:
    Drifting() : FakeSource(1) {}
    void set_sm_limit(int sms) override {
      FakeSource::set_sm_limit(sms);
      unlimited_ += sms == 0 ? 1 : 0;
    }
    double limited(double gbps) const override { return FakeSource::limited(gbps) * (unlimited_ > 1 ? 0.9 : 1.0); }

   private:
    int unlimited_ = 0;
  } src;
  xb::SmSweepRequest req;
  req.bytes = 64ull << 20;
  req.def = xb::sm_sweep_case("device_local_write_sm");
  req.sms_text = "1,all";
  const xb::SmSweepResult r = xb::sweep_sms(src, req);
  EXPECT_EQ(r.status, xb::SweepStatus::failed);
  ASSERT_EQ(r.series.size(), 1u);
  EXPECT_TRUE(r.series[0].disagrees);
  EXPECT_NEAR(r.series[0].named_gbps / r.series[0].all_sm_gbps, 0.9, 1e-6);
  ASSERT_EQ(r.messages.size(), 1u);
  EXPECT_NE(r.messages[0].find("differs from the named case"), std::string::npos) << r.messages[0];
}

// A cell above its link's peak is marked invalid by the runner's check and
// fails the case; the curve leaves it out instead of plotting it.
TEST(SmSweep, PointsAboveThePeakAreLeftOut) {
  xb::SmSweepResult out;
  out.system = fake_system(2);
  xb::CaseResult c;
  c.name = "device_to_device_memcpy_write_sm";
  xb::Matrix m;
  m.name = "write";
  m.row_labels = {"gpu0", "gpu1"};
  m.col_labels = {"gpu0", "gpu1"};
  for (const double gbps : {300.0, 9000.0}) {
    xb::Cell cell;
    cell.row = gbps < 1000 ? 0 : 1;
    cell.col = 1 - cell.row;
    cell.value = gbps;
    cell.peak.gbps = 478.1;
    m.cells.push_back(cell);
  }
  c.matrices.push_back(m);
  xb::mark_impossible_cells(c);
  EXPECT_EQ(c.status, xb::CaseStatus::failed);
  xb::add_sm_point(c, 4, out);
  ASSERT_EQ(out.series.size(), 1u);
  EXPECT_EQ(out.series[0].label, "write[gpu0,gpu1]");
  EXPECT_DOUBLE_EQ(out.series[0].points.at(0).value_gbps, 300.0);
}

TEST(SmSweep, OnlyCasesWithOneLimitableKernel) {
  EXPECT_EQ(xb::sm_sweep_case("device_to_device_memcpy_write_sm")->index, 21);
  EXPECT_EQ(xb::sm_sweep_case("39")->engine, xb::Engine::tma);
  for (const char* bad : {"host_to_device_memcpy_ce", "host_to_device_bidirectional_memcpy_sm", "all_to_one_write_sm",
                          "device_to_device_latency_sm"})
    EXPECT_THROW(xb::sm_sweep_case(bad), xb::Error) << bad;
}

TEST(DedicatedEngineCli, ValidCommandsParseWithoutAGpu) {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"run", "--suite", "all"},
           {"run", "--host-mem", "hugepages", "-t", "0"},
           {"run", "--pair", "0,1", "--pair", "1,0", "-p", "device_to_device"},
           {"run", "--sample-pairs", "8", "--seed", "3"},
           {"run", "--dry-run", "--topology", "x.json", "--suite", "full"},
           {"run", "--do", "0:HtoD:64M:hugepages"},
           {"sweep", "-t", "device_to_device_memcpy_write_sm", "--sms"},
           {"sweep", "-t", "43", "--sms", "1,4,all", "--buffer-size", "1G"}}) {
    const auto p = parse(args);
    EXPECT_EQ(p.code, -1) << args[1] << " " << p.err;
    EXPECT_TRUE(p.has_action);
  }
}

TEST(DedicatedEngineCli, UsageErrorsNameTheValue) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> bad = {
      {{"run", "--host-mem", "huge"}, "invalid --host-mem 'huge'"},
      {{"run", "--pair", "0"}, "invalid --pair '0'"},
      {{"run", "--pair", "0,1", "--sample-pairs", "2"}, "not both"},
      {{"run", "--seed", "4"}, "--seed '4' applies to --sample-pairs"},
      {{"run", "--sample-pairs", "0"}, "--sample-pairs"},
      {{"run", "--sample-pairs", "-3"}, "--sample-pairs"},
      {{"run", "--topology", "t.json"}, "needs --dry-run"},
      {{"run", "--do", "0:HtoD", "--host-mem", "hugepages"}, "hugepages"},
      {{"run", "--do", "0:HtoD", "--sample-pairs", "2"}, "--sample-pairs 2 applies to named cases"},
      {{"run", "--suite", "most"}, "expected quick, full, loaded or all"},
      {{"sweep", "-t", "host_to_device_memcpy_ce", "--sms"}, "no single SM copy kernel"},
      {{"sweep", "-t", "20", "--sms", "1,2", "--min", "1K"}, "--min sweeps sizes"},
      {{"sweep", "--do", "0:HtoD", "--sms"}, "--sms sweeps a named case"},
      {{"sweep", "-t", "20", "--sms", "two"}, "invalid --sms 'two'"},
      {{"sweep", "-t", "20", "--sms", "--buffer-size", "0"}, "--buffer-size '0'"},
  };
  for (const auto& [args, needle] : bad) {
    const auto p = parse(args);
    EXPECT_EQ(p.code, 2) << args[1] << " " << args[2];
    EXPECT_NE(p.err.find(needle), std::string::npos) << p.err;
    EXPECT_FALSE(p.has_action);
  }
}
