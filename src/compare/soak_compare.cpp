// compare for soak files (compare.hpp, compare_soaks): the medians under the
// ordinary noise rule, then what only a soak has: trends, steps, failed
// samples and telemetry episodes.
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/error.hpp"
#include "base/input_file.hpp"
#include "base/stats.hpp"
#include "compare/compare.hpp"
#include "soak/soak_analysis.hpp"

namespace xb {
namespace {

bool bad_way(const std::string& unit, double delta) { return unit == "ns" ? delta > 0 : delta < 0; }

int bad_steps(const soak::CellSummary& c) {
  int n = 0;
  for (const auto& s : c.steps) n += bad_way(c.unit, s.change_pct);
  return n;
}

std::vector<std::string> cells_only_in(const soak::SoakSummary& a, const soak::SoakSummary& b) {
  std::set<std::string> in_b;
  for (const auto& d : b.cells) in_b.insert(d.cell);
  std::vector<std::string> out;
  for (const auto& c : a.cells)
    if (!in_b.count(c.cell)) out.push_back(c.cell);
  return out;
}

CompareEntry compare_cell(const soak::CellSummary& o, const soak::CellSummary& n, const CompareOptions& opts,
                          const std::string& old_name, const std::string& new_name) {
  CompareEntry e = compare_values(o.cell, o.unit, o.median, o.stddev, o.measured, n.median, n.stddev, n.measured, opts);
  SoakCellChange c{o.slope_pct_per_hour, n.slope_pct_per_hour, o.drift, n.drift, bad_steps(o), bad_steps(n),
                   o.failed, n.failed};
  std::vector<std::string> notes = {fmt::format("trend {:+.2f} -> {:+.2f} %/h{}", c.old_slope_pct_per_hour,
                                                c.new_slope_pct_per_hour, n.drift ? " (drift)" : "")};
  if (c.old_steps || c.new_steps) notes.push_back(fmt::format("steps {} -> {}", c.old_steps, c.new_steps));
  if (c.old_failed || c.new_failed) notes.push_back(fmt::format("failed samples {} -> {}", c.old_failed, c.new_failed));
  const bool new_drift = n.drift && bad_way(n.unit, n.slope_pct_per_hour) && !(o.drift && bad_way(o.unit, o.slope_pct_per_hour));
  if (e.verdict != Verdict::slower && (new_drift || c.new_steps > c.old_steps)) {
    e.verdict = Verdict::slower;
    notes.push_back(new_drift ? fmt::format("drifts in {} only", new_name) : fmt::format("more steps in {}", new_name));
  }
  if (c.new_failed > c.old_failed) {
    e.verdict = Verdict::failed;
    notes.push_back(fmt::format("more failed samples in {} than in {}", new_name, old_name));
  }
  if (o.measured == 0 || n.measured == 0) {  // no median on one side
    e.verdict = n.measured == 0 ? Verdict::failed : Verdict::skipped;
    notes.push_back(fmt::format("no sample measured in {}", n.measured == 0 ? new_name : old_name));
  }
  e.note = fmt::format("{}", fmt::join(notes, ", "));
  e.soak = c;
  return e;
}

}  // namespace

CompareResult compare_soaks(const soak::SoakSummary& o, const soak::SoakSummary& n, const CompareOptions& opts,
                            const std::string& old_name, const std::string& new_name) {
  const auto only_old = cells_only_in(o, n), only_new = cells_only_in(n, o);
  if (!only_old.empty() || !only_new.empty()) {
    std::string msg = "the soak files hold different cells:";
    if (!only_old.empty()) msg += fmt::format(" only in {}: {};", old_name, fmt::join(only_old, ", "));
    if (!only_new.empty()) msg += fmt::format(" only in {}: {};", new_name, fmt::join(only_new, ", "));
    msg.pop_back();
    fail(ErrorKind::usage, msg);
  }
  CompareResult out;
  out.schema = soak::kSoakSchema;
  out.options = opts;
  std::map<std::string, const soak::CellSummary*> new_cells;
  for (const auto& nc : n.cells) new_cells[nc.cell] = &nc;
  for (const auto& oc : o.cells) out.entries.push_back(compare_cell(oc, *new_cells.at(oc.cell), opts, old_name, new_name));
  std::map<std::string, std::pair<int, int>> episodes;  // kind -> counts in OLD, NEW
  for (const auto& e : o.episodes) ++episodes[e.kind].first;
  for (const auto& e : n.episodes) ++episodes[e.kind].second;
  for (const auto& [kind, counts] : episodes) {
    CompareEntry e;
    e.key = "episodes: " + kind;
    e.verdict = counts.second > counts.first ? Verdict::failed : Verdict::same;
    e.note = fmt::format("{} in {}, {} in {}", counts.first, old_name, counts.second, new_name);
    out.entries.push_back(e);
  }
  return out;
}

}  // namespace xb
