// The fabric's file and formats: JSON both ways (findings computed again
// on reading), bad files, text (culprits, worst pairs, matrices), CSV,
// Prometheus, check's verdict, compare of two fabric files, the exit
// code, and NCCL's log read for the path.
#include <gtest/gtest.h>

#include <algorithm>

#include "compare/compare_json.hpp"
#include "fabric/fabric_json.hpp"
#include "fabric/nccl_log.hpp"
#include "fabric_fixture.hpp"
#include "report/fabric_report.hpp"

namespace xb::fabric {
namespace {

using testing::Figures;
using testing::make_fabric;

Figures slow_node(int node, double factor = 0.5) {
  Figures f;
  f.gbps = [node, factor](int a, int b, int) { return a == node || b == node ? 20.0 * factor : 20.0; };
  return f;
}

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

TEST(FabricJson, RoundTripKeepsEveryPairAndTheFindings) {
  const Result r = make_fabric(6, 2, slow_node(2));
  const nlohmann::json doc = fabric_json(r);
  EXPECT_EQ(doc["schema"], "xferbench-fabric");
  EXPECT_EQ(doc["schema_version"], 1);
  EXPECT_EQ(doc["pairs"].size(), r.pairs.size());
  EXPECT_EQ(doc["pairs"][0]["a"], "n0");
  EXPECT_EQ(doc["findings"]["culprits"][0]["what"], "node n2");
  EXPECT_EQ(doc["status"], "passed");  // culprits fail only with --fail-on-culprit
  const Result back = decode_fabric(nlohmann::json::parse(doc.dump()), "f.json");
  ASSERT_EQ(back.pairs.size(), r.pairs.size());
  EXPECT_EQ(back.nodes[2].name, "n2");
  EXPECT_DOUBLE_EQ(back.findings.median_gbps, r.findings.median_gbps);
  ASSERT_EQ(back.findings.culprits.size(), 1u);
  EXPECT_EQ(back.findings.culprits[0].what, "node n2");
  EXPECT_NEAR(gbps_p50(*back.pairs[3].ab), gbps_p50(*r.pairs[3].ab), 1e-9);
  EXPECT_EQ(back.pairs[3].path, "NCCL NET/IB/0/GDRDMA");
}

TEST(FabricJson, BadFilesAreNamedUsageErrors) {
  const nlohmann::json good = fabric_json(make_fabric(3, 1, Figures{}));
  const auto message = [](const nlohmann::json& doc) {
    try {
      decode_fabric(doc, "f.json");
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::usage);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  nlohmann::json v2 = good;
  v2["schema_version"] = 2;
  EXPECT_TRUE(has(message(v2), "f.json has xferbench-fabric schema_version 2")) << message(v2);
  nlohmann::json no_pairs = good;
  no_pairs.erase("pairs");
  EXPECT_TRUE(has(message(no_pairs), "malformed xferbench-fabric result: pairs: missing")) << message(no_pairs);
  nlohmann::json bad_node = good;
  bad_node["pairs"][0]["node_b"] = 9;
  EXPECT_TRUE(has(message(bad_node), "pairs[0]: node_a ")) << message(bad_node);
  EXPECT_TRUE(has(message(bad_node), ", node_b 9 or rail 0 does not name two of its 3 nodes")) << message(bad_node);
  nlohmann::json bad_ratio = good;
  bad_ratio["settings"]["min_ratio"] = 1.5;
  EXPECT_TRUE(has(message(bad_ratio), "settings.min_ratio")) << message(bad_ratio);
}

TEST(FabricText, NamesCulpritsWorstPairsAndDrawsAMatrixPerRail) {
  const Result r = make_fabric(4, 2, slow_node(1));
  const std::string t = report::fabric_text(r);
  EXPECT_TRUE(has(t, "# xferbench fabric: 4 nodes x 2 rails, 8 ranks; GPU buffers")) << t;
  EXPECT_TRUE(has(t, "#   node n1: 6 of its 6 pairs, on every rail, below 85%")) << t;
  EXPECT_TRUE(has(t, "# bandwidth p50 from row to column, GB/s, rail 0")) << t;
  EXPECT_TRUE(has(t, "# one-way latency p50, us, rail 1")) << t;
  EXPECT_TRUE(has(t, "10.00!")) << t;  // the slow node's cells are marked
  EXPECT_TRUE(has(t, "culprits: node n1; exit code 0")) << t;
  // The worst pairs come first: a pair with n1.
  const auto worst = t.find("# worst pairs");
  ASSERT_NE(worst, std::string::npos);
  const auto first_row = t.find('\n', t.find('\n', t.find('\n', worst) + 1) + 1) + 1;
  EXPECT_TRUE(has(t.substr(first_row, 12), "n1")) << t.substr(first_row, 40);
}

TEST(FabricText, LargeFabricsLeaveTheMatrixToTheFileAndThePlot) {
  const std::string t = report::fabric_text(make_fabric(66, 1, Figures{}, 4));
  EXPECT_TRUE(has(t, "# matrices: 66 nodes are too many for text"));
  EXPECT_TRUE(has(t, "4 rounds of random matchings (seed 1)"));
}

TEST(FabricText, LostRanksAndFailedPairsAreListedAndSetTheExitCode) {
  Result r = make_fabric(4, 1, Figures{});
  r.lost.push_back({3, 3, 0, 1, "sent nothing for 70 s (dead, or hung)"});
  r.pairs[0].error = "not measured: rank 3 (node n3, rail 0) was lost in an earlier round";
  r.pairs[0].error_kind = ErrorKind::timeout;
  r.pairs[0].ab.reset();
  r.findings = attribute(r);
  const std::string t = report::fabric_text(r);
  EXPECT_TRUE(has(t, "# LOST: rank 3 (node n3, rail 0) in round 1: sent nothing for 70 s")) << t;
  EXPECT_TRUE(has(t, "# FAILED pair ")) << t;
  EXPECT_EQ(report::fabric_exit_code(r), exit_code(ErrorKind::timeout));
  EXPECT_EQ(status_text(r), "failed");
}

TEST(FabricExitCode, CulpritsFailOnlyWhenAsked) {
  Result r = make_fabric(6, 1, slow_node(4));
  EXPECT_EQ(report::fabric_exit_code(r), 0);
  r.options.fail_on_culprit = true;
  EXPECT_EQ(report::fabric_exit_code(r), 1);
  EXPECT_EQ(status_text(r), "failed");
}

TEST(FabricCsvAndPrometheus, OneRowPerPairAndGaugesInBaseUnits) {
  const Result r = make_fabric(4, 1, slow_node(0));
  const std::string csv = report::fabric_csv(r);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 6);
  EXPECT_TRUE(has(csv, "node_a,node_b,rail,round,transport,path,ab_gbps_p50"));
  const std::string prom = report::fabric_prometheus(r);
  EXPECT_TRUE(has(prom, "# TYPE xferbench_fabric_bandwidth_bytes_per_second gauge"));
  const auto value = [&](const std::string& series) {
    const auto at = prom.find(series + " ");
    return at == std::string::npos ? -1.0 : std::stod(prom.substr(at + series.size() + 1));
  };
  EXPECT_NEAR(value("xferbench_fabric_bandwidth_bytes_per_second{src=\"n1\",dst=\"n2\",rail=\"0\",stat=\"p50\"}"),
              2e10, 1e3)
      << prom;
  EXPECT_NEAR(value("xferbench_fabric_bandwidth_bytes_per_second{src=\"n1\",dst=\"n0\",rail=\"0\",stat=\"p50\"}"),
              1e10, 1e3);
  EXPECT_NEAR(value("xferbench_fabric_latency_seconds{node_a=\"n0\",node_b=\"n1\",rail=\"0\",stat=\"p50\"}"), 3e-6,
              1e-12);
  EXPECT_EQ(value("xferbench_fabric_culprit{kind=\"node\",Hostname=\"n0\",peer=\"\",rail=\"\"}"), 1) << prom;
  EXPECT_TRUE(has(prom, "xferbench_fabric_exit_code 0"));
}

TEST(FabricCheck, FailNamesTheCulpritAndPassSaysSo) {
  bool passed = false;
  const std::string fail_line = report::fabric_check_text(make_fabric(6, 2, slow_node(5)), passed);
  EXPECT_FALSE(passed);
  EXPECT_TRUE(has(fail_line, "xferbench check: FAIL fabric of 6 nodes: node n5 (")) << fail_line;
  const std::string pass_line = report::fabric_check_text(make_fabric(6, 2, Figures{}), passed);
  EXPECT_TRUE(passed);
  EXPECT_TRUE(has(pass_line, "xferbench check: PASS fabric of 6 nodes: 30 pairs")) << pass_line;
}

TEST(FabricCompare, PairsAreComparedByNodeNamesBothWays) {
  const nlohmann::json before = fabric_json(make_fabric(4, 1, Figures{}));
  const nlohmann::json after = fabric_json(make_fabric(4, 1, slow_node(2, 0.7)));
  const CompareResult same = compare_documents(before, before, CompareOptions{});
  EXPECT_EQ(same.schema, "xferbench-fabric");
  EXPECT_EQ(same.entries.size(), 6u * 3);
  EXPECT_FALSE(same.regression());
  const CompareResult c = compare_documents(before, after, CompareOptions{});
  EXPECT_TRUE(c.regression());
  EXPECT_EQ(c.count(Verdict::slower), 6);  // the 3 pairs with n2, both directions; latency unchanged
  for (const auto& e : c.entries) {
    if (e.verdict == Verdict::slower) {
      EXPECT_TRUE(has(e.key, "n2")) << e.key;
    }
  }
  try {
    compare_documents(before, nlohmann::json{{"schema", "xferbench-run"}, {"schema_version", 1}}, CompareOptions{});
    FAIL() << "a fabric file compared with a run";
  } catch (const Error& e) {
    EXPECT_TRUE(has(e.what(), "is a fabric result but NEW is not")) << e.what();
  }
}

TEST(NcclLog, TheSendersChannelsNameThePath) {
  const std::string log =
      "h:1:2 [0] NCCL INFO Bootstrap: Using eth0\n"
      "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n"
      "h:1:2 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n"
      "h:1:2 [0] NCCL INFO Channel 00/1 : 1[1] -> 0[0] [receive] via NET/Socket/0\n"
      "h:1:2 [0] NCCL INFO Channel 00/1 : 0[0] -> 1[1] [send] via NET/Socket/0\n";
  EXPECT_EQ(NcclLog::channels_in(log), "NCCL P2P/CUMEM/read, NET/Socket/0");
  EXPECT_EQ(NcclLog::channels_in("nothing here\n"), "");
  NcclLog off;
  EXPECT_TRUE(has(off.path_since(0), "not asked for"));
}

}  // namespace
}  // namespace xb::fabric
