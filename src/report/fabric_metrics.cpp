// The fabric's CSV (a row per pair), its Prometheus metrics, and check's
// verdict on a fabric file (fabric_report.hpp).
#include <cmath>

#include <fmt/format.h>

#include "report/fabric_report.hpp"
#include "report/formats.hpp"

namespace xb::report {
namespace {

using fabric::PairRecord;
using fabric::Result;

const std::string& name_of(const Result& r, int node) { return r.nodes.at(static_cast<std::size_t>(node)).name; }

std::string num(double v) { return v > 0 && std::isfinite(v) ? fmt::format("{:.6g}", v) : ""; }

std::string leg_csv(const std::optional<fabric::Leg>& l, bool latency) {
  if (!l || !fabric::measured(*l)) return ",,";
  if (latency) return fmt::format("{},{},{}", num(l->one_way_s.median), num(l->one_way_s.p99), l->verified ? 1 : 0);
  return fmt::format("{},{},{}", num(fabric::gbps_p50(*l)), num(fabric::gbps_p99(*l)), l->verified ? 1 : 0);
}

// One gauge family: HELP and TYPE once, then its samples.
struct Family {
  const char* name;
  const char* help;
  std::string samples;
  void add(const std::vector<std::pair<std::string, std::string>>& labels, double value) {
    if (!std::isfinite(value)) return;
    samples += name;
    for (std::size_t i = 0; i < labels.size(); ++i)
      samples += fmt::format("{}{}=\"{}\"", i == 0 ? "{" : ",", labels[i].first, prometheus_escape(labels[i].second));
    samples += fmt::format("{} {}\n", labels.empty() ? "" : "}", value);
  }
  std::string text() const {
    return samples.empty() ? "" : fmt::format("# HELP {0} {1}\n# TYPE {0} gauge\n{2}", name, help, samples);
  }
};

}  // namespace

std::string fabric_csv(const Result& r) {
  std::string out = "node_a,node_b,rail,round,transport,path,ab_gbps_p50,ab_gbps_p99,ab_verified,ba_gbps_p50,"
                    "ba_gbps_p99,ba_verified,latency_p50_s,latency_p99_s,latency_verified,worst_ratio,low,failed,error\n";
  for (std::size_t i = 0; i < r.pairs.size(); ++i) {
    const PairRecord& p = r.pairs[i];
    const auto& j = r.findings.pairs.at(i);
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_escape(name_of(r, p.a)), csv_escape(name_of(r, p.b)),
                       p.rail, p.round, csv_escape(p.transport), csv_escape(p.path), leg_csv(p.ab, false),
                       leg_csv(p.ba, false), leg_csv(p.latency, true), num(j.worst), j.low ? 1 : 0, j.failed ? 1 : 0,
                       csv_escape(p.error));
  }
  return out;
}

std::string fabric_prometheus(const Result& r) {
  Family bw{"xferbench_fabric_bandwidth_bytes_per_second",
            "Bandwidth from one node to another over one rail, measured by xferbench fabric, in bytes per second.", ""};
  Family lat{"xferbench_fabric_latency_seconds",
             "One-way latency between two nodes over one rail, measured by xferbench fabric, in seconds.", ""};
  Family ratio{"xferbench_fabric_pair_ratio",
               "Worst ratio of an xferbench fabric pair to the fabric's median (below 1: slower).", ""};
  Family low{"xferbench_fabric_pair_low", "1 when an xferbench fabric pair is below --min-ratio of the median.", ""};
  Family culprit{"xferbench_fabric_culprit", "1 for each culprit xferbench fabric named (node, rail or pair).", ""};
  Family lost{"xferbench_fabric_lost_rank", "1 for each rank an xferbench fabric run lost (dead or hung).", ""};
  Family code{"xferbench_fabric_exit_code", "Exit code of the last xferbench fabric run (0 passed).", ""};
  for (std::size_t i = 0; i < r.pairs.size(); ++i) {
    const PairRecord& p = r.pairs[i];
    const std::string a = name_of(r, p.a), b = name_of(r, p.b), rail = std::to_string(p.rail);
    for (const auto& [leg, src, dst] : {std::tuple{&p.ab, a, b}, std::tuple{&p.ba, b, a}}) {
      if (!*leg || !fabric::measured(**leg)) continue;
      bw.add({{"src", src}, {"dst", dst}, {"rail", rail}, {"stat", "p50"}}, fabric::gbps_p50(**leg) * 1e9);
      bw.add({{"src", src}, {"dst", dst}, {"rail", rail}, {"stat", "p99"}}, fabric::gbps_p99(**leg) * 1e9);
    }
    if (p.latency && fabric::measured(*p.latency)) {
      lat.add({{"node_a", a}, {"node_b", b}, {"rail", rail}, {"stat", "p50"}}, p.latency->one_way_s.median);
      lat.add({{"node_a", a}, {"node_b", b}, {"rail", rail}, {"stat", "p99"}}, p.latency->one_way_s.p99);
    }
    const auto& j = r.findings.pairs.at(i);
    if (j.worst > 0) ratio.add({{"node_a", a}, {"node_b", b}, {"rail", rail}}, j.worst);
    if (j.worst > 0) low.add({{"node_a", a}, {"node_b", b}, {"rail", rail}}, j.low ? 1 : 0);
  }
  for (const auto& c : r.findings.culprits)
    culprit.add({{"kind", fabric::to_string(c.kind)},
                 {"Hostname", c.a >= 0 ? name_of(r, c.a) : ""},
                 {"peer", c.b >= 0 ? name_of(r, c.b) : ""},
                 {"rail", c.rail >= 0 ? std::to_string(c.rail) : ""}},
                1);
  for (const auto& l : r.lost)
    lost.add({{"rank", std::to_string(l.rank)}, {"Hostname", name_of(r, l.node)}, {"rail", std::to_string(l.rail)}}, 1);
  code.add({}, fabric_exit_code(r));
  return bw.text() + lat.text() + ratio.text() + low.text() + culprit.text() + lost.text() + code.text();
}

std::string fabric_check_text(const Result& r, bool& passed) {
  std::string why;
  const auto add = [&](const std::string& s) { why += (why.empty() ? "" : "; ") + s; };
  for (const auto& c : r.findings.culprits) add(c.what + " (" + c.why + ")");
  for (const auto& l : r.lost) add(fmt::format("lost rank {} on node {} rail {}", l.rank, name_of(r, l.node), l.rail));
  if (r.findings.failed_pairs > 0) add(fmt::format("{} failed pairs", r.findings.failed_pairs));
  if (r.pairs.empty()) add("no pair was measured");
  if (r.completion.status != RunStatus::complete)
    add(fmt::format("the run is {}: {}", to_string(r.completion.status), r.completion.message));
  passed = why.empty();
  if (passed)
    return fmt::format("xferbench check: PASS fabric of {} nodes: {} pairs, none below {:.0f}% of the median\n",
                       r.nodes.size(), r.pairs.size(), r.findings.min_ratio * 100);
  return fmt::format("xferbench check: FAIL fabric of {} nodes: {}\n", r.nodes.size(), why);
}

}  // namespace xb::report
