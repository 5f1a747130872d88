// Reporters for 'xferbench check': text for the terminal (lint findings,
// one verdict line per link, the failing cells, the verdict), the run JSON
// with a "check" section, a one-line summary for node-health scripts, and
// the fleet table that rank 0 writes under a launcher (JUnit is
// junit_reporter.cpp's; the fleet's JSON fleet_report.cpp's, as for run and
// sweep).
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "base/printable.hpp"
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

json sample_json(const NvmlSample& s) {
  auto opt = [](const auto& v) { return v ? json(*v) : json(nullptr); };
  return {{"sm_clock_mhz", opt(s.sm_clock_mhz)},
          {"mem_clock_mhz", opt(s.mem_clock_mhz)},
          {"clock_reasons", s.clock_reasons ? json(clock_reason_names(*s.clock_reasons)) : json(nullptr)},
          {"pcie_gen", opt(s.pcie_gen_current)},
          {"pcie_width", opt(s.pcie_width_current)}};
}

json window_json(const CellWindow& w) {
  json gpus = json::array();
  for (const auto& g : w.gpus) gpus.push_back({{"gpu", g.gpu}, {"before", sample_json(g.before)}, {"after", sample_json(g.after)}});
  return {{"case", w.case_name}, {"row", w.row}, {"col", w.col}, {"gpus_used", w.gpus_used},
          {"throttled", w.throttled}, {"slowdown_reasons", clock_reason_names(w.reasons)},
          {"power_throttle_ns", w.power_throttle_ns}, {"thermal_throttle_ns", w.thermal_throttle_ns}, {"gpus", gpus}};
}

json cell_json(const CheckCell& c) {
  const std::string unit = c.latency ? "ns" : "gbps";
  json j = {{"key", c.key}, {"case", c.case_name}, {"matrix", c.matrix}, {"row", c.row}, {"col", c.col},
            {"link", c.link_key}, {"link_label", c.link_label}, {"link_class", to_string(c.link)},
            {"value_" + unit, c.value}, {"verdict", to_string(c.verdict)}, {"basis", to_string(c.basis)},
            {"reason", check_cell_reason(c)}, {"throttled", c.throttled}, {"remeasured", c.remeasured}};
  j["threshold_" + unit] = c.threshold > 0 ? json(c.threshold) : json(nullptr);
  if (c.threshold_pct > 0) j["threshold_percent_of_peak"] = c.threshold_pct;
  if (!c.source.empty()) j["source"] = c.source;
  if (!c.why.empty()) j["why"] = c.why;
  if (c.throttled) j["throttle_reasons"] = c.throttle_reasons;
  return j;
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

json check_section_json(const CheckResult& r) {
  json rules = json::array(), findings = json::array(), cells = json::array(), links = json::array(),
       problems = json::array(), telemetry = json::array();
  for (const auto& x : r.lint.rules)
    rules.push_back({{"id", x.rule}, {"title", x.title}, {"status", to_string(x.status)}, {"note", x.note}});
  for (const auto& f : r.lint.findings)
    findings.push_back({{"rule", f.rule}, {"severity", to_string(f.severity)}, {"subject", f.subject},
                        {"evidence", f.evidence}, {"fix", f.fix}});
  for (const auto& c : r.cells) cells.push_back(cell_json(c));
  for (const auto& l : r.links)
    links.push_back({{"link", l.link_key}, {"label", l.link_label}, {"verdict", to_string(l.verdict)},
                     {"cells", l.cells}, {"failed", l.failed}, {"unjudged", l.unjudged},
                     {"reason", check_cell_reason(r.cells[l.worst])}});
  for (const auto& p : r.problems)
    problems.push_back({{"case", p.case_name}, {"status", to_string(p.status)}, {"message", p.message}});
  for (const auto& w : r.telemetry) telemetry.push_back(window_json(w));
  const Ending v = check_verdict(r);
  // The check's own words for passed and failed.
  const char* word =
      v.outcome == Outcome::passed ? "pass" : v.outcome == Outcome::failed ? "fail" : to_string(v.outcome);
  json section = {{"verdict", word},
          {"exit_code", v.exit_code},
          {"summary", check_summary_line(r)},
          {"hostname", r.hostname()},
          {"wall_seconds", r.wall_seconds},
          {"strict", r.strict},
          {"expectations", {{"spec", r.spec_file.empty() ? json(nullptr) : json(r.spec_file)},
                            {"baseline", r.baseline_file.empty() ? json(nullptr) : json(r.baseline_file)},
                            {"builtin_min_percent_of_peak",
                             {{"pcie", builtin_min_pct(LinkClass::pcie)}, {"pcie_bidir", builtin_min_pct(LinkClass::pcie_bidir)},
                              {"nvlink", builtin_min_pct(LinkClass::nvlink)}, {"pcie_peer", builtin_min_pct(LinkClass::pcie_peer)},
                              {"memory", builtin_min_pct(LinkClass::memory)}, {"c2c", builtin_min_pct(LinkClass::c2c)},
                              {"c2c_bidir", builtin_min_pct(LinkClass::c2c_bidir)}}}}},
          {"lint", {{"rules", rules}, {"findings", findings}}},
          {"links", links},
          {"cells", cells},
          {"case_problems", problems},
          {"remeasured_cases", r.remeasured_cases},
          {"telemetry", telemetry}};
  if (r.soak) section["soak"] = {{"file", r.soak_file}, {"summary", soak_summary_json(*r.soak)}};
  return section;
}

// A node's verdict as its row shows it, from its status (fleet::node_status).
const char* node_word(const std::string& status) {
  if (status == "passed") return "PASS";
  if (status == "failed") return "FAIL";
  if (status == "partial") return "PARTIAL";
  return status == "interrupted" ? "STOPPED" : "ERROR";
}

}  // namespace

json check_json(const CheckResult& r) {
  json doc = records::run_json(r.run);
  doc["check"] = check_section_json(r);
  doc["status"] = to_string(check_verdict(r).outcome);
  return doc;
}

void text_fleet(std::ostream& os, const fleet::Fleet& f) {
  fmt::print(os, "# xferbench check: {} node{}\n# {:<24} {:<7} {:>7}  summary\n", f.nodes.size(),
             f.nodes.size() == 1 ? "" : "s", "host", "verdict", "seconds");
  for (const fleet::FleetNode& n : f.nodes) {
    const std::string status = fleet::node_status(n.record);
    // What the node's check section says, or why it has none.
    const json& check = fleet::member(n.record.result, "check");
    const bool said = n.record.ok() && check.is_object();
    fmt::print(os, "  {:<24} {:<7} {:>7.1f}  {}\n", n.key, node_word(status),
               said ? check.value("wall_seconds", 0.0) : 0.0, said ? check.value("summary", "") : n.record.error);
  }
  const auto [failed, stopped] = failed_and_stopped(f);
  const std::string verdict = fleet::fleet_status(f.exit_code);
  fmt::print(os, "xferbench check: {} {} of {} nodes failed{}\n",
             verdict == "passed" ? "PASS" : verdict == "failed" ? "FAIL" : upper_case(verdict), failed, f.nodes.size(),
             stopped > 0 ? fmt::format(", {} stopped before the end; not accepted", stopped) : "");
}

}  // namespace xb::report
