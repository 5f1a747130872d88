#include "soak/soak_analysis.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "base/stats.hpp"
#include "machine/nvml.hpp"

namespace xb::soak {
namespace {

// Pairs the Theil-Sen slope looks at, at most: n = 633 samples of a cell
// use every pair; more are subsampled with a fixed seed (same answer every
// time), which keeps a week-long soak's analysis well under a second.
constexpr std::size_t kMaxPairs = 200000;
constexpr std::size_t kMaxDraws = 4 * kMaxPairs;
// The step windows: a twentieth of the samples, at least 5, at most this
// (a week of samples every 5 s still takes a moment).
constexpr std::size_t kMaxStepWindow = 250;
// Two-sided 95% normal quantile, for Sen's confidence interval.
constexpr double kZ95 = 1.959964;
// A step must also be this many times the cell's noise (a robust sigma).
constexpr double kStepNoiseFactor = 4.0;

struct Point {
  double t = 0, v = 0;
  std::uint32_t sample = 0;  // index into SoakData::samples()
};

// A change of `delta` is the bad way for the unit: less bandwidth, more latency.
bool bad_way(const std::string& unit, double delta) { return unit == "ns" ? delta > 0 : delta < 0; }

// Theil-Sen slope (value per second) and Sen's ~95% interval from the
// variance of Kendall's S (no tie correction).
struct Slope {
  double slope = 0, low = 0, high = 0;
};
Slope theil_sen(const std::vector<Point>& p) {
  const std::size_t n = p.size();
  std::vector<double> slopes;
  const std::size_t all = n * (n - 1) / 2;
  auto add = [&](std::size_t i, std::size_t j) {
    const double dt = p[j].t - p[i].t;
    if (dt != 0) slopes.push_back((p[j].v - p[i].v) / dt);
  };
  if (all <= kMaxPairs) {
    slopes.reserve(all);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = i + 1; j < n; ++j) add(i, j);
  } else {
    // A bounded number of draws: pairs at the same time give no slope, and
    // a merged or hand-made file may hold nothing else (the draws
    // went on for ever with 633 samples at one time).
    std::mt19937_64 rng(20261125);
    std::uniform_int_distribution<std::size_t> pick(0, n - 1);
    slopes.reserve(kMaxPairs);
    for (std::size_t draw = 0; draw < kMaxDraws && slopes.size() < kMaxPairs; ++draw) {
      const std::size_t i = pick(rng), j = pick(rng);
      if (i != j) add(std::min(i, j), std::max(i, j));
    }
  }
  if (slopes.empty()) return {};
  std::sort(slopes.begin(), slopes.end());
  const double m = static_cast<double>(slopes.size());
  const double nn = static_cast<double>(n), pairs = static_cast<double>(all);
  const double c = kZ95 * std::sqrt(nn * (nn - 1) * (2 * nn + 5) / 18);
  auto at = [&](double q) {
    const double i = std::clamp(q * m, 0.0, m - 1);
    return slopes[static_cast<std::size_t>(i)];
  };
  Slope s;
  const std::size_t mid = slopes.size() / 2;
  s.slope = slopes.size() % 2 ? slopes[mid] : (slopes[mid - 1] + slopes[mid]) / 2;
  s.low = at(std::floor((pairs - c) / 2) / pairs);
  s.high = at(std::ceil((pairs + c) / 2) / pairs);
  return s;
}

double median_of(const std::vector<Point>& p, std::size_t from, std::size_t to) {
  std::vector<double> v;
  for (std::size_t i = from; i < to; ++i) v.push_back(p[i].v);
  return median(std::move(v));
}

// The noise of a cell: a robust sigma from its first differences (which a
// drift or a step hardly moves).
double robust_sigma(const std::vector<Point>& p) {
  if (p.size() < 3) return 0;
  std::vector<double> d;
  for (std::size_t i = 1; i < p.size(); ++i) d.push_back(p[i].v - p[i - 1].v);
  const double m = median(d);
  for (double& x : d) x = std::abs(x - m);
  return 1.4826 * median(std::move(d)) / std::sqrt(2.0);
}

// Where in [from, to) the split into two parts around their own medians
// fits best (least absolute deviation): the first index after the change.
std::size_t best_split(const std::vector<Point>& p, std::size_t from, std::size_t to) {
  std::size_t best = from + 1;
  double best_cost = INFINITY;
  for (std::size_t k = from + 1; k < to; ++k) {
    const double a = median_of(p, from, k), b = median_of(p, k, to);
    double cost = 0;
    for (std::size_t i = from; i < to; ++i) cost += std::abs(p[i].v - (i < k ? a : b));
    if (cost < best_cost) best_cost = cost, best = k;
  }
  return best;
}

// Steps: d[k], the change of the median between the w samples before k and
// the w from k (w: a twentieth of the samples, 5 to kMaxStepWindow), is a
// triangle peaking at a step and flat along a drift; e[k] = d[k] -
// (d[k-w] + d[k+w]) / 2 takes the drift's share out (and leaves side lobes
// of half the step where d is near 0). A step is where both |d| and |e|
// reach the thresholds with the same sign, the largest first, each claiming
// 2w samples either side; its time is the best split of the 2w samples
// around the peak.
std::vector<Step> find_steps(const SoakData& data, const std::vector<Point>& p, double cell_median,
                             const AnalysisOptions& opts) {
  const std::size_t n = p.size();
  const std::size_t w = std::clamp<std::size_t>(n / 20, 5, kMaxStepWindow);
  if (n < 2 * w) return {};
  const double threshold =
      std::max(opts.step_pct / 100 * std::abs(cell_median), kStepNoiseFactor * robust_sigma(p));
  std::vector<double> d(n + 1, 0.0), e(n + 1, 0.0);
  auto valid = [&](std::size_t k) { return k >= w && k + w <= n; };
  for (std::size_t k = w; k + w <= n; ++k) d[k] = median_of(p, k, k + w) - median_of(p, k - w, k);
  for (std::size_t k = w; k + w <= n; ++k) {
    double trend = 0;
    int sides = 0;
    if (k >= 2 * w) trend += d[k - w], ++sides;
    if (valid(k + w)) trend += d[k + w], ++sides;
    e[k] = d[k] - (sides ? trend / sides : 0);
  }
  std::vector<bool> claimed(n + 1, false);
  std::vector<Step> steps;
  while (true) {
    std::size_t peak = 0;
    double best = 0;
    for (std::size_t k = w; k + w <= n; ++k) {
      if (claimed[k] || std::abs(e[k]) < threshold || std::abs(d[k]) < threshold) continue;
      if ((e[k] > 0) != (d[k] > 0)) continue;
      if (std::abs(e[k]) > best) best = std::abs(e[k]), peak = k;
    }
    if (best == 0) break;
    const std::size_t k = best_split(p, peak - w, std::min(n, peak + w));
    for (std::size_t i = peak >= 2 * w ? peak - 2 * w : 0; i <= std::min(n, peak + 2 * w); ++i) claimed[i] = true;
    Step s;
    s.t_s = p[k].t;
    s.time_utc = data.time_utc(data.samples()[p[k].sample]);
    s.before = median_of(p, k >= w ? k - w : 0, k);
    s.after = median_of(p, k, std::min(n, k + w));
    s.change_pct = s.before != 0 ? (s.after - s.before) / s.before * 100 : 0;
    steps.push_back(s);
  }
  std::sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) { return a.t_s < b.t_s; });
  return steps;
}

