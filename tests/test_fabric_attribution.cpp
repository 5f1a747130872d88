// Attribution (src/fabric/attribution.hpp) on planted figures: a slow
// node, a slow GPU/NIC of one node, a slow pair, a slow rail, one slow
// direction, latency only; medians; failed pairs; random matchings.
#include <gtest/gtest.h>

#include <algorithm>

#include "fabric_fixture.hpp"

namespace xb::fabric {
namespace {

using testing::culprit_names;
using testing::Figures;
using testing::make_fabric;
using Names = std::vector<std::string>;

Figures slow_when(std::function<bool(int, int, int)> slow, double factor = 0.5) {
  Figures f;
  f.gbps = [slow, factor](int a, int b, int r) { return slow(a, b, r) ? 20.0 * factor : 20.0 + 0.01 * (a + b); };
  return f;
}

TEST(FabricAttribution, AHealthyFabricHasNoCulprit) {
  const Result r = make_fabric(8, 4, Figures{});
  EXPECT_TRUE(r.findings.culprits.empty());
  EXPECT_EQ(r.findings.low_pairs, 0);
  EXPECT_DOUBLE_EQ(r.findings.median_gbps, 20.0);
  EXPECT_DOUBLE_EQ(r.findings.median_latency_s, 3e-6);
  for (const auto& j : r.findings.pairs) EXPECT_NEAR(j.worst, 1.0, 1e-12);
}

TEST(FabricAttribution, EveryPairOfOneNodeLowNamesTheNode) {
  const Result r = make_fabric(8, 4, slow_when([](int a, int b, int) { return a == 3 || b == 3; }));
  EXPECT_EQ(culprit_names(r), Names{"node n3"});
  EXPECT_EQ(r.findings.culprits[0].kind, CulpritKind::node);
  EXPECT_EQ(r.findings.culprits[0].low, 28);  // 7 partners x 4 rails
  EXPECT_NEAR(r.findings.culprits[0].median_ratio, 0.5, 0.01);
  EXPECT_EQ(r.findings.low_pairs, 28);
}

TEST(FabricAttribution, OneRailOfOneNodeNamesThatNodesRail) {
  const Result r = make_fabric(8, 4, slow_when([](int a, int b, int rail) { return (a == 5 || b == 5) && rail == 2; }));
  EXPECT_EQ(culprit_names(r), Names{"node n5 rail 2"});
  EXPECT_EQ(r.findings.culprits[0].kind, CulpritKind::node_rail);
}

TEST(FabricAttribution, OneLowPairNamesThePath) {
  const Result r = make_fabric(8, 4, slow_when([](int a, int b, int rail) { return a == 1 && b == 6 && rail == 0; }));
  EXPECT_EQ(culprit_names(r), Names{"pair n1-n6 rail 0"});
  EXPECT_EQ(r.findings.culprits[0].kind, CulpritKind::pair_rail);
}

TEST(FabricAttribution, APairLowOnEveryRailIsThePair) {
  const Result r = make_fabric(8, 4, slow_when([](int a, int b, int) { return a == 2 && b == 4; }));
  EXPECT_EQ(culprit_names(r), Names{"pair n2-n4"});
  EXPECT_EQ(r.findings.culprits[0].kind, CulpritKind::pair);
}

TEST(FabricAttribution, OneRailLowAcrossTheNodesNamesTheRail) {
  const Result r = make_fabric(8, 4, slow_when([](int, int, int rail) { return rail == 1; }));
  EXPECT_EQ(culprit_names(r), Names{"rail 1"});
  EXPECT_EQ(r.findings.culprits[0].kind, CulpritKind::rail);
  EXPECT_EQ(r.findings.culprits[0].low, 28);
}

// A pair of 8 nodes on one rail; `slow`: at half the bandwidth.
PairRecord pair_of(int a, int b, bool slow) {
  PairRecord p;
  p.a = a;
  p.b = b;
  p.ab = testing::bandwidth_leg(slow ? 10 : 20);
  p.ba = testing::bandwidth_leg(slow ? 10 : 20);
  p.latency = testing::latency_leg(3e-6);
  return p;
}

TEST(FabricAttribution, SlowNodesDoNotMakeAPartnerThatMetThemLookSlow) {
  // As random matchings may have it: node 2 met only the slow nodes 0 and 1
  // and node 3, so 2 of its 3 pairs are low; once 0 and 1 are named (4 of 4
  // each) those pairs are explained and node 2 is not named.
  std::vector<PairRecord> pairs;
  for (auto [a, b] : {std::pair{0, 2}, {0, 4}, {0, 5}, {0, 6}, {1, 2}, {1, 4}, {1, 5}, {1, 7}})
    pairs.push_back(pair_of(a, b, true));
  for (auto [a, b] : {std::pair{2, 3}, {3, 4}, {3, 5}, {3, 6}, {3, 7}, {4, 5}, {4, 6}, {4, 7}, {5, 6}, {5, 7}, {6, 7}})
    pairs.push_back(pair_of(a, b, false));
  const std::vector<std::string> names = {"n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7"};
  const Findings f = attribute(pairs, names, std::vector<int>(8, 1), 0.85, Judge::all);
  Names named;
  for (const Culprit& c : f.culprits) named.push_back(c.what);
  EXPECT_EQ(named, (Names{"node n0", "node n1"}));
}

TEST(FabricAttribution, OneSlowDirectionIsNamedWithItsDirection) {
  Figures f;
  f.gbps = [](int from, int to, int rail) { return from == 6 && to == 2 && rail == 0 ? 12.0 : 20.0; };
  const Result r = make_fabric(8, 2, f);
  ASSERT_EQ(culprit_names(r), Names{"pair n2-n6 rail 0"});
  EXPECT_NE(r.findings.culprits[0].why.find("bandwidth n6->n2 at 60%"), std::string::npos) << r.findings.culprits[0].why;
}

TEST(FabricAttribution, LatencyCountsOnlyWhenJudged) {
  Figures f;
  f.latency = [](int a, int b, int) { return a == 0 && b == 7 ? 9e-6 : 3e-6; };
  EXPECT_EQ(culprit_names(make_fabric(8, 1, f)), Names{"pair n0-n7 rail 0"});
  Result r = make_fabric(8, 1, f);
  r.options.judge = Judge::bandwidth;
  EXPECT_TRUE(attribute(r).culprits.empty());
  r.options.judge = Judge::latency;
  EXPECT_EQ(attribute(r).culprits.size(), 1u);
}

TEST(FabricAttribution, MinRatioIsTheLine) {
  const auto slow = slow_when([](int a, int b, int) { return a == 3 || b == 3; }, 0.8);
  EXPECT_EQ(make_fabric(8, 1, slow, 0, 0.85).findings.culprits.size(), 1u);
  EXPECT_TRUE(make_fabric(8, 1, slow, 0, 0.75).findings.culprits.empty());
}

TEST(FabricAttribution, FailedPairsAreCountedAndLeftOutOfTheMedians) {
  Result r = make_fabric(6, 1, Figures{});
  r.pairs[0].ab->verified = false;
  r.pairs[0].ab->one_way_s.median = 1.0;  // would drag the median if counted
  r.pairs[1].error = "rank 3 did not answer within 30 s";
  r.pairs[1].ab.reset();
  r.pairs[1].ba.reset();
  r.pairs[1].latency.reset();
  const Findings f = attribute(r);
  EXPECT_EQ(f.failed_pairs, 2);
  EXPECT_DOUBLE_EQ(f.median_gbps, 20.0);
  EXPECT_TRUE(f.pairs[0].failed);
  EXPECT_FALSE(f.pairs[0].low);
  EXPECT_EQ(f.pairs[1].worst, 0);
  EXPECT_TRUE(f.culprits.empty());
}

TEST(FabricAttribution, RandomMatchingsStillFindASlowNode) {
  const Result r = make_fabric(128, 2, slow_when([](int a, int b, int) { return a == 77 || b == 77; }), 6);
  EXPECT_EQ(culprit_names(r), Names{"node n77"});
  EXPECT_EQ(r.findings.culprits[0].pairs, 12);  // 6 partners x 2 rails
}

TEST(FabricAttribution, TwoNodesCannotTellNodeFromPath) {
  const Result r = make_fabric(2, 1, Figures{});
  ASSERT_FALSE(r.findings.notes.empty());
  EXPECT_NE(r.findings.notes[0].find("only 2 nodes"), std::string::npos);
}

TEST(FabricAttribution, SevereCulpritsComeFirst) {
  Figures f;
  f.gbps = [](int a, int b, int) {
    if (a == 1 || b == 1) return 16.0;                    // 80%
    if ((a == 4 && b == 6) || (a == 6 && b == 4)) return 4.0;  // 20%
    return 20.0;
  };
  const Result r = make_fabric(8, 1, f);
  EXPECT_EQ(culprit_names(r), (Names{"pair n4-n6 rail 0", "node n1"}));
}

}  // namespace
}  // namespace xb::fabric
