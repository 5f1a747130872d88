#include "core/runner.hpp"

#include <chrono>
#include <ctime>
#include <map>

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "core/cuda_check.hpp"
#include "core/error.hpp"
#include "core/case_plan.hpp"
#include "core/measure.hpp"
#include "core/resume.hpp"
#include "core/run_control.hpp"
#include "core/sample_source.hpp"
#include "core/stats.hpp"
#include "core/stop.hpp"
#include "core/units.hpp"

namespace xb {

std::string utc_now_iso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

void flag_outliers(Matrix& m) {
  std::map<std::string, std::vector<double>> groups;
  for (const auto& c : m.cells) groups[c.link].push_back(c.value);
  for (auto& c : m.cells) {
    const auto& g = groups[c.link];
    if (g.size() < 2) continue;
    const double med = median(g);
    if (med <= 0) continue;
    const double ratio = c.value / med;
    const bool slow = m.metric == Metric::bandwidth_gbps ? ratio < 0.8 : ratio > 1.25;
    if (slow) {
      c.outlier = true;
      c.note = fmt::format("{:.0f}% of the median of the {} cells on {}", ratio * 100, g.size(), c.link);
    }
  }
}

bool all_passed(const RunResult& r) {
  for (const auto& c : r.cases)
    if (c.status == CaseStatus::failed || c.status == CaseStatus::error) return false;
  return true;
}

RunResult run_cases(const System& sys, const RunRequest& req, const CaseCallback& on_case) {
  Measurer measurer(sys, req.measure);
  GpuSource src(measurer);
  return run_cases(src, req, on_case, RunControls{});
}

namespace {

CaseResult not_started(const CaseDef& def, const std::string& why) {
  CaseResult r;
  r.index = def.index;
  r.name = def.name;
  r.description = def.description;
  r.status = CaseStatus::not_run;
  r.message = fmt::format("not run: {}", why);
  return r;
}

// Statuses and the list of what is missing, once the loop is over.
void finish(RunResult& run, const RunRequest& req, const RunControl& ctl) {
  if (run.status == RunStatus::complete && !ctl.skipped().empty()) {
    run.status = RunStatus::partial;
    run.stop = StopReason::time_limit;
    run.stop_reason = fmt::format("time limit: {} cell(s) would not have ended in time", ctl.skipped().size());
  }
  run.not_run.clear();
  for (std::size_t i = 0; i < run.cases.size() && i < req.cases.size(); ++i) {
    CaseResult& c = run.cases[i];
    if (c.status == CaseStatus::waived) continue;
    if (waive_reason(*req.cases[i], run.system)) {
      if (c.status == CaseStatus::not_run) run.not_run.push_back(c.name);
      continue;
    }
    auto missing = missing_cells(*req.cases[i], run.system, req.buffer_bytes, c);
    // A resumed case may now be complete, or a case may still lack cells.
    if (missing.empty() && c.status == CaseStatus::not_run) {
      c.status = CaseStatus::passed;
      c.message.clear();
    }
    if (!missing.empty() && c.status == CaseStatus::passed) {
      c.status = CaseStatus::not_run;
      c.message = fmt::format("{} of its cells not run", missing.size());
    }
    for (auto& key : missing) run.not_run.push_back(std::move(key));
  }
}

}  // namespace

RunResult run_cases(SampleSource& src, const RunRequest& req, const CaseCallback& on_case, const RunControls& controls) {
  const auto t0 = std::chrono::steady_clock::now();
  RunResult run;
  run.command_line = req.command_line;
  run.start_time_utc = utc_now_iso8601();
  run.settings.buffer_bytes = req.buffer_bytes;
  run.settings.statistic = req.use_mean ? "mean" : "median";
  run.settings.measure = req.measure;
  run.system = src.system();
  if (controls.budget != nullptr) run.time_limit_s = controls.budget->limit_s();
  src.check_fits(req.buffer_bytes);
  RunControl ctl(controls.budget, controls.faults);
  if (controls.resume != nullptr) {
    ctl.set_done_before([&](const std::string& key) { return has_cell(*controls.resume, key); });
    run.resumed_from = controls.resume->resumed_from;
  }
  const std::size_t total = req.cases.size();
  try {
    for (std::size_t i = 0; i < total; ++i) {
      run.cases.emplace_back();
      run_case_into(*req.cases[i], src, req.buffer_bytes, req.use_mean, run.cases.back(), &ctl);
      for (auto& m : run.cases.back().matrices) flag_outliers(m);
      if (on_case) on_case(run.cases.back(), i + 1, total);
    }
  } catch (const Stopped& stop) {
    run.status = stop.reason() == StopReason::time_limit ? RunStatus::partial : RunStatus::interrupted;
    run.stop = stop.reason();
    run.stop_reason = stop.what();
    CaseResult& current = run.cases.back();
    for (auto& m : current.matrices) flag_outliers(m);
    if (current.status == CaseStatus::passed) {
      current.status = CaseStatus::not_run;
      current.message = fmt::format("not finished: {}", stop.what());
    }
    if (on_case) on_case(current, run.cases.size(), total);
    for (std::size_t i = run.cases.size(); i < total; ++i) {
      run.cases.push_back(not_started(*req.cases[i], stop.what()));
      if (on_case) on_case(run.cases.back(), i + 1, total);
    }
  }
  if (controls.resume != nullptr) merge_resumed(run, *controls.resume);
  finish(run, req, ctl);
  run.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return run;
}

int run_exit_code(const RunResult& r) {
  if (r.stop == StopReason::sigint || r.stop == StopReason::sigterm || r.stop == StopReason::gpu_unusable)
    return stop_exit_code(r.stop);
  if (!all_passed(r)) return 1;
  if (r.status != RunStatus::complete) return stop_exit_code(StopReason::time_limit);
  return 0;
}

}  // namespace xb
