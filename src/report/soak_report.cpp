// The soak summary (report/soak_report.hpp): a `#`-framed text table and JSON.
#include "report/soak_report.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "base/printable.hpp"

namespace xb::report {
namespace {

std::string value_text(double v, const std::string& unit) {
  return unit == "ns" ? fmt::format("{:.0f}", v) : fmt::format("{:.3f}", v);
}

std::string unit_name(const std::string& unit) { return unit == "gbps" ? "GB/s" : unit; }

// A cell with no sample measured (all failed) has no statistics.
bool measured(const soak::CellSummary& c) { return c.min != 0 || c.max != 0; }

std::string join(const std::vector<std::string>& parts, const char* sep) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

}  // namespace

std::string soak_trend_text(const soak::CellSummary& c) {
  if (!measured(c)) return "-";
  return fmt::format("{:+.2f} ({:+.2f}..{:+.2f}){}", c.slope_pct_per_hour, c.slope_low, c.slope_high,
                     c.drift ? " drift" : "");
}

std::string soak_step_text(const soak::Step& s) {
  return fmt::format("{:+.1f}% at {} (t={:.0f} s)", s.change_pct, s.time_utc, s.t_s);
}

// Cell names, times, the host and the reason come from the soak file:
// each line goes out through printable(), so a name holding a newline or
// an escape sequence cannot forge a line or clear the terminal.
void print_soak_summary(std::ostream& os, const soak::SoakSummary& s, const soak::Header& h) {
  const auto out = [&os](const std::string& line) { os << printable(line) << '\n'; };
  out(fmt::format("# xferbench soak on {}: started {}, {:.2f} h, {} round{}, {} cell{}", h.host.empty() ? "-" : h.host,
                  h.start_time_utc.empty() ? "-" : h.start_time_utc, s.duration_s / 3600, s.rounds,
                  s.rounds == 1 ? "" : "s", s.cells.size(), s.cells.size() == 1 ? "" : "s"));
  out("# trend: Theil-Sen slope in % of the cell's median per hour (95% interval); drift: at least the drift "
      "threshold, the interval excludes 0 and at least 1% moved over the soak");
  std::size_t w = 4;
  for (const auto& c : s.cells) w = std::max(w, c.cell.size());
  std::vector<std::string> trends;
  std::size_t tw = 9;
  for (const auto& c : s.cells) tw = std::max(tw, trends.emplace_back(soak_trend_text(c)).size());
  out(fmt::format("#{:<{}} {:>7} {:>6} {:>4} {:>10} {:>10} {:>10} {:<4}  {:<{}}  {}", "cell", w - 1, "samples",
                  "failed", "weak", "min", "median", "max", "unit", "trend %/h", tw, "steps"));
  for (std::size_t i = 0; i < s.cells.size(); ++i) {
    const auto& c = s.cells[i];
    std::vector<std::string> steps;
    for (const auto& st : c.steps) steps.push_back(soak_step_text(st));
    out(fmt::format("{:<{}} {:>7} {:>6} {:>4} {:>10} {:>10} {:>10} {:<4}  {:<{}}  {}", c.cell, w, c.samples, c.failed,
                    c.weak_load_samples, measured(c) ? value_text(c.min, c.unit) : "-",
                    measured(c) ? value_text(c.median, c.unit) : "-", measured(c) ? value_text(c.max, c.unit) : "-",
                    unit_name(c.unit), trends[i], tw, steps.empty() ? "-" : join(steps, "; ")));
  }
  out(fmt::format("# episodes: {}", s.episodes.size()));
  for (const auto& e : s.episodes) {
    const std::string span = e.start_s == e.end_s
                                 ? fmt::format("at {} (t={:.0f} s)", e.start_utc, e.start_s)
                                 : fmt::format("from {} to {} (t={:.0f}..{:.0f} s)", e.start_utc, e.end_utc, e.start_s, e.end_s);
    out(fmt::format("gpu{} {} {} {}: {} sample{} of {}", e.gpu, e.kind, e.detail, span, e.samples,
                    e.samples == 1 ? "" : "s", e.cells.empty() ? "no cell" : join(e.cells, ", ")));
  }
  for (const auto& line : s.finding_lines) out("# finding: " + line);
  out(s.findings ? fmt::format("# FINDINGS: {}", s.finding_lines.size())
                 : std::string("# steady: no drift, steps, episodes or failed samples"));
}

nlohmann::json soak_summary_json(const soak::SoakSummary& s) {
  nlohmann::json cells = nlohmann::json::array();
  for (const auto& c : s.cells) {
    nlohmann::json steps = nlohmann::json::array();
    for (const auto& st : c.steps)
      steps.push_back({{"t_s", st.t_s}, {"time_utc", st.time_utc}, {"before", st.before}, {"after", st.after},
                       {"change_pct", st.change_pct}});
    cells.push_back({{"cell", c.cell},
                     {"unit", c.unit},
                     {"samples", c.samples},
                     {"failed", c.failed},
                     {"weak_load_samples", c.weak_load_samples},
                     {"min", c.min},
                     {"median", c.median},
                     {"max", c.max},
                     {"slope_pct_per_hour", c.slope_pct_per_hour},
                     {"slope_low", c.slope_low},
                     {"slope_high", c.slope_high},
                     {"drift", c.drift},
                     {"worse", c.worse},
                     {"steps", steps}});
  }
  nlohmann::json episodes = nlohmann::json::array();
  for (const auto& e : s.episodes)
    episodes.push_back({{"kind", e.kind},
                        {"gpu", e.gpu},
                        {"start_s", e.start_s},
                        {"end_s", e.end_s},
                        {"start_utc", e.start_utc},
                        {"end_utc", e.end_utc},
                        {"detail", e.detail},
                        {"cells", e.cells},
                        {"samples", e.samples}});
  return {{"duration_s", s.duration_s}, {"rounds", s.rounds},     {"findings", s.findings},
          {"finding_lines", s.finding_lines}, {"cells", cells}, {"episodes", episodes}};
}

}  // namespace xb::report
