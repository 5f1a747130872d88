#include "fabric/attribution.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/format.h>

namespace xb::fabric {
namespace {

bool judges_bandwidth(Judge j) { return j != Judge::latency; }
bool judges_latency(Judge j) { return j != Judge::bandwidth; }

bool usable(const std::optional<Leg>& l) { return l && measured(*l) && l->verified; }

double latency_p50(const Leg& l) { return l.one_way_s.median; }

// The medians every pair is set against.
void fabric_medians(const std::vector<PairRecord>& pairs, Findings& f) {
  std::vector<double> bw, lat;
  bw.reserve(2 * pairs.size());
  lat.reserve(pairs.size());
  for (const PairRecord& p : pairs) {
    if (usable(p.ab)) bw.push_back(gbps_p50(*p.ab));
    if (usable(p.ba)) bw.push_back(gbps_p50(*p.ba));
    if (usable(p.latency) && latency_p50(*p.latency) > 0) lat.push_back(latency_p50(*p.latency));
  }
  f.median_gbps = median(std::move(bw));
  f.median_latency_s = median(std::move(lat));
}

PairJudgement judge_pair(const PairRecord& p, const Findings& f) {
  PairJudgement j;
  const auto failed = [](const std::optional<Leg>& l) { return l && (!l->error.empty() || !l->verified); };
  j.failed = !p.error.empty() || failed(p.ab) || failed(p.ba) || failed(p.latency);
  double worst = 0;
  bool any = false;
  const auto take = [&](double ratio) {
    worst = any ? std::min(worst, ratio) : ratio;
    any = true;
  };
  if (usable(p.ab) && f.median_gbps > 0) j.ratio_ab = gbps_p50(*p.ab) / f.median_gbps;
  if (usable(p.ba) && f.median_gbps > 0) j.ratio_ba = gbps_p50(*p.ba) / f.median_gbps;
  if (usable(p.latency) && latency_p50(*p.latency) > 0) j.ratio_latency = f.median_latency_s / latency_p50(*p.latency);
  if (judges_bandwidth(f.judge)) {
    if (j.ratio_ab > 0) take(j.ratio_ab);
    if (j.ratio_ba > 0) take(j.ratio_ba);
  }
  if (judges_latency(f.judge) && j.ratio_latency > 0) take(j.ratio_latency);
  j.worst = any ? worst : 0;
  j.low = any && worst < f.min_ratio;
  return j;
}

// What the attribution works on: per pair its nodes, rail, low flag and ratio.
struct Context {
  const std::vector<PairRecord>& pairs;
  const std::vector<std::string>& names;
  const std::vector<int>& rails_of;
  Findings& f;
  int rails = 0;
  std::vector<bool> explained;  // per pair: a culprit accounts for it
};

double median_ratio(const Context& c, const std::vector<std::size_t>& idx) {
  std::vector<double> v;
  for (std::size_t i : idx) v.push_back(c.f.pairs[i].worst);
  return median(std::move(v));
}

std::string pct(double ratio) { return fmt::format("{:.0f}%", ratio * 100); }

void find_rails(Context& c) {
  if (c.rails < 2) return;
  const int nodes = static_cast<int>(c.names.size());
  for (int r = 0; r < c.rails; ++r) {
    std::vector<std::size_t> low;
    int measured_pairs = 0;
    std::vector<bool> touched(static_cast<std::size_t>(nodes), false);
    for (std::size_t i = 0; i < c.pairs.size(); ++i) {
      if (c.pairs[i].rail != r || c.f.pairs[i].worst == 0) continue;
      ++measured_pairs;
      if (!c.f.pairs[i].low) continue;
      low.push_back(i);
      touched[static_cast<std::size_t>(c.pairs[i].a)] = touched[static_cast<std::size_t>(c.pairs[i].b)] = true;
    }
    const int on_rail = static_cast<int>(std::count_if(c.rails_of.begin(), c.rails_of.end(), [r](int n) { return n > r; }));
    const int spread = static_cast<int>(std::count(touched.begin(), touched.end(), true));
    const int l = static_cast<int>(low.size());
    if (l < 2 || 2 * l <= measured_pairs || spread < 3 || 2 * spread <= on_rail) continue;
    Culprit k{CulpritKind::rail, -1, -1, r, l, measured_pairs, median_ratio(c, low), fmt::format("rail {}", r), ""};
    k.why = fmt::format("{} of {} pairs on rail {}, across {} of {} nodes, below {} of the fabric median (their "
                        "median {}): the rail's switch, or what every node's rail {} shares",
                        l, measured_pairs, r, spread, on_rail, pct(c.f.min_ratio), pct(k.median_ratio), r);
    for (std::size_t i : low) c.explained[i] = true;
    c.f.culprits.push_back(std::move(k));
  }
}

// Low and measured pairs of each (node, rail) that no culprit explains yet.
struct Tally {
  std::vector<int> low, measured;
};

Tally tally(const Context& c) {
  const std::size_t cells = c.names.size() * static_cast<std::size_t>(std::max(c.rails, 1));
  Tally t{std::vector<int>(cells, 0), std::vector<int>(cells, 0)};
  for (std::size_t i = 0; i < c.pairs.size(); ++i) {
    const PairRecord& p = c.pairs[i];
    if (c.f.pairs[i].worst == 0 || c.explained[i]) continue;
    for (int n : {p.a, p.b}) {
      const std::size_t cell = static_cast<std::size_t>(n) * static_cast<std::size_t>(c.rails) + static_cast<std::size_t>(p.rail);
      ++t.measured[cell];
      if (c.f.pairs[i].low) ++t.low[cell];
    }
  }
  return t;
}

// The clearest (node, rail) still standing: the largest share of low
// pairs, then the most; -1 when none qualifies.
long clearest(const Tally& t) {
  long best = -1;
  for (std::size_t cell = 0; cell < t.low.size(); ++cell) {
    const int l = t.low[cell], m = t.measured[cell];
    if (l < 2 || 2 * l <= m) continue;
    if (best < 0) {
      best = static_cast<long>(cell);
      continue;
    }
    const auto b = static_cast<std::size_t>(best);
    const long lhs = static_cast<long>(l) * t.measured[b], rhs = static_cast<long>(t.low[b]) * m;
    if (lhs > rhs || (lhs == rhs && l > t.low[b])) best = static_cast<long>(cell);
  }
  return best;
}

// Node-rail culprits, greedily; returns them by node.
std::map<int, std::vector<Culprit>> find_node_rails(Context& c) {
  std::map<int, std::vector<Culprit>> by_node;
  while (true) {
    const Tally t = tally(c);
    const long cell = clearest(t);
    if (cell < 0) break;
    const int node = static_cast<int>(cell / c.rails), rail = static_cast<int>(cell % c.rails);
    std::vector<std::size_t> low;
    for (std::size_t i = 0; i < c.pairs.size(); ++i) {
      const PairRecord& p = c.pairs[i];
      if (p.rail != rail || (p.a != node && p.b != node) || c.explained[i] || !c.f.pairs[i].low) continue;
      low.push_back(i);
      c.explained[i] = true;
    }
    const auto ci = static_cast<std::size_t>(cell);
    by_node[node].push_back(Culprit{CulpritKind::node_rail, node, -1, rail, t.low[ci], t.measured[ci],
                                    median_ratio(c, low), "", ""});
  }
  return by_node;
}

// A node is bad on every rail when each of its rails is a node-rail
// culprit or a culprit rail (whose pairs are all low anyway).
void name_node_culprits(Context& c, const std::map<int, std::vector<Culprit>>& by_node) {
  std::vector<bool> rail_culprit(static_cast<std::size_t>(std::max(c.rails, 1)), false);
  for (const Culprit& k : c.f.culprits)
    if (k.kind == CulpritKind::rail) rail_culprit[static_cast<std::size_t>(k.rail)] = true;
  for (const auto& [node, list] : by_node) {
    const std::string& name = c.names[static_cast<std::size_t>(node)];
    const int rails = c.rails_of[static_cast<std::size_t>(node)];
    int needed = 0;
    for (int r = 0; r < rails; ++r) needed += rail_culprit[static_cast<std::size_t>(r)] ? 0 : 1;
    if (static_cast<int>(list.size()) == needed) {
      Culprit k{CulpritKind::node, node, -1, -1, 0, 0, 0, fmt::format("node {}", name), ""};
      std::vector<double> ratios;
      for (const Culprit& x : list) {
        k.low += x.low;
        k.pairs += x.pairs;
        ratios.push_back(x.median_ratio);
      }
      k.median_ratio = median(ratios);
      k.why = fmt::format("{} of its {} pairs{} below {} of the fabric median (their median {}): the node itself: "
                          "its host, PCIe switch, NICs or GPUs",
                          k.low, k.pairs, rails > 1 ? ", on every rail," : "", pct(c.f.min_ratio), pct(k.median_ratio));
      c.f.culprits.push_back(std::move(k));
      continue;
    }
    for (Culprit k : list) {
      k.what = fmt::format("node {} rail {}", name, k.rail);
      k.why = fmt::format("{} of its {} pairs on rail {} below {} of the fabric median (their median {}): its rail-{} "
                          "GPU, NIC, their PCIe path or its cable",
                          k.low, k.pairs, k.rail, pct(c.f.min_ratio), pct(k.median_ratio), k.rail);
      c.f.culprits.push_back(std::move(k));
    }
  }
}

std::string worst_figure(const Context& c, std::size_t i) {
  const PairJudgement& j = c.f.pairs[i];
  const PairRecord& p = c.pairs[i];
  const std::string& a = c.names[static_cast<std::size_t>(p.a)];
  const std::string& b = c.names[static_cast<std::size_t>(p.b)];
  if (j.worst == j.ratio_ab) return fmt::format("bandwidth {}->{} at {}", a, b, pct(j.ratio_ab));
  if (j.worst == j.ratio_ba) return fmt::format("bandwidth {}->{} at {}", b, a, pct(j.ratio_ba));
  return fmt::format("latency at {} of the median's speed", pct(j.ratio_latency));
}

void find_pairs(Context& c) {
  std::map<std::pair<int, int>, std::vector<std::size_t>> low_by_pair;
  std::map<std::pair<int, int>, int> measured_by_pair;
  for (std::size_t i = 0; i < c.pairs.size(); ++i) {
    const auto key = std::make_pair(c.pairs[i].a, c.pairs[i].b);
    if (c.f.pairs[i].worst > 0) ++measured_by_pair[key];
    if (c.f.pairs[i].low && !c.explained[i]) low_by_pair[key].push_back(i);
  }
  for (const auto& [key, low] : low_by_pair) {
    const std::string name = fmt::format("{}-{}", c.names[static_cast<std::size_t>(key.first)],
                                         c.names[static_cast<std::size_t>(key.second)]);
    const int measured_pairs = measured_by_pair[key];
    if (low.size() >= 2 && static_cast<int>(low.size()) == measured_pairs) {
      Culprit k{CulpritKind::pair, key.first, key.second, -1, measured_pairs, measured_pairs, median_ratio(c, low),
                fmt::format("pair {}", name), ""};
      k.why = fmt::format("low on all {} rails (their median {}), while both nodes are fine with other nodes: the "
                          "path between them (switch ports, the route between their switches)",
                          measured_pairs, pct(k.median_ratio));
      c.f.culprits.push_back(std::move(k));
      continue;
    }
    for (std::size_t i : low) {
      const int rail = c.pairs[i].rail;
      Culprit k{CulpritKind::pair_rail, key.first, key.second, rail, 1, 1, c.f.pairs[i].worst,
                fmt::format("pair {} rail {}", name, rail), ""};
      k.why = fmt::format("{}, while both ends are fine with other nodes on rail {}: the cable, switch ports or "
                          "route between them",
                          worst_figure(c, i), rail);
      c.f.culprits.push_back(std::move(k));
    }
  }
}

void add_notes(const Context& c) {
  const std::size_t nodes = c.names.size();
  if (nodes == 2)
    c.f.notes.push_back("only 2 nodes: a slow pair cannot be told from a slow node (each node has one partner)");
  if (c.rails == 2)
    c.f.notes.push_back("2 rails: a slow rail is half of all pairs and moves the median itself; a rail is named "
                        "only when it is far below the other");
  std::vector<int> partners(nodes, 0);
  for (const PairRecord& p : c.pairs) {
    if (p.rail != 0) continue;
    ++partners[static_cast<std::size_t>(p.a)];
    ++partners[static_cast<std::size_t>(p.b)];
  }
  if (nodes > 2 && !partners.empty() && *std::min_element(partners.begin(), partners.end()) < 2)
    c.f.notes.push_back("a node met fewer than 2 others: its slow pair cannot be told from a slow node");
}

}  // namespace

Findings attribute(const std::vector<PairRecord>& pairs, const std::vector<std::string>& names,
                   const std::vector<int>& rails_of, double min_ratio, Judge judge) {
  Findings f;
  f.min_ratio = min_ratio;
  f.judge = judge;
  fabric_medians(pairs, f);
  f.pairs.reserve(pairs.size());
  for (const PairRecord& p : pairs) {
    f.pairs.push_back(judge_pair(p, f));
    f.low_pairs += f.pairs.back().low ? 1 : 0;
    f.failed_pairs += f.pairs.back().failed ? 1 : 0;
  }
  Context c{pairs, names, rails_of, f, 0, std::vector<bool>(pairs.size(), false)};
  for (const PairRecord& p : pairs) c.rails = std::max(c.rails, p.rail + 1);
  add_notes(c);
  find_rails(c);
  name_node_culprits(c, find_node_rails(c));
  find_pairs(c);
  std::stable_sort(f.culprits.begin(), f.culprits.end(),
                   [](const Culprit& x, const Culprit& y) { return x.median_ratio < y.median_ratio; });
  return f;
}

Findings attribute(const Result& r) {
  std::vector<std::string> names;
  std::vector<int> rails_of;
  for (const Node& n : r.nodes) {
    names.push_back(n.name);
    rails_of.push_back(static_cast<int>(n.ranks.size()));
  }
  return attribute(r.pairs, names, rails_of, r.options.min_ratio, r.options.judge);
}

}  // namespace xb::fabric
