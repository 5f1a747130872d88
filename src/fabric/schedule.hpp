// Which node pairs meet in which round (docs/fabric.md, "Schedule"). A
// round is a set of disjoint node pairs, measured at the same time; rounds
// never overlap. Up to kAllPairsMaxNodes nodes every pair meets once
// (round-robin, the circle method: N - 1 rounds, N with a bye each round
// for odd N); above that, or when --rounds asks for fewer, K rounds of the
// same circle over a seeded random order of the nodes: K perfect matchings
// (one bye per round for odd N) in which no pair meets twice, so each node
// meets K different others. Pure functions of (N, K, seed): every rank
// computes the same schedule.
#pragma once

#include <cstdint>
#include <vector>

#include "fabric/result.hpp"

namespace xb::fabric {

struct NodePair {
  int a = 0, b = 0;  // node indices, a < b
};

struct NodeSchedule {
  bool all_pairs = true;    // every pair once; false: `rounds.size()` random matchings
  std::uint64_t seed = 0;   // of the node order (random matchings)
  std::vector<std::vector<NodePair>> rounds;
};

// `requested` 0: every pair up to kAllPairsMaxNodes nodes, else
// kDefaultRounds matchings. A request of N - 1 or more rounds (every pair)
// gives every pair. Error(usage) for fewer than 2 nodes.
NodeSchedule node_schedule(int nodes, int requested, std::uint64_t seed);

// The pairs of rank-level work: node pair x rail.
struct Slot {
  int a = 0, b = 0;  // node indices, a < b
  int rail = 0;
};

// Each node round's pairs on every rail at once (a node pair's rails run
// together, as a job's traffic does), or with `rails_one` one round per
// rail. `rails_of[n]`: how many rails (ranks) node n has; a pair is on rail
// r only when both nodes have it.
std::vector<std::vector<Slot>> slot_rounds(const NodeSchedule& s, const std::vector<int>& rails_of, bool rails_one);

// The number of node pairs in the schedule.
std::size_t pair_count(const NodeSchedule& s);

// The plan of a run over `rails_of.size()` nodes, with its estimated time:
// per pair two bandwidth legs and a latency leg at the options' assumed
// bandwidth, latency and setup time; the pairs of a round run at once.
Plan make_plan(const NodeSchedule& s, const std::vector<int>& rails_of, const Options& o);

}  // namespace xb::fabric
