#include "compare/compare.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/error.hpp"
#include "base/names.hpp"
#include "records/run_json.hpp"
#include "cases/sweep_json.hpp"

namespace xb {

constexpr Named<Verdict> kVerdicts[] = {{Verdict::faster, "faster"}, {Verdict::slower, "slower"},
                                        {Verdict::same, "same"},     {Verdict::failed, "failed"},
                                        {Verdict::skipped, "skipped"}};

const char* to_string(Verdict v) noexcept { return lookup_name(kVerdicts, v); }

int CompareResult::count(Verdict v) const {
  return static_cast<int>(std::count_if(entries.begin(), entries.end(), [v](const CompareEntry& e) { return e.verdict == v; }));
}

double median_standard_error(double stddev, int samples) {
  if (samples < 2 || !(stddev > 0)) return 0.0;
  return 1.2533141373155003 * stddev / std::sqrt(static_cast<double>(samples));
}

CompareEntry compare_values(const std::string& key, const std::string& unit, double old_value, double old_stddev,
                            int old_samples, double new_value, double new_stddev, int new_samples,
                            const CompareOptions& opts) {
  CompareEntry e;
  e.key = key;
  e.unit = unit;
  e.old_value = old_value;
  e.new_value = new_value;
  const double delta = new_value - old_value;
  const double se_old = median_standard_error(old_stddev, old_samples);
  const double se_new = median_standard_error(new_stddev, new_samples);
  const double noise = opts.noise_k * std::sqrt(se_old * se_old + se_new * se_new);
  if (old_value == 0) return e;  // no baseline to take a percentage of
  e.delta_pct = delta / std::fabs(old_value) * 100;
  e.noise_pct = noise / std::fabs(old_value) * 100;
  const bool significant = std::fabs(delta) > opts.tolerance_pct / 100 * std::fabs(old_value) && std::fabs(delta) > noise;
  if (!significant) return e;
  const bool better = unit == "ns" ? delta < 0 : delta > 0;
  e.verdict = better ? Verdict::faster : Verdict::slower;
  return e;
}

CompareEntry note_entry(const std::string& key, Verdict verdict, const std::string& note) {
  CompareEntry e;
  e.key = key;
  e.verdict = verdict;
  e.note = note;
  return e;
}

namespace {

struct Value {
  double value = 0, stddev = 0;
  int samples = 0;
  bool verification_failed = false;
  bool invalid = false;
  std::string link;
  std::string error;  // the cell could not be measured
};

// One document flattened: key -> value, plus per-group status for cases.
struct Flat {
  std::map<std::string, std::vector<std::string>> groups;  // case or series -> its keys, in order
  std::vector<std::string> group_order;
  std::map<std::string, std::string> group_failure;        // case -> why it has no values (error, waived)
  std::map<std::string, bool> group_incomplete;            // case -> not_run: some cells were never measured
  std::map<std::string, Value> values;
  std::map<std::string, std::string> units;
  Stability stability;  // the run's drift check (none for a sweep)
};

// Percent by which this run's reference cells moved on `link`.
double drift_of(const Flat& f, const std::string& link) {
  return f.stability.checked ? drift_for_link(f.stability, link) : 0.0;
}

[[noreturn]] void bad(const std::string& message) { fail(ErrorKind::usage, message); }

void add_value(Flat& f, std::vector<std::string>& keys, const std::string& key, const std::string& unit, Value v) {
  keys.push_back(key);
  f.values[key] = std::move(v);
  f.units[key] = unit;
}

void flatten_run(const RunResult& r, Flat& f) {
  f.stability = r.stability;
  for (const CaseResult& c : r.cases) {
    f.group_order.push_back(c.name);
    auto& keys = f.groups[c.name];
    if (c.status == CaseStatus::waived || (c.status == CaseStatus::error && c.matrices.empty()))
      f.group_failure[c.name] = fmt::format("{}: {}", to_string(c.status), c.message);
    if (c.status == CaseStatus::not_run) f.group_incomplete[c.name] = true;
    for (const Matrix& m : c.matrices) {
      for (const Cell& cell : m.cells) {
        const std::string key =
            fmt::format("{} {}[{},{}]", c.name, m.name, m.row_labels.at(static_cast<std::size_t>(cell.row)),
                        m.col_labels.at(static_cast<std::size_t>(cell.col)));
        add_value(f, keys, key, m.metric == Metric::latency_ns ? "ns" : "gbps",
                  {cell.value, cell.stats.stddev, cell.stats.count,
                   cell.verification.status == Verification::Status::failed, cell.invalid, cell.link, cell.error});
      }
    }
  }
}

void flatten_sweep(const SweepResult& r, Flat& f) {
  for (const SweepSeries& s : r.series) {
    f.group_order.push_back(s.label);
    auto& keys = f.groups[s.label];
    for (const SweepRow& row : s.rows)
      add_value(f, keys, fmt::format("{} @ {} B", s.label, row.bytes), "gbps",
                {row.value_gbps, row.stats.stddev, row.stats.count,
                 row.verification == Verification::Status::failed, row.invalid, "", ""});
  }
}

std::vector<std::string> only_in(const std::vector<std::string>& a, const std::map<std::string, std::vector<std::string>>& b) {
  std::vector<std::string> out;
  for (const auto& k : a)
    if (!b.count(k)) out.push_back(k);
  return out;
}

void check_same_groups(const Flat& o, const Flat& n, const std::string& what, const std::string& old_name,
                       const std::string& new_name) {
  const auto only_old = only_in(o.group_order, n.groups);
  const auto only_new = only_in(n.group_order, o.groups);
  if (only_old.empty() && only_new.empty()) return;
  std::string msg = fmt::format("the files hold different {}:", what);
  if (!only_old.empty()) msg += fmt::format(" only in {}: {};", old_name, fmt::join(only_old, ", "));
  if (!only_new.empty()) msg += fmt::format(" only in {}: {};", new_name, fmt::join(only_new, ", "));
  msg.pop_back();
  bad(msg);
}

// Entries of one case or series present in both documents.
void compare_group(const std::string& group, const Flat& o, const Flat& n, const CompareOptions& opts,
                   const std::string& old_name, const std::string& new_name, CompareResult& out) {
  const bool old_has = !o.group_failure.count(group), new_has = !n.group_failure.count(group);
  if (!old_has || !new_has) {
    out.entries.push_back(
        old_has ? note_entry(group, Verdict::failed, fmt::format("{} in {}", n.group_failure.at(group), new_name))
                : note_entry(group, Verdict::skipped, fmt::format("{} in {}", o.group_failure.at(group), old_name)));
    return;
  }
  const auto& okeys = o.groups.at(group);
  const auto& nkeys = n.groups.at(group);
  // A cell missing from an incomplete (not_run) case was never measured:
  // skipped, not a mismatch of the files.
  const auto skipped = [&](const std::string& k, const std::string& where) {
    out.entries.push_back(note_entry(k, Verdict::skipped, fmt::format("not run in {}", where)));
  };
  for (const auto& k : nkeys) {
    if (o.values.count(k)) continue;
    if (!o.group_incomplete.count(group)) bad(fmt::format("{} is only in {}", k, new_name));
    skipped(k, old_name);
  }
  for (const auto& k : okeys) {
    if (!n.values.count(k)) {
      if (!n.group_incomplete.count(group)) bad(fmt::format("{} is only in {}", k, old_name));
      skipped(k, new_name);
      continue;
    }
    const Value& a = o.values.at(k);
    const Value& b = n.values.at(k);
    CompareEntry e = compare_values(k, o.units.at(k), a.value, a.stddev, a.samples, b.value, b.stddev, b.samples, opts);
    // A change no larger than what either run's own reference cells moved
    // during that run cannot be told from drift.
    const double drift = std::max(drift_of(o, a.link), drift_of(n, b.link));
    if (drift > e.noise_pct) e.noise_pct = drift;
    if ((e.verdict == Verdict::faster || e.verdict == Verdict::slower) && std::fabs(e.delta_pct) <= drift) {
      e.verdict = Verdict::same;
      e.note = fmt::format("within the runs' measured drift ({:.2f}%)", drift);
    }
    if (b.verification_failed || b.invalid) {
      e.verdict = Verdict::failed;
      e.note = b.invalid ? fmt::format("invalid in {}: above the link's theoretical peak", new_name)
                         : fmt::format("data verification failed in {}", new_name);
    }
    if (!b.error.empty() || !a.error.empty()) {
      e.verdict = b.error.empty() ? Verdict::skipped : Verdict::failed;
      e.note = b.error.empty() ? fmt::format("not measured in {}: {}", old_name, a.error)
                               : fmt::format("not measured in {}: {}", new_name, b.error);
    }
    out.entries.push_back(e);
  }
}

// One run or sweep against another, flattened.
CompareResult compare_flats(const Flat& o, const Flat& n, const char* schema, const char* groups,
                            const CompareOptions& opts, const std::string& old_name, const std::string& new_name) {
  check_same_groups(o, n, groups, old_name, new_name);
  CompareResult out;
  out.schema = schema;
  out.options = opts;
  for (const auto& g : o.group_order) compare_group(g, o, n, opts, old_name, new_name, out);
  return out;
}

}  // namespace

CompareResult compare_runs(const RunResult& old_run, const RunResult& new_run, const CompareOptions& opts,
                           const std::string& old_name, const std::string& new_name) {
  Flat o, n;
  flatten_run(old_run, o);
  flatten_run(new_run, n);
  return compare_flats(o, n, records::kSchemaName, "cases", opts, old_name, new_name);
}

CompareResult compare_sweeps(const SweepResult& old_sweep, const SweepResult& new_sweep, const CompareOptions& opts,
                             const std::string& old_name, const std::string& new_name) {
  Flat o, n;
  flatten_sweep(old_sweep, o);
  flatten_sweep(new_sweep, n);
  return compare_flats(o, n, records::kSweepSchemaName, "series", opts, old_name, new_name);
}

}  // namespace xb
