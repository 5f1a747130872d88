// The fabric's schedule (src/fabric/schedule.hpp): every pair exactly once
// up to 64 nodes, odd counts included; K matchings that cover every node K
// times above; rails together or one at a time; the plan's counts.
#include <gtest/gtest.h>

#include <set>

#include "base/error.hpp"
#include "fabric/schedule.hpp"

namespace xb::fabric {
namespace {

// Each round's pairs are disjoint; returns how often each node played.
std::vector<int> check_disjoint(const NodeSchedule& s, int nodes) {
  std::vector<int> played(static_cast<std::size_t>(nodes), 0);
  for (const auto& round : s.rounds) {
    std::set<int> seen;
    for (const NodePair& p : round) {
      EXPECT_LT(p.a, p.b);
      EXPECT_GE(p.a, 0);
      EXPECT_LT(p.b, nodes);
      EXPECT_TRUE(seen.insert(p.a).second) << "node " << p.a << " twice in a round";
      EXPECT_TRUE(seen.insert(p.b).second) << "node " << p.b << " twice in a round";
      ++played[static_cast<std::size_t>(p.a)];
      ++played[static_cast<std::size_t>(p.b)];
    }
  }
  return played;
}

TEST(FabricSchedule, EveryPairExactlyOnceUpTo64NodesOddIncluded) {
  for (int n = 2; n <= 64; ++n) {
    const NodeSchedule s = node_schedule(n, 0, 7);
    EXPECT_TRUE(s.all_pairs);
    EXPECT_EQ(static_cast<int>(s.rounds.size()), n % 2 == 0 ? n - 1 : n) << n << " nodes";
    check_disjoint(s, n);
    std::set<std::pair<int, int>> pairs;
    for (const auto& round : s.rounds)
      for (const NodePair& p : round) EXPECT_TRUE(pairs.insert({p.a, p.b}).second) << n << " nodes: pair twice";
    EXPECT_EQ(pairs.size(), static_cast<std::size_t>(n * (n - 1) / 2)) << n << " nodes";
    EXPECT_EQ(pair_count(s), pairs.size());
  }
}

TEST(FabricSchedule, KMatchingsCoverEveryNodeKTimesWithoutRepeatingAPair) {
  for (int n : {66, 100, 128, 1024}) {
    for (int k : {1, 4, 16}) {
      const NodeSchedule s = node_schedule(n, k, 3);
      EXPECT_FALSE(s.all_pairs);
      ASSERT_EQ(static_cast<int>(s.rounds.size()), k);
      for (const auto& round : s.rounds) EXPECT_EQ(static_cast<int>(round.size()), n / 2) << "a perfect matching";
      for (int played : check_disjoint(s, n)) EXPECT_EQ(played, k);
      std::set<std::pair<int, int>> pairs;
      for (const auto& round : s.rounds)
        for (const NodePair& p : round) EXPECT_TRUE(pairs.insert({p.a, p.b}).second) << "pair twice";
    }
  }
}

TEST(FabricSchedule, OddNodeCountsGiveOneByePerRoundToDifferentNodes) {
  const int n = 101, k = 10;
  const NodeSchedule s = node_schedule(n, k, 5);
  std::set<int> byes;
  for (const auto& round : s.rounds) {
    EXPECT_EQ(static_cast<int>(round.size()), (n - 1) / 2);
    std::vector<bool> in(n, false);
    for (const NodePair& p : round) in[static_cast<std::size_t>(p.a)] = in[static_cast<std::size_t>(p.b)] = true;
    for (int x = 0; x < n; ++x) {
      if (!in[static_cast<std::size_t>(x)]) {
        EXPECT_TRUE(byes.insert(x).second) << "node " << x << " sat out twice";
      }
    }
  }
  EXPECT_EQ(static_cast<int>(byes.size()), k);
  for (int played : check_disjoint(s, n)) EXPECT_TRUE(played == k || played == k - 1);
}

TEST(FabricSchedule, TheSeedDecidesTheMatchingsAndNothingElse) {
  const auto flat = [](const NodeSchedule& s) {
    std::vector<std::pair<int, int>> out;
    for (const auto& round : s.rounds)
      for (const NodePair& p : round) out.emplace_back(p.a, p.b);
    return out;
  };
  EXPECT_EQ(flat(node_schedule(200, 8, 11)), flat(node_schedule(200, 8, 11)));
  EXPECT_NE(flat(node_schedule(200, 8, 11)), flat(node_schedule(200, 8, 12)));
  EXPECT_EQ(node_schedule(200, 8, 11).seed, 11u);
}

TEST(FabricSchedule, RoundsAskForFewerPairsOrForAll) {
  EXPECT_EQ(node_schedule(65, 0, 1).rounds.size(), 16u);  // above 64 nodes: 16 matchings by default
  EXPECT_FALSE(node_schedule(65, 0, 1).all_pairs);
  EXPECT_TRUE(node_schedule(65, 64, 1).all_pairs);  // N - 1 rounds or more: every pair
  EXPECT_EQ(node_schedule(65, 64, 1).rounds.size(), 65u);
  EXPECT_FALSE(node_schedule(8, 3, 1).all_pairs);  // fewer than N - 1 on a small fabric
  EXPECT_EQ(node_schedule(8, 3, 1).rounds.size(), 3u);
  EXPECT_TRUE(node_schedule(8, 7, 1).all_pairs);
}

TEST(FabricSchedule, FewerThanTwoNodesIsAUsageError) {
  try {
    node_schedule(1, 0, 1);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_NE(std::string(e.what()).find("2 or more nodes"), std::string::npos);
  }
}

TEST(FabricSchedule, RailsRunTogetherOrOneAtATimeAndOnlyWhereBothNodesHaveThem) {
  const NodeSchedule s = node_schedule(4, 0, 1);  // 3 rounds of 2 pairs
  const std::vector<int> rails = {2, 2, 2, 1};    // node 3 has one rail
  const auto together = slot_rounds(s, rails, false);
  ASSERT_EQ(together.size(), 3u);
  std::size_t slots = 0;
  for (const auto& round : together) slots += round.size();
  EXPECT_EQ(slots, 3u * 2 + 3u * 1 + 0);  // pairs among 0..2: 3 x 2 rails; pairs with node 3: 3 x 1 rail
  const auto apart = slot_rounds(s, rails, true);
  EXPECT_EQ(apart.size(), 6u);  // every round has rail 0 and rail 1 pairs
  for (const auto& round : apart) {
    std::set<int> in_round;
    for (const Slot& x : round) in_round.insert(x.rail);
    EXPECT_EQ(in_round.size(), 1u) << "one rail per round";
  }
}

TEST(FabricSchedule, ThePlanCountsPairsAndRoundsAndEstimatesFromItsAssumptions) {
  Options o;
  o.bytes = 1 << 20;
  o.window = 1;
  o.bw_reps = 9;
  o.bw_warmup = 1;
  o.latency_reps = 90;
  o.latency_warmup = 10;
  o.assume_gbps = 1.048576;  // 1 ms per MiB
  o.assume_latency_s = 1e-6;
  o.assume_setup_s = 0;
  const Plan p = make_plan(node_schedule(8, 0, 1), std::vector<int>(8, 4), o);
  EXPECT_EQ(p.nodes, 8);
  EXPECT_EQ(p.rails, 4);
  EXPECT_EQ(p.node_rounds, 7);
  EXPECT_EQ(p.rounds, 7);
  EXPECT_EQ(p.node_pairs, 28u);
  EXPECT_EQ(p.pairs, 112u);
  // per round: 2 directions x 10 MiB at 1 ms per MiB + 100 round trips of 2 us
  EXPECT_NEAR(p.estimated_s, 7 * (2 * 10e-3 + 100 * 2e-6), 1e-9);
  o.rails_one = true;
  EXPECT_EQ(make_plan(node_schedule(8, 0, 1), std::vector<int>(8, 4), o).rounds, 28);
}

}  // namespace
}  // namespace xb::fabric
