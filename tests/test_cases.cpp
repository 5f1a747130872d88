#include <gtest/gtest.h>

#include <set>

#include "cases/case_plan.hpp"
#include "cases/cell_results.hpp"
#include "cases/cases.hpp"
#include "base/error.hpp"
#include "machine/pairs.hpp"
#include "fake_system.hpp"

using xb::case_catalogue;
using xb::select_cases;

TEST(Catalogue, NvbandwidthCasesFirstInTheirOrder) {
  const auto& c = case_catalogue();
  ASSERT_GE(c.size(), 45u);
  for (std::size_t i = 0; i < c.size(); ++i) {
    EXPECT_EQ(c[i].index, static_cast<int>(i));
    // 0-34 are nvbandwidth v0.8's; every later index is xferbench's own.
    EXPECT_EQ(c[i].origin, i < 35 ? xb::kOriginNvbandwidth : xb::kOriginXferbench) << c[i].name;
  }
  EXPECT_EQ(c[0].name, "host_to_device_memcpy_ce");
  EXPECT_EQ(c[5].name, "device_to_device_memcpy_write_ce");
  EXPECT_EQ(c[16].name, "host_to_device_memcpy_sm");
  EXPECT_EQ(c[23].name, "device_to_device_bidirectional_memcpy_write_sm");
  EXPECT_EQ(c[31].name, "one_to_all_read_sm");
  EXPECT_EQ(c[32].name, "host_device_latency_sm");
  EXPECT_EQ(c[33].name, "device_to_device_latency_sm");
  EXPECT_EQ(c[34].name, "device_local_copy");
  EXPECT_EQ(c[35].name, "host_to_all_bidirectional_memcpy_sm_streaming");
  EXPECT_EQ(c[36].name, "all_to_host_bidirectional_memcpy_sm_streaming");
  EXPECT_EQ(c[37].name, "managed_migration_host_to_device");
  EXPECT_EQ(c[38].name, "managed_migration_device_to_host");
  EXPECT_EQ(c[39].name, "device_to_device_memcpy_read_tma");
  EXPECT_EQ(c[40].name, "device_to_device_memcpy_write_tma");
  EXPECT_EQ(c[41].name, "device_to_device_latency_tma");
  EXPECT_EQ(c[42].name, "device_local_copy_tma");
  EXPECT_EQ(c[43].name, "device_local_read_sm");
  EXPECT_EQ(c[44].name, "device_local_write_sm");
  std::set<std::string> names;
  for (const auto& d : c) names.insert(d.name);
  EXPECT_EQ(names.size(), c.size());
}

// The split-warp SM cases walk the whole buffer for xferbench's own figure
// and re-copy each part in place, as nvbandwidth does, for nvbandwidth's;
// the _streaming cases measure only the first.
TEST(Plan, SplitWarpHostCasesMeasureBothOrders) {
  const auto two = fake_system(2);
  for (const char* name : {"host_to_device_bidirectional_memcpy_sm", "device_to_host_bidirectional_memcpy_sm",
                           "host_to_all_bidirectional_memcpy_sm", "all_to_host_bidirectional_memcpy_sm"}) {
    const auto plan = xb::plan_case(*select_cases({name}, {})[0], two, 1 << 20);
    for (const auto& cell : plan.cells) {
      ASSERT_TRUE(cell.nvbandwidth.has_value()) << name;
      for (const auto& t : cell.scenario.transfers) {
        EXPECT_EQ(t.engine, xb::Engine::sm_split) << name;
        EXPECT_FALSE(t.repeat_in_place) << name;
      }
      for (const auto& t : cell.nvbandwidth->transfers) EXPECT_TRUE(t.repeat_in_place) << name;
    }
  }
  for (const char* name : {"host_to_all_bidirectional_memcpy_sm_streaming",
                           "all_to_host_bidirectional_memcpy_sm_streaming"}) {
    const auto plan = xb::plan_case(*select_cases({name}, {})[0], two, 1 << 20);
    ASSERT_EQ(plan.cells.size(), 2u);
    for (const auto& cell : plan.cells) {
      ASSERT_EQ(cell.scenario.transfers.size(), 2u) << name;
      EXPECT_FALSE(cell.nvbandwidth.has_value()) << name;
      for (const auto& t : cell.scenario.transfers) EXPECT_FALSE(t.repeat_in_place) << name;
    }
  }
}

