#include "cases/sm_sweep.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "cases/case_run.hpp"
#include "base/error.hpp"
#include "base/time_budget.hpp"
#include "cases/runner.hpp"
#include "measure/sample_source.hpp"
#include "base/units.hpp"

namespace xb {
namespace {

bool budget_applies(const CaseDef& d) {
  const bool engine = d.engine == Engine::sm || d.engine == Engine::tma || d.engine == Engine::sm_read ||
                      d.engine == Engine::sm_write;
  switch (d.pattern) {
    case Pattern::host_to_device: case Pattern::device_to_host: case Pattern::d2d_read: case Pattern::d2d_write:
    case Pattern::local_copy: case Pattern::local_read: case Pattern::local_write:
      return engine;
    default:
      return false;
  }
}

std::string qualifying_cases() {
  std::string out;
  for (const CaseDef& d : case_catalogue())
    if (budget_applies(d)) out += (out.empty() ? "" : ", ") + d.name;
  return out;
}

// The GPU whose SMs move a cell's bytes: the row GPU of GPU pairs, the
// column GPU of host and local cases.
int kernel_gpu(const CaseDef& d, const Cell& c) { return is_pairwise(d.pattern) ? c.row : c.col; }

}  // namespace

const CaseDef* sm_sweep_case(const std::string& name) {
  const CaseDef* def = select_cases({name}, {}).at(0);
  if (!budget_applies(*def))
    fail(ErrorKind::usage, fmt::format("--sms: case '{}' has no single SM copy kernel to limit; use one of {}", def->name,
                                       qualifying_cases()));
  return def;
}

std::vector<int> sm_counts(const std::string& text, const std::vector<int>& gpu_sms) {
  if (gpu_sms.empty()) fail(ErrorKind::no_device, "--sms: no GPU");
  const auto fewest = std::min_element(gpu_sms.begin(), gpu_sms.end());
  const int least = *fewest;
  const auto gpu = static_cast<int>(fewest - gpu_sms.begin());
  std::vector<int> out;
  if (text.empty()) {
    for (int n = 1; n < least; n *= 2) out.push_back(n);
  } else {
    std::size_t start = 0;
    while (start <= text.size()) {
      const std::size_t end = std::min(text.find(',', start), text.size());
      const std::string item = text.substr(start, end - start);
      start = end + 1;
      if (item == "all") continue;
      std::int64_t n = -1;
      try {
        n = parse_int(item, "--sms");
      } catch (const Error&) {
        fail(ErrorKind::usage, fmt::format("invalid --sms '{}': expected SM counts and 'all', e.g. 1,2,8,all", text));
      }
      if (n < 1 || n > least)
        fail(ErrorKind::usage, fmt::format("invalid --sms '{}': {} SMs; gpu{} has {} SMs (give 1-{} or all)", text,
                                           item, gpu, least, least));
      if (n < least || std::any_of(gpu_sms.begin(), gpu_sms.end(), [&](int s) { return s != n; }))
        out.push_back(static_cast<int>(n));
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }
  out.push_back(0);  // every SM: the reference of the 90% and 95% marks
  return out;
}

void finish_series(SmSeries& s) {
  s.all_sm_gbps = 0;
  int most = -1;
  for (const SmPoint& p : s.points)
    if (p.sms > most) {
      most = p.sms;
      s.all_sm_gbps = p.value_gbps;
    }
  s.sms_for_90 = s.sms_for_95 = 0;
  std::vector<SmPoint> sorted = s.points;
  std::sort(sorted.begin(), sorted.end(), [](const SmPoint& a, const SmPoint& b) { return a.sms < b.sms; });
  for (SmPoint& p : s.points) p.of_all = s.all_sm_gbps > 0 ? p.value_gbps / s.all_sm_gbps : 0.0;
  s.per_sm_gbps = sorted.empty() ? 0.0 : sorted.front().value_gbps / std::max(1, sorted.front().sms);
  s.disagrees = s.named_gbps > 0 && std::abs(s.all_sm_gbps / s.named_gbps - 1.0) > kNamedTolerance;
  for (const SmPoint& p : sorted) {
    const double f = s.all_sm_gbps > 0 ? p.value_gbps / s.all_sm_gbps : 0.0;
    if (s.sms_for_90 == 0 && f >= 0.9) s.sms_for_90 = p.sms;
    if (s.sms_for_95 == 0 && f >= 0.95) s.sms_for_95 = p.sms;
  }
}

namespace {

// Calls fn(series, cell) for every valid bandwidth cell of a case's result.
template <typename Fn>
void for_each_series_cell(const CaseResult& c, SmSweepResult& out, Fn fn) {
  const CaseDef* def = select_cases({c.name}, {}).at(0);
  for (const Matrix& m : c.matrices) {
    if (m.metric != Metric::bandwidth_gbps) continue;
    for (const Cell& cell : m.cells) {
      if (cell.invalid) continue;  // above the link's peak: the case failed naming it
      SmSeries& s = series_named(out.series, fmt::format("{}[{},{}]", m.name, m.row_labels.at(static_cast<std::size_t>(cell.row)),
                                                m.col_labels.at(static_cast<std::size_t>(cell.col))));
      s.gpu_sms = out.system.gpus.at(static_cast<std::size_t>(kernel_gpu(*def, cell))).sm_count;
      fn(s, cell);
    }
  }
}

}  // namespace

void add_sm_point(const CaseResult& c, int sms, SmSweepResult& out) {
  for_each_series_cell(c, out, [&](SmSeries& s, const Cell& cell) {
    s.link = cell.link;
    s.peak = cell.peak;
    SmPoint p;
    p.sms = sms > 0 ? std::min(sms, s.gpu_sms) : s.gpu_sms;
    p.value_gbps = cell.value;
    p.stats = cell.stats;
    p.samples_gbps = cell.samples;
    p.copies_per_sample = cell.copies_per_sample;
    p.efficiency = cell.efficiency;
    p.verification = cell.verification.status;
    s.points.push_back(std::move(p));
  });
}

namespace {

// One measurement of the case under the source's current SM limit; false
// when the case was waived (the sweep stops).
bool measure_case(SampleSource& src, const SmSweepRequest& req, const std::string& at, CaseResult& c,
                  SmSweepResult& out) {
  run_case_into(plan_run_case(*req.def, src.system(), req.bytes, nullptr), src, c);
  mark_impossible_cells(c);
  if (c.status == CaseStatus::waived) {
    out.status = SweepStatus::waived;
    out.messages.push_back(c.message);
    return false;
  }
  if (c.status != CaseStatus::passed) {
    out.status = SweepStatus::failed;
    out.messages.push_back(fmt::format("{}: {}", at, c.message));
  }
  return true;
}

}  // namespace

SmSweepResult sweep_sms(SampleSource& src, const SmSweepRequest& req, const SmSweepCallback& on_point) {
  const auto t0 = std::chrono::steady_clock::now();
  SmSweepResult out;
  out.command_line = req.command_line;
  out.start_time_utc = utc_now_iso8601();
  out.case_name = req.def->name;
  out.bytes = req.bytes;
  out.statistic = to_string(req.measure.statistic);
  out.measure = req.measure;
  out.system = src.system();
  std::vector<int> gpu_sms;
  for (const auto& g : out.system.gpus) gpu_sms.push_back(g.sm_count);
  out.sms = sm_counts(req.sms_text, gpu_sms);
  bool measured = true;
  for (std::size_t i = 0; i < out.sms.size(); ++i) {
    const int n = out.sms[i];
    src.set_sm_limit(n);
    CaseResult c;
    measured = measure_case(src, req, fmt::format("at {} SMs", n > 0 ? std::to_string(n) : "all"), c, out);
    if (!measured) break;
    add_sm_point(c, n, out);
    if (on_point) on_point(n, i + 1, out.sms.size());
  }
  src.set_sm_limit(0);
  CaseResult named;
  if (measured && measure_case(src, req, "the named case", named, out))
    for_each_series_cell(named, out, [](SmSeries& s, const Cell& cell) { s.named_gbps = cell.value; });
  for (SmSeries& s : out.series) {
    finish_series(s);
    if (!s.disagrees) continue;
    out.status = SweepStatus::failed;
    out.messages.push_back(fmt::format("{}: the all-SM point ({:.2f} GB/s) differs from the named case measured "
                                       "again ({:.2f} GB/s) by more than {:.0f}%",
                                       s.label, s.all_sm_gbps, s.named_gbps, kNamedTolerance * 100));
  }
  out.wall_seconds = seconds_since(t0);
  return out;
}

SmSweepResult run_sm_sweep(const System& sys, const SmSweepRequest& req, const SmSweepCallback& on_point) {
  Measurer measurer(sys, req.measure);
  GpuSource src(measurer);
  return sweep_sms(src, req, on_point);
}

}  // namespace xb
