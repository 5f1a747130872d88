#include "cases/sweep.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "cases/case_run.hpp"
#include "base/error.hpp"
#include "base/names.hpp"
#include "base/time_budget.hpp"
#include "base/fault.hpp"
#include "base/run_control.hpp"
#include "cases/runner.hpp"
#include "measure/sample_source.hpp"
#include "base/stop.hpp"
#include "base/units.hpp"

namespace xb {

constexpr Named<SweepStatus> kSweepStatuses[] = {
    {SweepStatus::passed, "passed"}, {SweepStatus::failed, "failed"}, {SweepStatus::waived, "waived"}};

const char* to_string(SweepStatus s) noexcept { return lookup_name(kSweepStatuses, s); }

std::vector<std::uint64_t> sweep_sizes(const SweepRange& r) {
  if (r.min_bytes == 0 || r.max_bytes == 0) fail(ErrorKind::usage, "invalid sweep range: --min and --max must be greater than 0");
  if (r.min_bytes > r.max_bytes)
    fail(ErrorKind::usage, fmt::format("invalid sweep range: --min {} is larger than --max {}", r.min_bytes, r.max_bytes));
  if (r.step_bytes == 0 && !(r.factor > 1.0))
    fail(ErrorKind::usage, fmt::format("invalid --factor '{}': must be greater than 1", r.factor));
  std::vector<std::uint64_t> sizes;
  auto too_many = [&] {
    fail(ErrorKind::usage, fmt::format("sweep from {} to {} bytes has more than {} sizes: use a larger --factor or --step",
                                       r.min_bytes, r.max_bytes, kMaxSweepSizes));
  };
  if (r.step_bytes > 0) {
    if ((r.max_bytes - r.min_bytes) / r.step_bytes >= kMaxSweepSizes) too_many();
    for (std::uint64_t b = r.min_bytes; b <= r.max_bytes; b += r.step_bytes) {
      sizes.push_back(b);
      if (r.max_bytes - b < r.step_bytes) break;  // the next step would pass max (or overflow)
    }
  } else {
    // Powers are computed from min each time so rounding does not accumulate.
    for (int k = 0;; ++k) {
      const double v = std::round(static_cast<double>(r.min_bytes) * std::pow(r.factor, k));
      if (v > static_cast<double>(r.max_bytes)) break;
      const auto b = static_cast<std::uint64_t>(v);
      if (sizes.empty() || b != sizes.back()) sizes.push_back(b);
      if (sizes.size() > kMaxSweepSizes) too_many();
    }
  }
  if (sizes.back() != r.max_bytes) sizes.push_back(r.max_bytes);
  if (sizes.size() > kMaxSweepSizes) too_many();
  return sizes;
}

LinearFit fit_startup_bandwidth(const std::vector<double>& bytes, const std::vector<double>& seconds) {
  LinearFit f;
  std::vector<double> x, y, w;
  for (std::size_t i = 0; i < bytes.size() && i < seconds.size(); ++i) {
    if (!(seconds[i] > 0) || !(bytes[i] > 0)) continue;
    x.push_back(bytes[i]);
    y.push_back(seconds[i]);
    w.push_back(1.0 / (seconds[i] * seconds[i]));
  }
  f.points = static_cast<int>(x.size());
  if (x.size() < 2 || *std::min_element(x.begin(), x.end()) == *std::max_element(x.begin(), x.end())) return f;
  // Weighted means first, then centred sums: better conditioned than the
  // textbook normal equations when bytes reach 1e10.
  double sw = 0, xm = 0, ym = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sw += w[i];
    xm += w[i] * x[i];
    ym += w[i] * y[i];
  }
  xm /= sw;
  ym /= sw;
  double sxy = 0, sxx = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxy += w[i] * (x[i] - xm) * (y[i] - ym);
    sxx += w[i] * (x[i] - xm) * (x[i] - xm);
  }
  const double slope = sxy / sxx;  // seconds per byte
  if (!(slope > 0)) return f;
  f.valid = true;
  f.startup_s = ym - slope * xm;
  f.asymptotic_gbps = 1.0 / slope / 1e9;
  f.n_half_bytes = f.startup_s > 0 ? f.startup_s / slope : 0.0;
  double sq = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double r = (y[i] - (f.startup_s + slope * x[i])) / y[i];
    sq += r * r;
  }
  f.rms_relative_residual = std::sqrt(sq / static_cast<double>(x.size()));
  return f;
}

