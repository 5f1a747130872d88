#include "report/fabric_report.hpp"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "base/units.hpp"
#include "report/formats.hpp"

namespace xb::report {
namespace {

using fabric::Culprit;
using fabric::PairJudgement;
using fabric::PairRecord;
using fabric::Result;

constexpr std::size_t kWorstShown = 10;
constexpr int kMatrixMaxNodes = 64;

const std::string& name_of(const Result& r, int node) { return r.nodes.at(static_cast<std::size_t>(node)).name; }

std::string buffers_text(const Result& r) {
  return r.options.buffers.gpu ? "GPU buffers" : "host buffers";
}

std::string pct(double ratio) { return fmt::format("{:.0f}%", ratio * 100); }

std::string leg_gbps(const std::optional<fabric::Leg>& l, bool p99) {
  if (!l || !fabric::measured(*l)) return "-";
  return fmt::format("{:.2f}", p99 ? fabric::gbps_p99(*l) : fabric::gbps_p50(*l));
}

std::string leg_us(const std::optional<fabric::Leg>& l, bool p99) {
  if (!l || !fabric::measured(*l)) return "-";
  return fmt::format("{:.2f}", (p99 ? l->one_way_s.p99 : l->one_way_s.median) * 1e6);
}

std::string schedule_text(const Result& r) {
  const auto& p = r.plan;
  std::string how = p.all_pairs ? fmt::format("every pair of nodes in {} rounds", p.node_rounds)
                                : fmt::format("{} rounds of random matchings (seed {}): each node meets {} others",
                                              p.node_rounds, p.seed, p.node_rounds);
  return fmt::format("{}, {}: {} node pairs, {} pairs with rails, {} rounds", how,
                     r.options.rails_one ? "a pair's rails one at a time" : "a pair's rails at once", p.node_pairs,
                     p.pairs, p.rounds);
}

}  // namespace

std::string fabric_plan_text(const Result& r) {
  const auto& o = r.options;
  std::string out = fmt::format("# xferbench fabric: {} nodes x {} rails{}; {}, transport {}\n", r.plan.nodes,
                                r.plan.rails, r.world_size > 0 ? fmt::format(", {} ranks", r.world_size) : "",
                                buffers_text(r), pingpong::to_string(o.transport));
  out += fmt::format("# plan: {}\n", schedule_text(r));
  out += fmt::format("# each pair: bandwidth both ways, {} messages of {} in flight, {} repetitions (+{} warm-up); "
                     "one-way latency at {} B, {} round trips (+{})\n",
                     o.window, bytes_label(o.bytes), o.bw_reps, o.bw_warmup, o.latency_bytes, o.latency_reps,
                     o.latency_warmup);
  out += fmt::format("# estimated time: {:.0f} s, assuming {:g} GB/s each way, {:g} us one-way and {:g} s to set up "
                     "each leg\n",
                     r.plan.estimated_s, o.assume_gbps, o.assume_latency_s * 1e6, o.assume_setup_s);
  return out;
}

namespace {

std::string culprit_lines(const Result& r) {
  const auto& f = r.findings;
  std::string out;
  if (f.culprits.empty()) {
    out += fmt::format("# culprits: none (no pair below {} of the median)\n", pct(f.min_ratio));
  } else {
    out += fmt::format("# culprits ({}), most severe first:\n", f.culprits.size());
    for (const Culprit& c : f.culprits) out += fmt::format("#   {}: {}\n", c.what, c.why);
  }
  for (const auto& n : f.notes) out += fmt::format("# note: {}\n", n);
  return out;
}

std::string pair_row(const Result& r, std::size_t i) {
  const PairRecord& p = r.pairs[i];
  const PairJudgement* j = i < r.findings.pairs.size() ? &r.findings.pairs[i] : nullptr;
  const std::string mark = j != nullptr && j->low ? " !" : "  ";
  const std::string path = p.path_ba.empty() || p.path_ba == p.path ? p.path : p.path + "; b->a " + p.path_ba;
  std::string tail = p.error.empty() ? path : "ERROR: " + p.error;
  if (p.error.empty() && p.stop != StopReason::none && !p.ab) tail = "not run (" + stop_message(p.stop) + ")";
  for (const auto* leg : {&p.ab, &p.ba, &p.latency})
    if (*leg && !(*leg)->verified && (*leg)->error.empty()) tail = "DATA CHECK FAILED: " + (*leg)->verify_error;
  return fmt::format("{:<24} {:>5} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>7}{} {}\n",
                     fabric::pair_name(r, p), p.round, leg_gbps(p.ab, false), leg_gbps(p.ab, true),
                     leg_gbps(p.ba, false), leg_gbps(p.ba, true), leg_us(p.latency, false), leg_us(p.latency, true),
                     j != nullptr && j->worst > 0 ? pct(j->worst) : "-", mark, tail);
}

std::string worst_pairs(const Result& r) {
  std::vector<std::size_t> order(r.pairs.size());
  std::iota(order.begin(), order.end(), 0);
  const auto key = [&](std::size_t i) {
    const auto& j = r.findings.pairs.at(i);
    return j.failed ? -1.0 : j.worst > 0 ? j.worst : 2.0;
  };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return key(x) < key(y); });
  std::string out = fmt::format("# worst pairs ({} of {}; '!': below {} of a median):\n",
                                std::min(kWorstShown, order.size()), order.size(), pct(r.findings.min_ratio));
  out += fmt::format("{:<24} {:>5} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>7}   {}\n", "# pair", "round", "a->b p50",
                     "a->b p99", "b->a p50", "b->a p99", "lat p50", "lat p99", "worst", "path");
  out += fmt::format("{:<24} {:>5} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>7}\n", "#", "", "GB/s", "GB/s", "GB/s", "GB/s",
                     "us", "us", "ratio");
  for (std::size_t k = 0; k < order.size() && k < kWorstShown; ++k) out += pair_row(r, order[k]);
  return out;
}