std::string unit_text(const std::string& unit) { return unit == "gbps" ? "GB/s" : unit; }

CellSummary summarize_cell(const SoakData& data, std::uint32_t cell, const std::vector<std::uint32_t>& all,
                           const AnalysisOptions& opts) {
  CellSummary c;
  c.cell = data.cells()[cell].name;
  c.unit = data.cells()[cell].unit;
  c.samples = static_cast<int>(all.size());
  std::vector<Point> p;
  for (const std::uint32_t i : all) {
    const SamplePoint& s = data.samples()[i];
    c.failed += s.failed;
    c.weak_load_samples += s.weak_load;
    if (s.has_value) p.push_back({s.t_s, s.value, i});
  }
  if (p.empty()) return c;
  std::stable_sort(p.begin(), p.end(), [](const Point& a, const Point& b) { return a.t < b.t; });
  std::vector<double> values;
  for (const Point& x : p) values.push_back(x.v);
  const Summary spread = summarize(values);
  c.min = spread.min;
  c.max = spread.max;
  c.median = spread.median;
  c.stddev = spread.stddev;
  c.measured = spread.count;
  if (p.size() >= 3 && c.median != 0) {
    const Slope s = theil_sen(p);
    const double scale = 100 * 3600 / c.median;
    c.slope_pct_per_hour = s.slope * scale;
    std::tie(c.slope_low, c.slope_high) = std::minmax(s.low * scale, s.high * scale);
    const double hours = (p.back().t - p.front().t) / 3600;
    c.drift = std::abs(c.slope_pct_per_hour) >= opts.drift_pct_per_hour && (c.slope_low > 0 || c.slope_high < 0) &&
              std::abs(c.slope_pct_per_hour) * hours >= opts.drift_min_change_pct;
  }
  c.steps = find_steps(data, p, c.median, opts);
  c.worse = (c.drift && bad_way(c.unit, c.slope_pct_per_hour)) ||
            (!c.steps.empty() && bad_way(c.unit, c.steps.back().change_pct));
  return c;
}