TEST(Select, ByNameIndexAndPrefix) {
  auto byname = select_cases({"device_local_copy", "0"}, {});
  ASSERT_EQ(byname.size(), 2u);
  EXPECT_EQ(byname[0]->index, 34);
  EXPECT_EQ(byname[1]->index, 0);
  auto byprefix = select_cases({}, {"device_to_device_memcpy"});
  ASSERT_EQ(byprefix.size(), 6u);  // CE, SM and TMA, catalogue order
  EXPECT_EQ(byprefix[0]->name, "device_to_device_memcpy_read_ce");
  EXPECT_EQ(byprefix[3]->name, "device_to_device_memcpy_write_sm");
  EXPECT_EQ(byprefix[5]->name, "device_to_device_memcpy_write_tma");
}

TEST(Select, UnknownNamesAreUsageErrors) {
  for (auto args : std::vector<std::vector<std::string>>{{"nosuch"}, {"9999"}, {"99999999999"}}) {
    try {
      select_cases(args, {});
      FAIL();
    } catch (const xb::Error& e) {
      EXPECT_EQ(e.kind(), xb::ErrorKind::usage);
      EXPECT_NE(std::string(e.what()).find(args[0]), std::string::npos);
    }
  }
  EXPECT_THROW(select_cases({}, {"zzz"}), xb::Error);
}

TEST(Suites, QuickFullAndAll) {
  const auto full = xb::suite_cases("full");
  ASSERT_EQ(full.size(), 35u);
  for (const auto* d : full) {
    EXPECT_LT(d->index, xb::kNvbandwidthCases);
    EXPECT_EQ(d->origin, xb::kOriginNvbandwidth);
  }
  EXPECT_EQ(xb::suite_cases("all").size(), case_catalogue().size());
  EXPECT_EQ(xb::suite_cases("quick").size(), 9u);
  EXPECT_THROW(xb::suite_cases("medium"), xb::Error);
}

TEST(Waive, PeerCasesNeedTwoGpusWithPeerAccess) {
  const auto one = fake_system(1);
  const auto twoNoPeer = fake_system(2, false);
  const auto two = fake_system(2);
  const auto* d2d = select_cases({"device_to_device_memcpy_read_ce"}, {})[0];
  const auto* h2d = select_cases({"host_to_device_memcpy_ce"}, {})[0];
  EXPECT_TRUE(xb::waive_reason(*d2d, one).has_value());
  EXPECT_NE(xb::waive_reason(*d2d, one)->find("2 GPUs"), std::string::npos);
  EXPECT_TRUE(xb::waive_reason(*d2d, twoNoPeer).has_value());
  EXPECT_FALSE(xb::waive_reason(*d2d, two).has_value());
  EXPECT_FALSE(xb::waive_reason(*h2d, one).has_value());
}

TEST(Plan, HostToDeviceOneCellPerGpu) {
  const auto sys = fake_system(2);
  const auto plan = xb::plan_case(*select_cases({"host_to_device_memcpy_sm"}, {})[0], sys, 1 << 20);
  ASSERT_EQ(plan.cells.size(), 2u);
  for (int g = 0; g < 2; ++g) {
    const auto& t = plan.cells[g].scenario.transfers;
    ASSERT_EQ(t.size(), 1u);
    EXPECT_TRUE(t[0].src.on_host());
    EXPECT_EQ(t[0].dst.device, g);
    EXPECT_EQ(t[0].exec_device, g);
    EXPECT_EQ(t[0].engine, xb::Engine::sm);
    EXPECT_NEAR(plan.cells[g].outputs[0].peak.gbps, 63.0154, 1e-3);
  }
}

TEST(Plan, BidirectionalInterferenceRunsTwiceAsLongWithSameSizeBuffers) {
  const auto sys = fake_system(1);
  const auto plan = xb::plan_case(*select_cases({"host_to_device_bidirectional_memcpy_ce"}, {})[0], sys, 1000);
  ASSERT_EQ(plan.cells.size(), 1u);
  const auto& t = plan.cells[0].scenario.transfers;
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].bytes, 1000u);
  EXPECT_EQ(t[0].repeat, 1);
  EXPECT_TRUE(t[0].src.on_host());
  EXPECT_EQ(t[1].bytes, 1000u);
  EXPECT_EQ(t[1].repeat, 2);
  EXPECT_TRUE(t[1].dst.on_host());
}

