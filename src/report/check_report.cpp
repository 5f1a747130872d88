// Reporters for 'xferbench check': text for the terminal (lint findings,
// one verdict line per link, the failing cells, the verdict), the run JSON
// with a "check" section, a one-line summary for node-health scripts, and
// the fleet table that rank 0 writes under a launcher (JUnit is
// junit_reporter.cpp's; the fleet's JSON fleet_report.cpp's, as for run and
// sweep).
#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "base/printable.hpp"
#include "records/check_verdict_json.hpp"
#include "report/formats.hpp"
#include "report/soak_report.hpp"

namespace xb::report {
namespace {

using namespace xb::check;

std::string value_text(const CheckCell& c, double v) {
  return c.latency ? fmt::format("{:.0f} ns", v) : fmt::format("{:.2f} GB/s", v);
}

std::string source_tag(const CheckCell& c) { return c.source.empty() ? "" : fmt::format(" [{}]", c.source); }

std::string threshold_reason(const CheckCell& c) {
  const bool ok = c.latency ? c.value <= c.threshold : c.value >= c.threshold;
  const char* op = c.latency ? (ok ? "<=" : ">") : (ok ? ">=" : "<");
  std::string s = fmt::format("{} {} {}", value_text(c, c.value), op, value_text(c, c.threshold));
  if (c.threshold_pct > 0)
    s += fmt::format(" ({:g}% of the {:.2f} GB/s peak of {})", c.threshold_pct, c.peak_gbps, c.link_label);
  return s + source_tag(c);
}

std::string baseline_reason(const CheckCell& c) {
  return fmt::format("{} vs baseline {} ({:+.1f}%, limit {}: tolerance or 3-sigma noise {:.1f}%){}",
                     value_text(c, c.value), value_text(c, c.baseline_value), c.delta_pct,
                     value_text(c, c.threshold), c.noise_pct, source_tag(c));
}

std::string peer_reason(const CheckCell& c) {
  return fmt::format("{} is {:.0f}% of the median {} of {} identical cells ({} {:g}%)", value_text(c, c.value),
                     c.value / c.peer_median * 100, value_text(c, c.peer_median), c.peer_count,
                     c.latency ? "limit" : "floor", c.peer_limit_pct);
}

std::string short_case(const CheckCell& c) {
  return c.matrix.empty() ? c.case_name : fmt::format("{} ({})", c.case_name, c.matrix);
}

std::size_t cells_with(const CheckResult& r, CellVerdict v) {
  return std::count_if(r.cells.begin(), r.cells.end(), [v](const CheckCell& c) { return c.verdict == v; });
}

// "lint clean", "lint: 2 warnings", "lint skipped (...)": what the lint saw.
std::string lint_state(const LintReport& l) {
  int looked = 0, warnings = 0;
  for (const auto& r : l.rules) looked += r.status == RuleStatus::passed || r.status == RuleStatus::findings;
  for (const auto& f : l.findings) warnings += f.severity == Severity::warn;
  if (looked == 0) return l.rules.empty() ? "lint not run" : fmt::format("lint not run ({})", l.rules.front().note);
  int skipped = 0;
  for (const auto& r : l.rules) skipped += r.status == RuleStatus::skipped;
  std::string s = warnings ? fmt::format("lint: {} warning{}", warnings, warnings == 1 ? "" : "s") : "lint clean";
  return skipped ? s + fmt::format(", {} rule{} skipped", skipped, skipped == 1 ? "" : "s") : s;
}

records::TelemetrySample sample_record(const NvmlSample& s) {
  records::TelemetrySample out;
  out.sm_clock_mhz = s.sm_clock_mhz;
  out.mem_clock_mhz = s.mem_clock_mhz;
  if (s.clock_reasons) out.clock_reasons = clock_reason_names(*s.clock_reasons);
  out.pcie_gen = s.pcie_gen_current;
  out.pcie_width = s.pcie_width_current;
  return out;
}

records::TelemetryWindow window_record(const CellWindow& w) {
  records::TelemetryWindow out{w.case_name, w.row, w.col, w.gpus_used, w.throttled, clock_reason_names(w.reasons),
                               w.power_throttle_ns, w.thermal_throttle_ns, {}};
  for (const auto& g : w.gpus) out.gpus.push_back({g.gpu, sample_record(g.before), sample_record(g.after)});
  return out;
}

records::CheckCellVerdict cell_record(const CheckCell& c) {
  records::CheckCellVerdict out;
  out.key = c.key;
  out.case_name = c.case_name;
  out.matrix = c.matrix;
  out.row = c.row;
  out.col = c.col;
  out.link = c.link_key;
  out.link_label = c.link_label;
  out.link_class = to_string(c.link);
  out.latency = c.latency;
  out.value = c.value;
  out.verdict = to_string(c.verdict);
  out.basis = to_string(c.basis);
  out.reason = check_cell_reason(c);
  out.throttled = c.throttled;
  out.remeasured = c.remeasured;
  out.threshold = c.threshold;
  out.threshold_pct = c.threshold_pct;
  out.source = c.source;
  out.why = c.why;
  out.throttle_reasons = c.throttle_reasons;
  return out;
}

}  // namespace

std::string check_cell_reason(const CheckCell& c) {
  std::string s;
  if (c.verification_failed) s = "data verification failed after the timed copies";
  else if (c.peer_fail) s = peer_reason(c);
  else if (c.basis == Basis::baseline) s = baseline_reason(c);
  else if (c.basis == Basis::spec || c.basis == Basis::builtin) s = c.threshold > 0 ? threshold_reason(c) : c.note;
  else if (c.basis == Basis::peers) s = peer_reason(c);
  else s = c.note.empty() ? "no expectation" : c.note;
  if (c.throttled) s += fmt::format(" (measured while throttled: {}{})", c.throttle_reasons, c.remeasured ? ", after a re-measure" : "");
  return s;
}

std::string check_summary_line(const CheckResult& r) {
  const FailReasons why = fail_reasons(r);
  const Outcome verdict = check_verdict(r).outcome;
  const std::size_t judged = r.cells.size() - cells_with(r, CellVerdict::unjudged);
  if (verdict == Outcome::interrupted || verdict == Outcome::partial) {
    return fmt::format("xferbench check: {} ({}) after {} of {} cells judged, {} failed, {} not run; not accepted",
                       verdict == Outcome::partial ? "PARTIAL" : "INTERRUPTED", stop_message(r.run.completion.stop),
                       judged, r.cells.size(), cells_with(r, CellVerdict::fail), r.run.completion.not_run.size());
  }
  if (why.empty()) {
    return fmt::format("xferbench check: PASS {} links, {} of {} cells judged, {}{}", r.links.size(), judged,
                       r.cells.size(), lint_state(r.lint),
                       r.spec_file.empty() ? "" : fmt::format(" (spec {})", r.spec_file));
  }
  std::vector<std::string> parts;
  if (!why.cells.empty()) {
    const CheckCell& c = r.cells[why.cells.front()];
    parts.push_back(fmt::format("{} {} {}{}", c.link_key, short_case(c), check_cell_reason(c),
                                why.cells.size() > 1 ? fmt::format(" (+{} more cells)", why.cells.size() - 1) : ""));
  }
  if (!why.problems.empty()) {
    const CaseProblem& p = r.problems[why.problems.front()];
    parts.push_back(fmt::format("{} {}: {}", p.case_name, to_string(p.status), p.message));
  }
  if (why.nothing_judged) parts.push_back("no bandwidth cell could be judged (no peak, spec or baseline)");
  if (why.soak_findings) {
    const auto& lines = r.soak->finding_lines;
    parts.push_back(fmt::format("soak: {}{}", lines.empty() ? "findings" : lines.front(),
                                lines.size() > 1 ? fmt::format(" (+{} more)", lines.size() - 1) : ""));
  }
  if (!why.findings.empty()) {
    const Finding& f = r.lint.findings[why.findings.front()];
    parts.push_back(fmt::format("lint: {} {}{}", f.subject, f.evidence,
                                why.findings.size() > 1 ? fmt::format(" (+{} more)", why.findings.size() - 1) : ""));
  }
  std::string line = "xferbench check: FAIL";
  for (std::size_t i = 0; i < parts.size(); ++i) line += (i ? "; " : " ") + parts[i];
  return line;
}

// Names, messages and file names may come from a judged run file or the
// command line: printed through printable(), one line each.
void text_check(std::ostream& os, const CheckResult& r) {
  const std::size_t gpus = r.run.system.gpus.size();
  fmt::print(os, "# xferbench check on {}: {} GPU{}, driver {}; expectations: {}{}built-in peaks\n",
             printable(r.hostname()), gpus, gpus == 1 ? "" : "s", printable(r.run.system.driver_version),
             r.spec_file.empty() ? "" : fmt::format("spec {}, then ", printable(r.spec_file)),
             r.baseline_file.empty() ? "" : fmt::format("baseline {}, then ", printable(r.baseline_file)));
  fmt::print(os, "# lint ({} rules)\n", r.lint.rules.size());
  for (const auto& rule : r.lint.rules) {
    if (rule.status == RuleStatus::findings) continue;
    fmt::print(os, "  {:<8} {:<17} {}{}\n", to_string(rule.status), rule.rule, rule.title,
               rule.note.empty() ? "" : fmt::format(" ({})", rule.note));
  }
  for (const auto& f : r.lint.findings)
    fmt::print(os, "  {:<8} {:<17} {}: {}\n  {:<8} {:<17} fix: {}\n", to_string(f.severity), f.rule,
               printable(f.subject), printable(f.evidence), "", "", printable(f.fix));
  fmt::print(os, "# links ({} cells, {} case(s) re-measured after throttling)\n", r.cells.size(),
             r.remeasured_cases.size());
  for (const auto& l : r.links) {
    const CheckCell& w = r.cells[l.worst];
    const char* word = l.verdict == CellVerdict::unjudged ? "----" : l.verdict == CellVerdict::pass ? "PASS" : "FAIL";
    fmt::print(os, "  {}  {:<15} {:<14} {:>2} cells  {}: {}\n", word, l.link_key, l.link_label, l.cells,
               l.verdict == CellVerdict::fail ? "failed" : l.verdict == CellVerdict::pass ? "closest" : "not judged",
               printable(fmt::format("{} {}", short_case(w), check_cell_reason(w))));
  }
  const FailReasons why = fail_reasons(r);
  for (std::size_t i : why.cells)
    fmt::print(os, "  FAIL cell {} [{},{}]: {}\n", printable(short_case(r.cells[i])), r.cells[i].row, r.cells[i].col,
               printable(check_cell_reason(r.cells[i])));
  for (const auto& p : r.problems)
    fmt::print(os, "  {} case {}: {}\n", p.status == CaseStatus::waived ? "WAIVED" : "FAIL", printable(p.case_name),
               printable(p.message));
  if (const std::size_t unjudged = cells_with(r, CellVerdict::unjudged)) fmt::print(os, "# {} cell(s) not judged (see the reasons above; --spec or --baseline judges them)\n", unjudged);
  const std::vector<std::string>& not_run = r.run.completion.not_run;
  if (stopped(r) && !not_run.empty()) {
    fmt::print(os, "# NOT RUN ({}): ", not_run.size());
    for (std::size_t i = 0; i < not_run.size(); ++i) fmt::print(os, "{}{}", i ? ", " : "", printable(not_run[i]));
    fmt::print(os, "\n");
  }
  if (r.soak) {
    fmt::print(os, "# soak ({})\n", printable(r.soak_file));
    print_soak_summary(os, *r.soak, r.soak_header);
  }
  fmt::print(os, "# {:.1f} s\n{}\n", r.wall_seconds, printable(check_summary_line(r)));
}

namespace {

void add_lint(records::CheckVerdict& v, const LintReport& lint) {
  for (const auto& x : lint.rules) v.rules.push_back({x.rule, x.title, to_string(x.status), x.note});
  for (const auto& f : lint.findings)
    v.findings.push_back({f.rule, to_string(f.severity), f.subject, f.evidence, f.fix});
}

std::map<std::string, double> builtin_minimums() {
  std::map<std::string, double> out;
  for (LinkClass c : {LinkClass::pcie, LinkClass::pcie_bidir, LinkClass::nvlink, LinkClass::pcie_peer,
                      LinkClass::memory, LinkClass::c2c, LinkClass::c2c_bidir})
    out[to_string(c)] = builtin_min_pct(c);
  return out;
}

// A node's verdict as its row shows it, from its status (fleet::node_status).
const char* node_word(const std::string& status) {
  if (status == "passed") return "PASS";
  if (status == "failed") return "FAIL";
  if (status == "partial") return "PARTIAL";
  return status == "interrupted" ? "STOPPED" : "ERROR";
}

}  // namespace

records::CheckVerdict check_verdict_record(const CheckResult& r) {
  records::CheckVerdict v;
  const Ending e = check_verdict(r);
  // The check's own words for passed and failed.
  v.verdict = e.outcome == Outcome::passed ? "pass" : e.outcome == Outcome::failed ? "fail" : to_string(e.outcome);
  v.exit_code = e.exit_code;
  v.summary = check_summary_line(r);
  v.hostname = r.hostname();
  v.wall_seconds = r.wall_seconds;
  v.strict = r.strict;
  v.spec_file = r.spec_file;
  v.baseline_file = r.baseline_file;
  v.builtin_min_pct = builtin_minimums();
  add_lint(v, r.lint);
  for (const auto& l : r.links)
    v.links.push_back({l.link_key, l.link_label, to_string(l.verdict), l.cells, l.failed, l.unjudged,
                       check_cell_reason(r.cells[l.worst])});
  for (const auto& c : r.cells) v.cells.push_back(cell_record(c));
  for (const auto& p : r.problems) v.problems.push_back({p.case_name, to_string(p.status), p.message});
  v.remeasured_cases = r.remeasured_cases;
  for (const auto& w : r.telemetry) v.telemetry.push_back(window_record(w));
  return v;
}

json check_json(const CheckResult& r) {
  json doc = records::run_json(r.run);
  json& section = doc[records::kCheckSectionKey] = records::check_verdict_json(check_verdict_record(r));
  if (r.soak) section["soak"] = {{"file", r.soak_file}, {"summary", soak_summary_json(*r.soak)}};
  doc["status"] = to_string(check_verdict(r).outcome);
  return doc;
}

void text_fleet(std::ostream& os, const fleet::Fleet& f) {
  fmt::print(os, "# xferbench check: {} node{}\n# {:<24} {:<7} {:>7}  summary\n", f.nodes.size(),
             f.nodes.size() == 1 ? "" : "s", "host", "verdict", "seconds");
  for (const fleet::FleetNode& n : f.nodes) {
    const std::string status = fleet::node_status(n);
    // What the node's verdict says, or why it has none.
    const records::CheckVerdict* check = fleet::check_of(n.result);
    fmt::print(os, "  {:<24} {:<7} {:>7.1f}  {}\n", n.key, node_word(status), check ? check->wall_seconds : 0.0,
               check ? check->summary : n.record.error);
  }
  const auto [failed, stopped] = failed_and_stopped(f);
  const std::string verdict = fleet::fleet_status(f.exit_code);
  fmt::print(os, "xferbench check: {} {} of {} nodes failed{}\n",
             verdict == "passed" ? "PASS" : verdict == "failed" ? "FAIL" : upper_case(verdict), failed, f.nodes.size(),
             stopped > 0 ? fmt::format(", {} stopped before the end; not accepted", stopped) : "");
}

}  // namespace xb::report