namespace {

SweepRow make_row(std::uint64_t bytes, std::vector<double> samples, Statistic statistic, const Peak& peak) {
  SweepRow row;
  row.bytes = bytes;
  row.stats = summarize(samples);
  row.value_gbps = value_of(row.stats, statistic);
  row.seconds_per_copy = row.value_gbps > 0 ? static_cast<double>(bytes) / (row.value_gbps * 1e9) : 0.0;
  row.samples_gbps = std::move(samples);
  row.efficiency = peak.known() ? row.value_gbps / peak.gbps : 0.0;
  return row;
}

void fail_with(SweepResult& out, std::string message) {
  if (out.status != SweepStatus::waived) out.status = SweepStatus::failed;
  out.messages.push_back(std::move(message));
}

// Every transfer of the spec at `bytes`: one series per transfer.
void measure_spec_size(SampleSource& src, const SweepRequest& req, std::uint64_t bytes, SweepResult& out) {
  Scenario sc = req.scenario;
  for (auto& t : sc.transfers) t.bytes = bytes;
  const ScenarioSamples s = src.run(sc, [&](const ScenarioSamples& ss, std::size_t i) {
    double total = 0;
    for (const auto& t : sc.transfers) total += static_cast<double>(t.bytes) * ss.copies_per_sample;
    return gbps(total, ss.total_seconds[i]);
  });
  const double copies = s.copies_per_sample;
  SweepTimeline& tl = out.timeline;
  tl = SweepTimeline{};
  tl.bytes = bytes;
  tl.copies_per_sample = s.copies_per_sample;
  for (std::size_t t = 0; t < sc.transfers.size(); ++t) {
    const Transfer& tr = sc.transfers[t];
    tl.labels.push_back(tr.label);
    tl.start_s.push_back(s.transfers[t].start_s);
    tl.end_s.push_back(s.transfers[t].end_s);
    SweepSeries& series = series_named(out.series, tr.label);
    series.peak = transfer_peak(src.system(), tr, &series.link);
    std::vector<double> samples;
    for (double sec : s.transfers[t].seconds) samples.push_back(gbps(static_cast<double>(bytes) * copies, sec));
    SweepRow row = make_row(bytes, std::move(samples), req.measure.statistic, series.peak);
    row.copies_per_sample = s.copies_per_sample;
    if (const std::string why = impossible_reason(row.value_gbps, series.peak); !why.empty()) {
      row.invalid = true;
      fail_with(out, fmt::format("at {} bytes: invalid figure for {}: {}", bytes, tr.label, why));
    }
    row.verification = s.transfers[t].verification.status;
    if (row.verification == Verification::Status::failed)
      fail_with(out, fmt::format("at {} bytes: verification failed: {} at byte offset {}", bytes, tr.label,
                                 s.transfers[t].verification.first_bad_offset));
    series.rows.push_back(std::move(row));
  }
}

// Returns false when the case cannot run here (waived): no other size will.
bool measure_case_size(SampleSource& src, const SweepRequest& req, std::uint64_t bytes, SweepResult& out) {
  CaseResult c;
  // Planned anew for each size; a stop leaves the size unmeasured.
  run_case_into(plan_run_case(*req.named_case, src.system(), bytes, nullptr), src, c);
  mark_impossible_cells(c);
  if (c.status == CaseStatus::waived) {
    out.status = SweepStatus::waived;
    out.messages.push_back(c.message);
    return false;
  }
  if (c.status != CaseStatus::passed) fail_with(out, fmt::format("at {} bytes: {}", bytes, c.message));
  add_case_rows(c, out);
  return true;
}

}  // namespace

void add_case_rows(const CaseResult& c, SweepResult& out) {
  for (const Matrix& m : c.matrices) {
    if (m.metric != Metric::bandwidth_gbps) continue;  // latency does not depend on size
    for (const Cell& cell : m.cells) {
      SweepSeries& series = series_named(out.series, fmt::format("{}[{},{}]", m.name, m.row_labels.at(static_cast<std::size_t>(cell.row)),
                                                        m.col_labels.at(static_cast<std::size_t>(cell.col))));
      series.link = cell.link;
      series.peak = cell.peak;
      SweepRow row;
      row.bytes = cell.bytes_per_copy;
      row.value_gbps = cell.value;
      row.seconds_per_copy = cell.value > 0 ? static_cast<double>(cell.bytes_per_copy) / (cell.value * 1e9) : 0.0;
      row.stats = cell.stats;
      row.samples_gbps = cell.samples;
      row.copies_per_sample = cell.copies_per_sample;
      row.efficiency = cell.efficiency;
      row.verification = cell.verification.status;
      row.invalid = cell.invalid;
      series.rows.push_back(std::move(row));
    }
  }
}

void fit_series(SweepResult& out) {
  for (auto& s : out.series) {
    std::vector<double> x, y;
    for (const auto& r : s.rows) {
      x.push_back(static_cast<double>(r.bytes));
      y.push_back(r.seconds_per_copy);
    }
    s.fit = fit_startup_bandwidth(x, y);
  }
}

