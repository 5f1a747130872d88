// The fleet summary and extractors: exact statistics and outlier rules on
// small hand-made fleets, the extractors on recorded H200 results, the exit
// code rule, the reporters' shape, and compare on fleet files.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "compare/compare_json.hpp"
#include "fake_system.hpp"
#include "base/error.hpp"
#include "fleet/node_json.hpp"
#include "fleet/summary.hpp"
#include "report/reporter.hpp"

namespace {

using namespace xb::fleet;
using json = nlohmann::json;

FleetCell bw(const std::string& test, const std::string& cell, double v, const std::string& gpu) {
  FleetCell c;
  c.test = test;
  c.cell = cell;
  c.link = "PCIe Gen5 x16";
  c.unit = "GB/s";
  c.value = v;
  c.gpus = {gpu};
  return c;
}

FleetCell lat(const std::string& cell, double ns, const std::string& gpu) {
  FleetCell c = bw("host_device_latency_sm", cell, ns, gpu);
  c.unit = "ns";
  c.lower_is_better = true;
  return c;
}

json load(const std::string& rel) {
  std::ifstream f(std::string(XFERBENCH_SOURCE_DIR) + "/" + rel);
  std::stringstream s;
  s << f.rdbuf();
  return json::parse(s.str());
}

TEST(FleetSummary, StatsAndOutliersPerGroup) {
  std::vector<NodeCells> nodes;
  const double values[] = {50, 52, 54, 56, 40};  // median 52; 40 < 0.9 x 52 = 46.8
  for (int i = 0; i < 5; ++i)
    nodes.push_back({"n" + std::to_string(i), "2 x H200", {bw("h2d", "[host,gpu0]", values[i], "gpu0")}});
  const FleetSummary s = summarize_fleet(nodes, 0.9);
  ASSERT_EQ(s.stats.size(), 1u);
  EXPECT_DOUBLE_EQ(s.stats[0].median, 52);
  EXPECT_DOUBLE_EQ(s.stats[0].min, 40);
  EXPECT_DOUBLE_EQ(s.stats[0].max, 56);
  EXPECT_EQ(s.stats[0].min_node, "n4");
  EXPECT_EQ(s.stats[0].max_node, "n3");
  EXPECT_EQ(s.stats[0].nodes, 5);
  ASSERT_EQ(s.outliers.size(), 1u);
  EXPECT_EQ(s.outliers[0].node, "n4");
  EXPECT_DOUBLE_EQ(s.outliers[0].ratio, 40.0 / 52);
  EXPECT_EQ(s.outlier_nodes, std::vector<std::string>{"n4"});
}

TEST(FleetSummary, ThresholdIsStrictAndLatencyMirrored) {
  EXPECT_FALSE(is_outlier(90, 100, false, 0.9));  // exactly at the threshold: not below it
  EXPECT_TRUE(is_outlier(89.99, 100, false, 0.9));
  EXPECT_FALSE(is_outlier(100 / 0.9, 100, true, 0.9));
  EXPECT_TRUE(is_outlier(112, 100, true, 0.9));  // > 111.1 ns
  EXPECT_FALSE(is_outlier(50, 0, false, 0.9));   // no median: nothing to compare with
  std::vector<NodeCells> nodes;
  for (int i = 0; i < 4; ++i) nodes.push_back({"n" + std::to_string(i), "g", {lat("[host,gpu0]", 1000, "gpu0")}});
  nodes.push_back({"slow", "g", {lat("[host,gpu0]", 1200, "gpu0")}});
  const FleetSummary s = summarize_fleet(nodes, 0.9);
  ASSERT_EQ(s.outliers.size(), 1u);
  EXPECT_EQ(s.outliers[0].node, "slow");
}

TEST(FleetSummary, GpuGroupsAreNeverMixed) {
  std::vector<NodeCells> nodes;
  for (int i = 0; i < 3; ++i) nodes.push_back({"two" + std::to_string(i), "2 x H200", {bw("h2d", "c", 55, "gpu0")}});
  nodes.push_back({"four", "4 x H200", {bw("h2d", "c", 30, "gpu0")}});  // alone in its group: no peers
  const FleetSummary s = summarize_fleet(nodes, 0.9);
  EXPECT_EQ(s.stats.size(), 2u);
  EXPECT_TRUE(s.outliers.empty());
}

// The fleet as one measurement, read by the one rule (ending()): what each
// way of ending becomes, and the exit code it gives.
TEST(FleetSummary, FleetEndingIsACompletionAndAFailure) {
  std::vector<FleetNode> nodes(2);
  FleetEnding e = fleet_ending(nodes, {}, false);
  EXPECT_EQ(e.completion.status, xb::RunStatus::complete);
  EXPECT_FALSE(e.failure.has_value());
  EXPECT_TRUE(fleet_ending({}, {}, false, true).failure.has_value());  // check: no node is no pass
  nodes[0].record.exit_code = 10;
  e = fleet_ending(nodes, {}, false);
  EXPECT_EQ(e.completion.status, xb::RunStatus::partial);
  EXPECT_EQ(xb::ending(e.completion, e.failure).outcome, xb::Outcome::partial);
  nodes[1].record.exit_code = 130;
  e = fleet_ending(nodes, {}, false);
  EXPECT_EQ(e.completion.stop, xb::StopReason::sigint);
  EXPECT_EQ(xb::ending(e.completion, e.failure).exit_code, 130);
  nodes[1].record.exit_code = 3;
  e = fleet_ending(nodes, {}, false);  // partial and no GPU: they differ
  EXPECT_EQ(e.failure, xb::ErrorKind::verification);
  nodes[0].record.exit_code = 3;
  EXPECT_EQ(fleet_ending(nodes, {}, false).failure, xb::ErrorKind::no_device);
  nodes[0].record.exit_code = nodes[1].record.exit_code = 8;  // a sticky CUDA error on both
  EXPECT_EQ(fleet_exit_code(nodes, {}, false), 8);
}

TEST(FleetSummary, ExitCodeRule) {
  std::vector<FleetNode> nodes(3);
  FleetSummary s;
  EXPECT_EQ(fleet_exit_code(nodes, s, false), 0);
  s.outliers.push_back({});
  EXPECT_EQ(fleet_exit_code(nodes, s, false), 0);
  EXPECT_EQ(fleet_exit_code(nodes, s, true), 1);
  nodes[1].record.exit_code = 3;
  EXPECT_EQ(fleet_exit_code(nodes, s, false), 3);  // all failing nodes share 3
  nodes[2].record.exit_code = 3;
  EXPECT_EQ(fleet_exit_code(nodes, s, true), 3);
  nodes[0].record.exit_code = 4;
  EXPECT_EQ(fleet_exit_code(nodes, s, false), 1);  // different codes: 1
  nodes[1].record.exit_code = 143;                 // a node stopped by SIGTERM: its code wins
  EXPECT_EQ(fleet_exit_code(nodes, s, false), 143);
}

TEST(FleetCells, RecordedRunGivesEveryCell) {
  const NodeResult run = read_node_result(decode_node_result(load("bench/results/2026-11-21-h200x2-full-run1.json")));
  const auto& cells = run.cells;
  EXPECT_EQ(cells.size(), 86u);  // every cell of the 35 cases on 2 GPUs (4 bidirectional d2d cases: 3 matrices)
  EXPECT_EQ(run.gpu_group, "2 x NVIDIA H200");
  const FleetCell& first = cells.front();
  EXPECT_EQ(first.test, "host_to_device_memcpy_ce");
  EXPECT_EQ(first.cell, "[host,gpu0]");
  EXPECT_EQ(first.link, "PCIe Gen5 x16");
  EXPECT_EQ(first.gpus, std::vector<std::string>{"gpu0"});
  int latency = 0;
  for (const auto& c : cells) latency += c.lower_is_better ? 1 : 0;
  EXPECT_EQ(latency, 4);  // host latency on 2 GPUs, GPU-GPU latency both ways
}

TEST(FleetCells, ScenarioGivesEachTransferAndTheAggregate) {
  xb::ScenarioResult r;
  r.system = fake_system(2);
  xb::TransferResult& t = r.transfers.emplace_back();
  t.label = "host->gpu1";
  t.link = "PCIe Gen5 x16";
  t.bandwidth_gbps = 55;
  r.aggregate_bandwidth_gbps = 54;
  const NodeResult n = read_node_result(decode_node_result(xb::records::scenario_json(r)));
  EXPECT_EQ(n.gpu_group, "2 x Fake H200");
  ASSERT_EQ(n.cells.size(), 2u);
  EXPECT_EQ(n.cells[0].test, "host->gpu1");
  EXPECT_EQ(n.cells[0].value, 55);
  EXPECT_EQ(n.cells[1].test, "aggregate");
  EXPECT_EQ(n.cells[1].value, 54);
  EXPECT_EQ(n.cells[1].gpus, std::vector<std::string>{"gpu1"});
}

TEST(FleetCells, SweepKeysOnlyTheLargestSize) {
  xb::SweepResult sweep;
  xb::SweepSeries& series = sweep.series.emplace_back();
  series.label = "host->gpu1";
  series.link = "PCIe Gen5 x16";
  series.rows.resize(2);
  series.rows[0].bytes = 1024;
  series.rows[0].value_gbps = 1.5;
  series.rows[1].bytes = 2048;
  series.rows[1].value_gbps = 3.0;
  const auto cells = cells_of(sweep);
  ASSERT_EQ(cells.size(), 2u);
  EXPECT_FALSE(cells[0].key);
  EXPECT_TRUE(cells[1].key);
  EXPECT_EQ(cells[1].group, "2048 B");
  EXPECT_EQ(cells[1].gpus, std::vector<std::string>{"gpu1"});
  EXPECT_THROW(decode_node_result(json{{"schema", "xferbench-pingpong/1"}}), xb::Error);
}

Fleet two_node_fleet(double second_h2d) {
  std::vector<NodeRecord> records(3);
  json a = load("bench/results/2026-11-21-h200x2-full-run1.json");
  json b = load("bench/results/2026-11-21-h200x2-full-run2.json");
  b["cases"][0]["matrices"][0]["cells"][1]["value_gbps"] = second_h2d;
  records[0].node = {"alpha", {0, 1}, 11};
  records[0].document = node_document(a);
  records[1].node = {"beta", {2}, 12};
  records[1].document = node_document(b);
  records[2].node = {"gamma", {3}, 13};
  records[2].error_kind = "no_device";
  records[2].error = "no CUDA GPU found";
  records[2].exit_code = 3;
  return build_fleet(std::move(records), 0.9, false);
}

TEST(FleetReport, TextJsonCsvShowNodesOutliersAndErrors) {
  const Fleet f = two_node_fleet(20.0);
  EXPECT_EQ(f.exit_code, 3);
  const std::string text = xb::report::fleet_text(f);
  EXPECT_NE(text.find("beta"), std::string::npos);
  EXPECT_NE(text.find("20.00 !"), std::string::npos) << text;
  EXPECT_NE(text.find("#   beta gpu1: 1 cell, worst host_to_device_memcpy_ce [host,gpu1] over PCIe Gen5 x16: 20.00"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("OUTLIER: gpu1"), std::string::npos) << text;
  EXPECT_NE(text.find("ERROR (exit 3): no CUDA GPU found"), std::string::npos) << text;
  EXPECT_NE(text.find("# FAILED: 3 nodes, 1 failed, 1 with outliers; exit code 3"), std::string::npos) << text;
  const json j = xb::report::fleet_json(f);
  EXPECT_EQ(j["schema"], "xferbench-fleet");
  EXPECT_EQ(j["nodes"].size(), 3u);
  EXPECT_EQ(j["nodes"]["gamma"]["status"], "error");
  EXPECT_EQ(j["nodes"]["alpha"]["result"]["schema"], "xferbench-run");
  EXPECT_EQ(j["fleet"]["outlier_nodes"], json::array({"beta"}));
  const std::string csv = xb::report::fleet_csv(f);
  EXPECT_NE(csv.find("beta,2 x NVIDIA H200,passed,0,host_to_device_memcpy_ce,,\"[host,gpu1]\""), std::string::npos);
  EXPECT_NE(csv.find("gamma,,error,3,,,,,,,,,,no CUDA GPU found"), std::string::npos) << csv;
}

TEST(FleetCompare, NodeByNodeWithMissingNodes) {
  const json before = xb::report::fleet_json(two_node_fleet(55.0));
  json after = xb::report::fleet_json(two_node_fleet(20.0));
  after["nodes"].erase("alpha");
  const xb::CompareResult r = xb::compare_documents(before, after, {}, "OLD", "NEW");
  EXPECT_EQ(r.schema, "xferbench-fleet");
  bool alpha_failed = false, beta_slower = false, gamma_skipped = false;
  for (const auto& e : r.entries) {
    alpha_failed |= e.key == "alpha" && e.verdict == xb::Verdict::failed;
    beta_slower |= e.key == "beta: host_to_device_memcpy_ce [host,gpu1]" && e.verdict == xb::Verdict::slower;
    gamma_skipped |= e.key == "gamma" && e.verdict == xb::Verdict::skipped;
  }
  EXPECT_TRUE(alpha_failed);
  EXPECT_TRUE(beta_slower);
  EXPECT_TRUE(gamma_skipped);
  EXPECT_TRUE(r.regression());
  const json run = load("bench/results/2026-11-21-h200x2-full-run1.json");
  try {
    xb::compare_documents(before, run, {}, "'f.json'", "'r.json'");
    FAIL() << "a fleet compared with a run";
  } catch (const xb::Error& e) {
    EXPECT_EQ(e.kind(), xb::ErrorKind::usage);
    EXPECT_NE(std::string(e.what()).find("'f.json' is a fleet result but 'r.json' is not"), std::string::npos);
  }
}

}  // namespace
