// A fabric result made from figures, not measured: N nodes x R rails, the
// pairs of the real schedule, each leg a verified pingpong size record
// whose p50 gives the bandwidth or latency a test asks for. Used by the
// attribution, report and compare tests.
#pragma once

#include <functional>
#include <string>

#include <fmt/format.h>

#include "fabric/attribution.hpp"
#include "fabric/schedule.hpp"

namespace xb::fabric::testing {

inline constexpr std::uint64_t kBytes = 1 << 20;

// A leg whose median message time gives `gbps` (bandwidth legs) or `seconds` (latency).
inline Leg bandwidth_leg(double gbps, std::uint64_t bytes = kBytes) {
  Leg l;
  l.bytes = bytes;
  const double t = static_cast<double>(bytes) / (gbps * 1e9);
  l.one_way_s.count = 10;
  l.one_way_s.median = l.one_way_s.mean = t;
  l.one_way_s.min = t * 0.99;
  l.one_way_s.max = l.one_way_s.p95 = l.one_way_s.p99 = t * 1.02;
  l.one_way_s.stddev = t * 0.005;
  l.bandwidth_gbps = gbps;
  l.verified = true;
  return l;
}

inline Leg latency_leg(double seconds) {
  Leg l;
  l.bytes = 8;
  l.one_way_s.count = 1000;
  l.one_way_s.median = l.one_way_s.mean = seconds;
  l.one_way_s.min = seconds * 0.95;
  l.one_way_s.p95 = seconds * 1.1;
  l.one_way_s.max = l.one_way_s.p99 = seconds * 1.3;
  l.one_way_s.stddev = seconds * 0.05;
  l.verified = true;
  return l;
}

// gbps(from, to, rail) and latency(a, b, rail) of every pair.
struct Figures {
  std::function<double(int, int, int)> gbps = [](int, int, int) { return 20.0; };
  std::function<double(int, int, int)> latency = [](int, int, int) { return 3e-6; };
};

inline Result make_fabric(int nodes, int rails, const Figures& f, int rounds = 0, double min_ratio = 0.85) {
  Result r;
  r.options.bytes = kBytes;
  r.options.min_ratio = min_ratio;
  r.options.buffers.gpu = true;
  r.world_size = nodes * rails;
  std::vector<int> rails_of(static_cast<std::size_t>(nodes), rails);
  for (int n = 0; n < nodes; ++n) {
    Node node{fmt::format("n{}", n), {}, {}};
    for (int k = 0; k < rails; ++k) {
      node.ranks.push_back(n * rails + k);
      node.gpus.push_back(k);
    }
    r.nodes.push_back(node);
  }
  const NodeSchedule s = node_schedule(nodes, rounds, 1);
  r.plan = make_plan(s, rails_of, r.options);
  const auto by_round = slot_rounds(s, rails_of, false);
  for (std::size_t k = 0; k < by_round.size(); ++k) {
    for (const Slot& x : by_round[k]) {
      PairRecord p;
      p.a = x.a;
      p.b = x.b;
      p.rail = x.rail;
      p.round = static_cast<int>(k);
      p.rank_a = x.a * rails + x.rail;
      p.rank_b = x.b * rails + x.rail;
      p.gpu_a = p.gpu_b = x.rail;
      p.transport = "nccl";
      p.path = "NCCL NET/IB/0/GDRDMA";
      p.ab = bandwidth_leg(f.gbps(x.a, x.b, x.rail));
      p.ba = bandwidth_leg(f.gbps(x.b, x.a, x.rail));
      p.latency = latency_leg(f.latency(x.a, x.b, x.rail));
      r.pairs.push_back(p);
    }
  }
  r.findings = attribute(r);
  return r;
}

inline std::vector<std::string> culprit_names(const Result& r) {
  std::vector<std::string> out;
  for (const Culprit& c : r.findings.culprits) out.push_back(c.what);
  return out;
}

}  // namespace xb::fabric::testing