namespace {

bool has_size(const SweepResult& r, std::uint64_t bytes) {
  for (const auto& s : r.series)
    for (const auto& row : s.rows)
      if (row.bytes == bytes) return true;
  return false;
}

// --resume (the earlier sweep decoded by records::decode_sweep): adds the
// rows (and failures) of `old` to `fresh`, which skipped its sizes.
void merge_sweep(SweepResult& fresh, const SweepResult& old) {
  for (const SweepSeries& os : old.series) {
    SweepSeries& s = series_named(fresh.series, os.label);
    if (s.rows.empty()) {
      s.link = os.link;
      s.peak = os.peak;
    }
    for (const SweepRow& row : os.rows) {
      const bool have = std::any_of(s.rows.begin(), s.rows.end(), [&](const SweepRow& r) { return r.bytes == row.bytes; });
      if (!have) s.rows.push_back(row);
    }
    std::sort(s.rows.begin(), s.rows.end(), [](const SweepRow& a, const SweepRow& b) { return a.bytes < b.bytes; });
  }
  std::vector<std::string> messages = old.messages;
  messages.insert(messages.end(), fresh.messages.begin(), fresh.messages.end());
  fresh.messages = std::move(messages);
  if (old.status == SweepStatus::failed && fresh.status == SweepStatus::passed) fresh.status = SweepStatus::failed;
  fresh.resumed_from = old.resumed_from;
}

// Fault injection's verify: the rows of this size fail their data check.
void fail_check_at(SweepResult& out, std::uint64_t bytes) {
  for (auto& s : out.series)
    for (auto& row : s.rows)
      if (row.bytes == bytes) row.verification = Verification::Status::failed;
  fail_with(out, fmt::format("at {} bytes: verification failed: injected fault (XFERBENCH_FAULT)", bytes));
}

// One size under the controls. Returns false when no later size can run
// (the case is waived here).
bool sweep_size(SampleSource& src, const SweepRequest& req, std::uint64_t bytes, RunControl& ctl, SweepResult& out) {
  const std::string key = std::to_string(bytes);
  const CellCost next{"sweep", static_cast<double>(bytes), 0};
  const auto decision = ctl.before_cell(key, next);
  if (decision == RunControl::Decision::over_time) out.completion.not_run.push_back(std::to_string(bytes));
  if (decision != RunControl::Decision::run) return true;
  const FaultKind fault = ctl.fault({key});
  const auto t0 = std::chrono::steady_clock::now();
  bool more = true;
  try {
    inject_fault(fault, fmt::format("at {} bytes", bytes));
    if (req.named_case) {
      more = measure_case_size(src, req, bytes, out);
    } else {
      measure_spec_size(src, req, bytes, out);
    }
    if (fault == FaultKind::verify) fail_check_at(out, bytes);
  } catch (const Error& e) {
    fail_with(out, fmt::format("at {} bytes: {}", bytes, e.what()));
    if (e.kind() == ErrorKind::cuda) {
      const std::string why = fault == FaultKind::cuda_sticky ? std::string(e.what()) : src.unusable_reason();
      if (!why.empty()) throw Stopped(StopReason::gpu_unusable, fmt::format("the GPU is no longer usable: {}", why));
    }
  }
  ctl.after_cell(CellCost{"sweep", static_cast<double>(bytes), seconds_since(t0)});
  return more;
}

}  // namespace

SweepResult run_sweep(SampleSource& src, const SweepRequest& req, const SweepCallback& on_size,
                      const RunControls& controls, const SweepResult* resume) {
  const auto t0 = std::chrono::steady_clock::now();
  SweepResult out;
  out.command_line = req.command_line;
  out.start_time_utc = utc_now_iso8601();
  out.source = req.named_case ? "case" : "spec";
  out.what = req.named_case ? req.named_case->name : req.spec;
  if (!req.named_case) out.stream_mode = to_string(req.scenario.streams);
  out.sizes = req.sizes;
  out.statistic = to_string(req.measure.statistic);
  out.measure = req.measure;
  out.system = src.system();
  if (controls.budget != nullptr) out.completion.time_limit_s = controls.budget->limit_s();
  RunControl ctl(controls.budget, controls.faults);
  if (resume != nullptr) {
    ctl.set_done_before([resume](const std::string& key) { return has_size(*resume, std::stoull(key)); });
    out.resumed_from = resume->resumed_from;
  }
  if (on_size) on_size(out, 0, req.sizes.size());
  std::size_t i = 0;
  try {
    for (; i < req.sizes.size(); ++i) {
      if (!sweep_size(src, req, req.sizes[i], ctl, out)) break;
      if (on_size) on_size(out, i + 1, req.sizes.size());
    }
  } catch (const Stopped& stop) {
    record_stop(out.completion, stop);
    for (; i < req.sizes.size(); ++i)
      if (resume == nullptr || !has_size(*resume, req.sizes[i]))
        out.completion.not_run.push_back(std::to_string(req.sizes[i]));
  }
  settle(out.completion, "size");
  if (resume != nullptr) merge_sweep(out, *resume);
  fit_series(out);
  out.wall_seconds = seconds_since(t0);
  return out;
}

}  // namespace xb