template <class T>
std::uint64_t grew(const std::optional<T>& before, const std::optional<T>& now) {
  return before && now && *now > *before ? static_cast<std::uint64_t>(*now - *before) : 0;
}

void add_detail(std::string& detail, const std::string& part) {
  if (!detail.empty()) detail += ", ";
  detail += part;
}

// What changed from one reading of a GPU to the next: the counter and
// remap episodes (kind, detail).
std::vector<std::pair<const char*, std::string>> changes(const TelemetryState& b, const TelemetryState& t) {
  std::vector<std::pair<const char*, std::string>> out;
  std::string ecc;
  if (const auto u = grew(b.ecc_uncorrected, t.ecc_uncorrected)) add_detail(ecc, fmt::format("+{} uncorrected", u));
  if (const auto c = grew(b.ecc_corrected, t.ecc_corrected)) add_detail(ecc, fmt::format("+{} corrected", c));
  if (!ecc.empty()) out.emplace_back("ecc", ecc);
  std::string remap;
  if (const auto u = grew(b.rows_remapped_uncorrectable, t.rows_remapped_uncorrectable))
    add_detail(remap, fmt::format("+{} rows remapped (uncorrectable)", u));
  if (const auto c = grew(b.rows_remapped_correctable, t.rows_remapped_correctable))
    add_detail(remap, fmt::format("+{} rows remapped (correctable)", c));
  if (t.row_remap_pending.value_or(false) && !b.row_remap_pending.value_or(false)) add_detail(remap, "remap pending");
  if (t.row_remap_failure.value_or(false) && !b.row_remap_failure.value_or(false)) add_detail(remap, "remap failure");
  if (!remap.empty()) out.emplace_back("row_remap", remap);
  if (const auto n = grew(b.pcie_replays, t.pcie_replays)) out.emplace_back("pcie_replay", fmt::format("+{} replays", n));
  return out;
}

// The samples each episode touched: those on this GPU inside its span.
// The readings are in time order, so a span is found by bisection, and
// episodes with the same span (every event at one time) share one count:
// the work stays near the number of readings however many episodes.
void touched_samples(const SoakData& data, const std::vector<std::uint32_t>& r, std::vector<Episode>& episodes) {
  const auto t_of = [&](std::uint32_t reading) { return data.samples()[data.readings()[reading].sample].t_s; };
  std::map<std::pair<double, double>, std::pair<int, std::vector<std::string>>> by_span;
  for (Episode& e : episodes) {
    auto [it, fresh] = by_span.try_emplace({e.start_s, e.end_s});
    if (fresh) {
      const auto lo = std::lower_bound(r.begin(), r.end(), e.start_s, [&](std::uint32_t x, double t) { return t_of(x) < t; });
      const auto hi = std::upper_bound(lo, r.end(), e.end_s, [&](double t, std::uint32_t x) { return t < t_of(x); });
      std::set<std::uint32_t> seen;
      for (auto x = lo; x != hi; ++x) {
        const std::uint32_t cell = data.samples()[data.readings()[*x].sample].cell;
        if (seen.insert(cell).second) it->second.second.push_back(data.cells()[cell].name);
      }
      it->second.first = static_cast<int>(hi - lo);
    }
    e.samples = it->second.first;
    e.cells = it->second.second;
  }
}

// One GPU's readings (indices into data.readings()) in time order.
std::vector<Episode> gpu_episodes(const SoakData& data, int gpu, const std::vector<std::uint32_t>& r) {
  std::vector<Episode> out;
  const auto sample = [&](std::size_t i) -> const SamplePoint& { return data.samples()[data.readings()[r[i]].sample]; };
  const auto state = [&](std::size_t i) -> const TelemetryState& { return data.states()[data.readings()[r[i]].state]; };
  auto open = [&](const char* kind, std::size_t from, std::size_t to, std::string detail) {
    Episode e;
    e.kind = kind;
    e.gpu = gpu;
    e.start_s = sample(from).t_s;
    e.end_s = sample(to).t_s;
    e.start_utc = data.time_utc(sample(from));
    e.end_utc = data.time_utc(sample(to));
    e.detail = std::move(detail);
    out.push_back(std::move(e));
  };
  for (std::size_t i = 0; i < r.size(); ++i) {
    if (state(i).slowdown && (i == 0 || !state(i - 1).slowdown)) {
      std::uint64_t mask = 0;
      std::size_t j = i;
      for (; j + 1 < r.size() && state(j + 1).slowdown; ++j) mask |= state(j).slowdown;
      mask |= state(j).slowdown;
      open("throttle", i, j, clock_reason_names(mask));
    }
    const std::vector<std::uint64_t> xids = data.xids(r[i]);
    if (!xids.empty()) {
      std::string detail;
      for (std::uint64_t x : xids) add_detail(detail, fmt::format("XID {}", x));
      open("xid", i, i, detail);
    }
    if (i > 0 && data.readings()[r[i]].state != data.readings()[r[i - 1]].state)
      for (auto& [kind, detail] : changes(state(i - 1), state(i))) open(kind, i, i, detail);
  }
  touched_samples(data, r, out);
  return out;
}