TEST(Plan, AllBidirInterferersOnEveryOtherGpuRepeatBothWays) {
  const auto sys = fake_system(3);
  const auto plan = xb::plan_case(*select_cases({"host_to_all_bidirectional_memcpy_ce"}, {})[0], sys, 1000);
  ASSERT_EQ(plan.cells.size(), 3u);
  const auto& t = plan.cells[1].scenario.transfers;
  ASSERT_EQ(t.size(), 6u);  // measured + reverse on gpu1, both ways on gpu0 and gpu2
  EXPECT_EQ(t[0].exec_device, 1);
  EXPECT_EQ(t[0].repeat, 1);
  for (std::size_t i = 1; i < t.size(); ++i) {
    EXPECT_EQ(t[i].bytes, 1000u);
    EXPECT_EQ(t[i].repeat, 2);
  }
}

TEST(Plan, ReadIsIssuedByTheRowGpuAndPullsColumnMemory) {
  const auto sys = fake_system(2);
  const auto plan = xb::plan_case(*select_cases({"device_to_device_memcpy_read_ce"}, {})[0], sys, 64);
  ASSERT_EQ(plan.cells.size(), 2u);
  const auto& c = plan.cells[0];  // row 0, col 1
  EXPECT_EQ(c.row, 0);
  EXPECT_EQ(c.col, 1);
  EXPECT_EQ(c.scenario.transfers[0].src.device, 1);
  EXPECT_EQ(c.scenario.transfers[0].dst.device, 0);
  EXPECT_EQ(c.scenario.transfers[0].exec_device, 0);
  EXPECT_EQ(c.outputs[0].link, "NVLink x18");
}

TEST(Plan, BidirD2DReportsEachDirectionAndTotal) {
  const auto sys = fake_system(2);
  const auto plan = xb::plan_case(*select_cases({"device_to_device_bidirectional_memcpy_write_ce"}, {})[0], sys, 64);
  ASSERT_EQ(plan.matrices.size(), 3u);
  EXPECT_EQ(plan.matrices[2].name, "total");
  const auto& c = plan.cells[0];
  ASSERT_EQ(c.outputs.size(), 3u);
  EXPECT_EQ(c.outputs[2].kind, xb::Output::Kind::sum);
  EXPECT_DOUBLE_EQ(c.outputs[2].peak.gbps, 2 * c.outputs[0].peak.gbps);
  // Write: each GPU issues the copy out of its own memory.
  EXPECT_EQ(c.scenario.transfers[0].exec_device, c.scenario.transfers[0].src.device);
  EXPECT_EQ(c.scenario.transfers[1].exec_device, c.scenario.transfers[1].src.device);
}

TEST(Plan, AllToOneUsesEveryPeerAndTotalBandwidth) {
  const auto sys = fake_system(4);
  const auto plan = xb::plan_case(*select_cases({"all_to_one_write_ce"}, {})[0], sys, 64);
  ASSERT_EQ(plan.cells.size(), 4u);
  const auto& c = plan.cells[2];
  ASSERT_EQ(c.scenario.transfers.size(), 3u);
  for (const auto& t : c.scenario.transfers) {
    EXPECT_EQ(t.dst.device, 2);
    EXPECT_EQ(t.exec_device, t.src.device);
  }
  EXPECT_EQ(c.outputs[0].kind, xb::Output::Kind::total);
  // Three peers at 478 GB/s each, capped by gpu2's own 18 links.
  EXPECT_DOUBLE_EQ(c.outputs[0].peak.gbps, 18 * 26.5625);
}

