// Reporters for 'xferbench compare': a text table of every compared value
// between `#` header and footer lines (the footer holds the summary and the
// verdict), JSON (schema "xferbench-compare", version 1) and CSV.
#include <algorithm>

#include <fmt/format.h>

#include "base/printable.hpp"
#include "report/formats.hpp"

namespace xb::report {
namespace {

std::string value_text(double v, const std::string& unit) {
  return unit == "ns" ? fmt::format("{:.0f}", v) : fmt::format("{:.3f}", v);
}

std::string summary_line(const CompareResult& r) {
  return fmt::format("{} compared: {} faster, {} slower, {} same, {} failed, {} skipped", r.entries.size(),
                     r.count(Verdict::faster), r.count(Verdict::slower), r.count(Verdict::same),
                     r.count(Verdict::failed), r.count(Verdict::skipped));
}

}  // namespace

// Keys, notes and file names come from the compared files and the command
// line: printed through printable(), so a cell name cannot forge a line.
std::string compare_text(const CompareResult& r, const std::string& old_name, const std::string& new_name) {
  std::string out = fmt::format("# xferbench compare ({}): OLD {} vs NEW {}\n", printable(r.schema), printable(old_name),
                                printable(new_name));
  out += fmt::format("# a value changed only if |new - old| > {}% of old and > {} x the combined standard error of the "
                     "two medians\n", r.options.tolerance_pct, r.options.noise_k);
  std::vector<std::string> keys;
  std::size_t w = 4;
  for (const auto& e : r.entries) w = std::max(w, keys.emplace_back(printable(e.key)).size());
  out += fmt::format("#{:<{}} {:>12} {:>12} {:>9} {:>8}  {}\n", "cell", w - 1, "old", "new", "change %", "noise %",
                     "verdict");
  for (std::size_t i = 0; i < r.entries.size(); ++i) {
    const CompareEntry& e = r.entries[i];
    const std::string note = printable(e.note);
    if (e.verdict == Verdict::skipped || e.unit.empty()) {
      out += fmt::format("{:<{}} {:>12} {:>12} {:>9} {:>8}  {} ({})\n", keys[i], w, "-", "-", "-", "-",
                         to_string(e.verdict), note);
      continue;
    }
    const std::string unit = e.unit == "ns" ? " ns" : "";
    out += fmt::format("{:<{}} {:>12} {:>12} {:>+9.2f} {:>8.2f}  {}{}\n", keys[i], w,
                       value_text(e.old_value, e.unit) + unit, value_text(e.new_value, e.unit) + unit, e.delta_pct,
                       e.noise_pct, to_string(e.verdict), note.empty() ? "" : " (" + note + ")");
  }
  out += fmt::format("# {}\n# {}\n", summary_line(r), r.regression() ? "REGRESSION" : "no regression");
  return out;
}

// The compare document's schema: written here, read by nothing.
constexpr const char* kCompareSchemaName = "xferbench-compare";
constexpr int kCompareSchemaVersion = 1;

nlohmann::json compare_json(const CompareResult& r, const std::string& old_name, const std::string& new_name) {
  nlohmann::json entries = nlohmann::json::array();
  for (const auto& e : r.entries) {
    nlohmann::json j = {{"key", e.key}, {"verdict", to_string(e.verdict)}};
    if (!e.unit.empty()) {
      j["old_" + e.unit] = e.old_value;
      j["new_" + e.unit] = e.new_value;
      j["change_pct"] = e.delta_pct;
      j["noise_pct"] = e.noise_pct;
    }
    if (!e.note.empty()) j["note"] = e.note;
    if (e.soak)
      j["soak"] = {{"old_slope_pct_per_hour", e.soak->old_slope_pct_per_hour},
                   {"new_slope_pct_per_hour", e.soak->new_slope_pct_per_hour},
                   {"old_drift", e.soak->old_drift}, {"new_drift", e.soak->new_drift},
                   {"old_steps", e.soak->old_steps}, {"new_steps", e.soak->new_steps},
                   {"old_failed", e.soak->old_failed}, {"new_failed", e.soak->new_failed}};
    entries.push_back(j);
  }
  return {{"schema", kCompareSchemaName},
          {"schema_version", kCompareSchemaVersion},
          {"compared_schema", r.schema},
          {"old", old_name},
          {"new", new_name},
          {"tolerance_pct", r.options.tolerance_pct},
          {"noise_k", r.options.noise_k},
          {"summary", {{"faster", r.count(Verdict::faster)}, {"slower", r.count(Verdict::slower)},
                       {"same", r.count(Verdict::same)}, {"failed", r.count(Verdict::failed)},
                       {"skipped", r.count(Verdict::skipped)}}},
          {"regression", r.regression()},
          {"entries", entries}};
}

std::string compare_csv(const CompareResult& r) {
  std::string out = "key,unit,old,new,change_pct,noise_pct,verdict,note\n";
  for (const auto& e : r.entries) {
    if (e.unit.empty()) {
      out += fmt::format("{},,,,,,{},{}\n", csv_escape(e.key), to_string(e.verdict), csv_escape(e.note));
      continue;
    }
    out += fmt::format("{},{},{:.9g},{:.9g},{:.9g},{:.9g},{},{}\n", csv_escape(e.key), e.unit, e.old_value, e.new_value,
                       e.delta_pct, e.noise_pct, to_string(e.verdict), csv_escape(e.note));
  }
  return out;
}

}  // namespace xb::report