std::vector<Episode> episodes_of(const SoakData& data) {
  std::map<int, std::vector<std::uint32_t>> per_gpu;
  for (std::uint32_t i = 0; i < data.readings().size(); ++i)
    per_gpu[data.states()[data.readings()[i].state].gpu].push_back(i);
  std::vector<Episode> out;
  for (auto& [gpu, readings] : per_gpu) {
    std::stable_sort(readings.begin(), readings.end(), [&](std::uint32_t a, std::uint32_t b) {
      return data.samples()[data.readings()[a].sample].t_s < data.samples()[data.readings()[b].sample].t_s;
    });
    auto e = gpu_episodes(data, gpu, readings);
    out.insert(out.end(), e.begin(), e.end());
  }
  std::stable_sort(out.begin(), out.end(), [](const Episode& a, const Episode& b) { return a.start_s < b.start_s; });
  return out;
}

std::string touched(const Episode& e) {
  return fmt::format("touched {} sample{} of {} cell{}", e.samples, e.samples == 1 ? "" : "s", e.cells.size(),
                     e.cells.size() == 1 ? "" : "s");
}

std::vector<std::string> finding_lines(const SoakSummary& s, const std::map<std::string, double>& spans) {
  std::vector<std::string> out;
  for (const CellSummary& c : s.cells) {
    if (c.drift && bad_way(c.unit, c.slope_pct_per_hour))
      out.push_back(fmt::format("{}: {:+.2f} %/h over {:.1f} h (ci {:+.2f}..{:+.2f})", c.cell, c.slope_pct_per_hour,
                                spans.at(c.cell) / 3600, c.slope_low, c.slope_high));
    for (const Step& st : c.steps)
      if (bad_way(c.unit, st.change_pct))
        out.push_back(fmt::format("{}: step {:+.1f} % at {} (t={:.0f} s), {:.4g} -> {:.4g} {}", c.cell, st.change_pct,
                                  st.time_utc, st.t_s, st.before, st.after, unit_text(c.unit)));
    if (c.failed) out.push_back(fmt::format("{}: {} of {} samples failed", c.cell, c.failed, c.samples));
    if (c.weak_load_samples)
      out.push_back(fmt::format("{}: {} of {} samples under a load below 50% of its peak", c.cell,
                                c.weak_load_samples, c.samples));
  }
  for (const Episode& e : s.episodes) {
    if (e.start_s == e.end_s)
      out.push_back(fmt::format("gpu{} {} at {} (t={:.0f} s), {}", e.gpu, e.kind == "xid" ? e.detail : e.kind + " " + e.detail,
                                e.start_utc, e.start_s, touched(e)));
    else
      out.push_back(fmt::format("gpu{} {} ({}) from {} to {} (t={:.0f}..{:.0f} s), {}", e.gpu, e.kind, e.detail,
                                e.start_utc, e.end_utc, e.start_s, e.end_s, touched(e)));
  }
  return out;
}

}  // namespace

SoakSummary analyze(const SoakData& soak, const AnalysisOptions& opts) {
  SoakSummary out;
  std::vector<std::vector<std::uint32_t>> cells(soak.cells().size());
  for (std::uint32_t i = 0; i < soak.samples().size(); ++i) {
    cells[soak.samples()[i].cell].push_back(i);
    out.duration_s = std::max(out.duration_s, soak.samples()[i].t_s);
  }
  out.rounds = soak.rounds();
  if (soak.end) out.duration_s = std::max(out.duration_s, soak.end->t_s);
  std::map<std::string, double> spans;
  for (std::uint32_t cell = 0; cell < cells.size(); ++cell) {
    out.cells.push_back(summarize_cell(soak, cell, cells[cell], opts));
    const auto [lo, hi] = std::minmax_element(cells[cell].begin(), cells[cell].end(), [&](std::uint32_t a, std::uint32_t b) {
      return soak.samples()[a].t_s < soak.samples()[b].t_s;
    });
    spans[soak.cells()[cell].name] = soak.samples()[*hi].t_s - soak.samples()[*lo].t_s;
  }
  out.episodes = episodes_of(soak);
  out.finding_lines = finding_lines(out, spans);
  out.findings = !out.finding_lines.empty();
  return out;
}

SoakSummary analyze(const SoakFile& soak, const AnalysisOptions& opts) { return analyze(soak_data_of(soak), opts); }

}  // namespace xb::soak
