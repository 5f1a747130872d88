#include "fabric/schedule.hpp"

#include <algorithm>
#include <numeric>
#include <random>

#include <fmt/format.h>

#include "base/error.hpp"
#include "fabric/options.hpp"
#include "pingpong/schedule.hpp"

namespace xb::fabric {
namespace {

// A seeded shuffle that is the same with every standard library
// (std::shuffle's algorithm is not specified; mt19937_64's output is).
std::vector<int> seeded_order(int n, std::uint64_t seed) {
  std::vector<int> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(seed);
  for (int i = n - 1; i > 0; --i) {
    const auto j = static_cast<int>(rng() % static_cast<std::uint64_t>(i + 1));
    std::swap(order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(j)]);
  }
  return order;
}

// `count` rounds of the circle method over `order` (positions, then mapped
// to nodes): disjoint pairs in each round, no pair twice.
std::vector<std::vector<NodePair>> circle_rounds(const std::vector<int>& order, int count) {
  const int n = static_cast<int>(order.size());
  const int m = n + (n % 2);  // an odd count gets a phantom: whoever meets it has the bye
  std::vector<int> circle(static_cast<std::size_t>(m));
  std::iota(circle.begin(), circle.end(), 0);
  std::vector<std::vector<NodePair>> rounds;
  rounds.reserve(static_cast<std::size_t>(count));
  for (int round = 0; round < count; ++round) {
    std::vector<NodePair> pairs;
    pairs.reserve(static_cast<std::size_t>(m / 2));
    for (int i = 0; i < m / 2; ++i) {
      const int x = circle[static_cast<std::size_t>(i)], y = circle[static_cast<std::size_t>(m - 1 - i)];
      if (x >= n || y >= n) continue;
      const int a = order[static_cast<std::size_t>(x)], b = order[static_cast<std::size_t>(y)];
      pairs.push_back({std::min(a, b), std::max(a, b)});
    }
    std::sort(pairs.begin(), pairs.end(), [](const NodePair& p, const NodePair& q) { return p.a < q.a; });
    rounds.push_back(std::move(pairs));
    std::rotate(circle.begin() + 1, circle.end() - 1, circle.end());
  }
  return rounds;
}

}  // namespace

NodeSchedule node_schedule(int nodes, int requested, std::uint64_t seed) {
  if (nodes < 2) fail(ErrorKind::usage, fmt::format("a fabric needs 2 or more nodes, got {}", nodes));
  if (requested < 0) fail(ErrorKind::usage, fmt::format("invalid --rounds '{}': must be 0 or more", requested));
  const int every = nodes - 1 + (nodes % 2);  // rounds of the full round-robin
  const int wanted = requested > 0 ? requested : nodes <= kAllPairsMaxNodes ? every : kDefaultRounds;
  NodeSchedule s;
  if (wanted >= nodes - 1) {
    for (const auto& round : pingpong::round_robin(nodes)) {
      std::vector<NodePair> pairs;
      for (const auto& [a, b] : round) pairs.push_back({a, b});
      s.rounds.push_back(std::move(pairs));
    }
    return s;
  }
  s.all_pairs = false;
  s.seed = seed;
  s.rounds = circle_rounds(seeded_order(nodes, seed), wanted);
  return s;
}

std::vector<std::vector<Slot>> slot_rounds(const NodeSchedule& s, const std::vector<int>& rails_of, bool rails_one) {
  const int rails = rails_of.empty() ? 0 : *std::max_element(rails_of.begin(), rails_of.end());
  std::vector<std::vector<Slot>> out;
  for (const auto& round : s.rounds) {
    std::vector<std::vector<Slot>> by_rail(static_cast<std::size_t>(rails_one ? rails : 1));
    for (const NodePair& p : round) {
      const int shared = std::min(rails_of.at(static_cast<std::size_t>(p.a)), rails_of.at(static_cast<std::size_t>(p.b)));
      for (int r = 0; r < shared; ++r) by_rail[rails_one ? static_cast<std::size_t>(r) : 0].push_back({p.a, p.b, r});
    }
    for (auto& slots : by_rail)
      if (!slots.empty()) out.push_back(std::move(slots));
  }
  return out;
}

std::size_t pair_count(const NodeSchedule& s) {
  std::size_t n = 0;
  for (const auto& round : s.rounds) n += round.size();
  return n;
}

Plan make_plan(const NodeSchedule& s, const std::vector<int>& rails_of, const Options& o) {
  Plan p;
  p.nodes = static_cast<int>(rails_of.size());
  p.rails = rails_of.empty() ? 0 : *std::max_element(rails_of.begin(), rails_of.end());
  p.all_pairs = s.all_pairs;
  p.seed = s.seed;
  p.node_rounds = static_cast<int>(s.rounds.size());
  p.node_pairs = pair_count(s);
  const auto rounds = slot_rounds(s, rails_of, o.rails_one);
  p.rounds = static_cast<int>(rounds.size());
  for (const auto& round : rounds) p.pairs += round.size();
  const double bw_leg = o.assume_setup_s + static_cast<double>(o.bw_warmup + o.bw_reps) * o.window *
                                               static_cast<double>(o.bytes) / (o.assume_gbps * 1e9);
  const double lat_leg = o.assume_setup_s + (o.latency_warmup + o.latency_reps) * 2 * o.assume_latency_s;
  p.estimated_s = static_cast<double>(p.rounds) * (2 * bw_leg + lat_leg);
  return p;
}

}  // namespace xb::fabric