// Row node -> column node: bandwidth from the row's node to the column's
// (p50, GB/s), or the pair's p50 latency (us, symmetric).
std::string matrix(const Result& r, int rail, bool latency) {
  const std::size_t n = r.nodes.size();
  const bool judged = latency ? r.findings.judge != fabric::Judge::bandwidth : r.findings.judge != fabric::Judge::latency;
  std::vector<std::string> cell(n * n, ".");
  for (std::size_t i = 0; i < r.pairs.size(); ++i) {
    const PairRecord& p = r.pairs[i];
    if (p.rail != rail) continue;
    const auto& j = r.findings.pairs.at(i);
    const auto a = static_cast<std::size_t>(p.a), b = static_cast<std::size_t>(p.b);
    const auto put = [&](std::size_t at, const std::string& v, double ratio) {
      cell[at] = v + (judged && ratio > 0 && ratio < r.findings.min_ratio ? "!" : "");
    };
    if (!p.error.empty()) {
      cell[a * n + b] = cell[b * n + a] = "ERR";
      continue;
    }
    if (latency) {
      put(a * n + b, leg_us(p.latency, false), j.ratio_latency);
      put(b * n + a, leg_us(p.latency, false), j.ratio_latency);
    } else {
      put(a * n + b, leg_gbps(p.ab, false), j.ratio_ab);
      put(b * n + a, leg_gbps(p.ba, false), j.ratio_ba);
    }
  }
  std::size_t width = 6;
  for (const auto& node : r.nodes) width = std::max(width, node.name.size() + 1);
  for (const auto& c : cell) width = std::max(width, c.size() + 1);
  std::string out = fmt::format("# {} rail {} ({}; {}'.': not measured)\n",
                                latency ? "one-way latency p50, us," : "bandwidth p50 from row to column, GB/s,", rail,
                                latency ? "symmetric" : "both directions",
                                judged ? fmt::format("'!': below {} of the median; ", pct(r.findings.min_ratio))
                                       : "not judged (--metric); ");
  out += fmt::format("{:<{}}", "#", width);
  for (const auto& node : r.nodes) out += fmt::format("{:>{}}", node.name, width);
  out += "\n";
  for (std::size_t a = 0; a < n; ++a) {
    out += fmt::format("{:<{}}", r.nodes[a].name, width);
    for (std::size_t b = 0; b < n; ++b) out += fmt::format("{:>{}}", a == b ? "-" : cell[a * n + b], width);
    out += "\n";
  }
  return out;
}

std::string matrices(const Result& r) {
  if (static_cast<int>(r.nodes.size()) > kMatrixMaxNodes)
    return fmt::format("# matrices: {} nodes are too many for text (at most {}); every pair is in the JSON file, "
                       "and `xferbench plot` draws them\n",
                       r.nodes.size(), kMatrixMaxNodes);
  std::string out;
  for (int rail = 0; rail < r.plan.rails; ++rail) out += matrix(r, rail, false) + matrix(r, rail, true);
  return out;
}

std::string lost_and_failed(const Result& r) {
  std::string out;
  for (const auto& l : r.lost)
    out += fmt::format("# LOST: rank {} (node {}, rail {}) in round {}: {}\n", l.rank, name_of(r, l.node), l.rail,
                       l.round, l.why);
  int shown = 0;
  for (std::size_t i = 0; i < r.pairs.size(); ++i) {
    if (!r.findings.pairs.at(i).failed || r.pairs[i].stop != StopReason::none) continue;
    if (shown++ == static_cast<int>(kWorstShown)) {
      out += fmt::format("#   ... {} failed pairs in all (each in the JSON file)\n", r.findings.failed_pairs);
      break;
    }
    out += fmt::format("# FAILED pair {}: {}\n", fabric::pair_name(r, r.pairs[i]),
                       r.pairs[i].error.empty() ? "its data check failed" : r.pairs[i].error);
  }
  return out;
}

std::string footer(const Result& r) {
  std::string out = completion_line(r.completion, "fabric", "pairs");
  const int code = fabric_exit_code(r);
  const auto& f = r.findings;
  std::string culprits;
  for (const Culprit& c : f.culprits) culprits += (culprits.empty() ? "" : ", ") + c.what;
  const bool bad = code != 0 || !f.culprits.empty() || f.failed_pairs > 0;
  out += fmt::format("# {}: {} pairs measured, {} below {} of a median, {} failed, {} ranks lost{}; exit code {}\n",
                     bad ? "FOUND" : "PASSED", r.pairs.size(), f.low_pairs, pct(f.min_ratio), f.failed_pairs,
                     r.lost.size(), culprits.empty() ? "" : "; culprits: " + culprits, code);
  return out;
}

}  // namespace

std::string fabric_text(const Result& r, bool with_plan) {
  std::string out = with_plan ? fabric_plan_text(r) : "";
  const auto& f = r.findings;
  out += fmt::format("# fabric medians: bandwidth {:.3f} GB/s (p50, both directions of every pair), one-way latency "
                     "{:.2f} us (p50); judged: {}\n",
                     f.median_gbps, f.median_latency_s * 1e6, fabric::to_string(f.judge));
  out += culprit_lines(r) + worst_pairs(r) + matrices(r) + lost_and_failed(r) + footer(r);
  return out;
}

int fabric_exit_code(const Result& r) {
  const Ending e = ending(r.completion, fabric::failure_kind(r));
  if (e.exit_code != 0) return e.exit_code;
  return r.options.fail_on_culprit && !r.findings.culprits.empty() ? 1 : 0;
}

}  // namespace xb::report
