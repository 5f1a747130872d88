// Times the fabric's schedule and attribution for many simulated nodes on
// one CPU machine, and checks that planted culprits are found: the
// schedule of N nodes (every pair up to 64, else K random matchings), one
// pair record per node pair and rail with figures made up here (20 GB/s
// and 3 us with +-3% seeded noise), a slow node (50%), a slow pair on rail
// 0 (30%) and, with 3 or more rails, a slow last rail (60%); then
// attribution, the text report and the JSON document. Nothing is measured:
// what is timed is the fabric's own bookkeeping at scale.
//
// usage: fabric_scale_bench NODES [RAILS] [ROUNDS]   (ROUNDS 0: the default schedule)
// Built as the fabric_scale_bench target; bench/suites/fabric_scale.sh records it.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <random>
#include <set>
#include <string>

#include <fmt/format.h>

#include "fabric/attribution.hpp"
#include "fabric/fabric_json.hpp"
#include "fabric/schedule.hpp"
#include "report/fabric_report.hpp"

namespace {

using namespace xb::fabric;

double cpu_s() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

Leg leg(std::uint64_t bytes, double seconds, int count) {
  Leg l;
  l.bytes = bytes;
  l.one_way_s.count = count;
  l.one_way_s.median = l.one_way_s.mean = seconds;
  l.one_way_s.min = seconds * 0.98;
  l.one_way_s.p95 = l.one_way_s.p99 = l.one_way_s.max = seconds * 1.05;
  l.one_way_s.stddev = seconds * 0.01;
  l.verified = true;
  return l;
}

struct Planted {
  int node = -1, pair_a = -1, pair_b = -1, rail = -1;
};

// The first rail-0 slot of round 0 away from the slow node.
void pick_pair(const std::vector<std::vector<Slot>>& rounds, Planted& p) {
  for (const Slot& s : rounds.at(0))
    if (s.rail == 0 && s.a != p.node && s.b != p.node) {
      p.pair_a = s.a;
      p.pair_b = s.b;
      return;
    }
}

double factor(const Planted& p, const Slot& s) {
  if (s.a == p.node || s.b == p.node) return 0.5;
  if (s.rail == p.rail) return 0.6;
  if (s.rail == 0 && s.a == p.pair_a && s.b == p.pair_b) return 0.3;
  return 1.0;
}

Result simulate(int nodes, int rails, int rounds, double& schedule_cpu, Planted& planted) {
  Result r;
  r.options.bytes = 64ULL << 20;
  r.world_size = nodes * rails;
  for (int n = 0; n < nodes; ++n) {
    Node node{fmt::format("n{}", n), {}, {}};
    for (int k = 0; k < rails; ++k) {
      node.ranks.push_back(n * rails + k);
      node.gpus.push_back(k);
    }
    r.nodes.push_back(std::move(node));
  }
  const std::vector<int> rails_of(static_cast<std::size_t>(nodes), rails);
  const double t0 = cpu_s();
  const NodeSchedule s = node_schedule(nodes, rounds, 1);
  const auto by_round = slot_rounds(s, rails_of, false);
  r.plan = make_plan(s, rails_of, r.options);
  schedule_cpu = cpu_s() - t0;
  planted.node = nodes / 3;
  planted.rail = rails >= 3 ? rails - 1 : -1;
  pick_pair(by_round, planted);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> noise(0.97, 1.03);
  const double bw_t = static_cast<double>(r.options.bytes) / 20e9;
  for (std::size_t k = 0; k < by_round.size(); ++k)
    for (const Slot& x : by_round[k]) {
      PairRecord p;
      p.a = x.a;
      p.b = x.b;
      p.rail = x.rail;
      p.round = static_cast<int>(k);
      p.transport = "nccl";
      p.path = "NCCL NET/IB/0/GDRDMA";
      const double f = factor(planted, x);
      p.ab = leg(r.options.bytes, bw_t / f * noise(rng), 10);
      p.ba = leg(r.options.bytes, bw_t / f * noise(rng), 10);
      p.latency = leg(8, 3e-6 / f * noise(rng), 1000);
      r.pairs.push_back(std::move(p));
    }
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: fabric_scale_bench NODES [RAILS] [ROUNDS]\n");
    return 2;
  }
  const int nodes = std::atoi(argv[1]), rails = argc > 2 ? std::atoi(argv[2]) : 8, rounds = argc > 3 ? std::atoi(argv[3]) : 0;
  if (nodes < 4 || rails < 1 || rounds < 0) {
    std::fprintf(stderr, "fabric_scale_bench: NODES must be 4 or more, RAILS 1 or more, ROUNDS 0 or more\n");
    return 2;
  }
  double schedule_cpu = 0;
  Planted planted;
  const double sim0 = cpu_s();
  Result r = simulate(nodes, rails, rounds, schedule_cpu, planted);
  const double sim_cpu = cpu_s() - sim0 - schedule_cpu;
  const double a0 = cpu_s();
  r.findings = attribute(r);
  const double attribution_cpu = cpu_s() - a0;
  const double rss_after_attribution = peak_rss_mib();
  const double t0 = cpu_s();
  const std::string text = xb::report::fabric_text(r);
  const double text_cpu = cpu_s() - t0;
  const double j0 = cpu_s();
  const std::size_t json_bytes = fabric_json(r).dump().size();
  const double json_cpu = cpu_s() - j0;
  std::printf("fabric_scale_bench: %d nodes x %d rails, %d rounds, %zu pairs\n", nodes, rails, r.plan.rounds,
              r.pairs.size());
  std::printf("  schedule (and plan):       %.3f s CPU\n", schedule_cpu);
  std::printf("  schedule + attribution:    %.3f s CPU\n", schedule_cpu + attribution_cpu);
  std::printf("  making up the pairs:       %.3f s CPU (not part of the fabric)\n", sim_cpu);
  std::printf("  text report:               %.3f s CPU, %zu bytes\n", text_cpu, text.size());
  std::printf("  JSON document:             %.3f s CPU, %zu bytes\n", json_cpu, json_bytes);
  std::printf("  peak RSS after attribution: %.0f MiB (the pairs as records, the findings)\n", rss_after_attribution);
  std::printf("  peak RSS of the process:   %.0f MiB (with the JSON document)\n", peak_rss_mib());
  std::set<std::string> want = {fmt::format("node n{}", planted.node),
                                fmt::format("pair n{}-n{} rail 0", planted.pair_a, planted.pair_b)};
  if (planted.rail >= 0) want.insert(fmt::format("rail {}", planted.rail));
  std::set<std::string> got;
  for (const Culprit& c : r.findings.culprits) got.insert(c.what);
  std::string named;
  for (const auto& g : got) named += (named.empty() ? "" : ", ") + g;
  std::printf("  attribution named: %s\n", named.c_str());
  if (got != want || planted.pair_a < 0) {
    std::printf("  MISSED: the planted culprits were not named exactly\n");
    return 1;
  }
  std::printf("  all planted culprits found\n");
  return 0;
}