TEST(OutputValue, TransferSumAndTotal) {
  xb::Scenario sc;
  sc.transfers.resize(2);
  sc.transfers[0].bytes = 1000000000;
  sc.transfers[1].bytes = 2000000000;
  xb::ScenarioSamples s;
  s.copies_per_sample = 2;
  s.transfers.resize(2);
  s.transfers[0].seconds = {1.0};
  s.transfers[1].seconds = {2.0};
  s.total_seconds = {4.0};
  xb::Output o;
  EXPECT_DOUBLE_EQ(xb::output_value(o, sc, s, 0), 2.0);
  o.kind = xb::Output::Kind::sum;
  o.count = 2;
  EXPECT_DOUBLE_EQ(xb::output_value(o, sc, s, 0), 4.0);
  o.kind = xb::Output::Kind::total;
  EXPECT_DOUBLE_EQ(xb::output_value(o, sc, s, 0), 1.5);
  // A transfer repeated twice per copy moved twice its bytes.
  sc.transfers[1].repeat = 2;
  EXPECT_DOUBLE_EQ(xb::output_value(o, sc, s, 0), 2.5);
  o.kind = xb::Output::Kind::transfer;
  o.first = 1;
  EXPECT_DOUBLE_EQ(xb::output_value(o, sc, s, 0), 4.0);
}

// Managed migration: one column per GPU, GB/s plus ns per 4 KiB and per
// 2 MiB page; waived on a GPU without managed memory.
TEST(Plan, ManagedMigrationHasThreeMatricesPerGpu) {
  auto two = fake_system(2);
  for (auto& g : two.gpus) g.managed_memory = true;
  for (const char* name : {"managed_migration_host_to_device", "managed_migration_device_to_host"}) {
    const auto* def = select_cases({name}, {})[0];
    EXPECT_FALSE(xb::waive_reason(*def, two).has_value());
    const auto plan = xb::plan_case(*def, two, 64 << 20);
    EXPECT_TRUE(plan.migration);
    ASSERT_EQ(plan.matrices.size(), 3u);
    EXPECT_EQ(plan.matrices[0].metric, xb::Metric::bandwidth_gbps);
    EXPECT_EQ(plan.matrices[1].metric, xb::Metric::latency_ns);
    EXPECT_EQ(plan.matrices[2].metric, xb::Metric::latency_ns);
    ASSERT_EQ(plan.cells.size(), 2u);
    EXPECT_TRUE(plan.cells[0].outputs[0].peak.known());  // GB/s against the PCIe peak
    EXPECT_FALSE(plan.cells[0].outputs[1].peak.known());
  }
  two.gpus[1].managed_memory = false;
  const auto why = xb::waive_reason(*select_cases({"managed_migration_host_to_device"}, {})[0], two);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("gpu1"), std::string::npos);
}

// A run plans each case once: the pair selection applied, the memory need
// of every planned cell kept (the pool's default budget counts them all).
TEST(PlannedCase, SelectsPairsOnceAndKeepsTheWholeCasesMemoryNeed) {
  const auto sys = fake_system(4);
  const std::uint64_t b = 64ull << 20;
  const auto sel = xb::given_pairs({{1, 3}}, sys);
  const xb::CaseDef& def = *select_cases({"device_to_device_memcpy_read_ce"}, {})[0];
  const xb::PlannedCase pc = xb::plan_run_case(def, sys, b, &sel);
  EXPECT_EQ(pc.def, &def);
  EXPECT_FALSE(pc.waived.has_value());
  ASSERT_EQ(pc.plan.cells.size(), 1u);
  EXPECT_EQ(pc.plan.cells[0].row, 1);
  EXPECT_EQ(pc.plan.cells[0].col, 3);
  EXPECT_EQ(pc.need.gpu, (std::vector<std::uint64_t>(4, b)));
  EXPECT_EQ(xb::find_cell(pc.plan, 1, 3), &pc.plan.cells[0]);
  EXPECT_EQ(xb::find_cell(pc.plan, 0, 1), nullptr);
  // Without a selection every pair stays.
  EXPECT_EQ(xb::plan_run_case(def, sys, b, nullptr).plan.cells.size(), 12u);
  // A case waived here plans nothing and needs nothing.
  const xb::System one = fake_system(1);
  const xb::PlannedCase waived = xb::plan_run_case(def, one, b, nullptr);
  ASSERT_TRUE(waived.waived.has_value());
  EXPECT_TRUE(waived.plan.cells.empty());
  EXPECT_EQ(waived.need.gpu, (std::vector<std::uint64_t>{0}));
  const auto h2d = xb::plan_run_cases(select_cases({"host_to_device_memcpy_ce", "device_to_device_memcpy_read_ce"}, {}),
                                      one, b, nullptr);
  ASSERT_EQ(h2d.size(), 2u);
  EXPECT_EQ(xb::run_memory_need(h2d, one).gpu, (std::vector<std::uint64_t>{b}));
}
