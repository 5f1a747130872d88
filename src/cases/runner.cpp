#include "cases/runner.hpp"

#include <ctime>
#include <map>

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "machine/cuda_check.hpp"
#include "base/error.hpp"
#include "base/time_budget.hpp"
#include "cases/case_plan.hpp"
#include "cases/case_run.hpp"
#include "cases/cell_results.hpp"
#include "measure/measure.hpp"
#include "memory/memory_plan.hpp"
#include "cases/resume.hpp"
#include "base/run_control.hpp"
#include "measure/sample_source.hpp"
#include "base/stats.hpp"
#include "base/stop.hpp"
#include "base/units.hpp"

namespace xb {
namespace {

MemoryAmount budget_of(const MemoryLimit& limit, const System& sys) {
  MemoryAmount b;
  b.gpu.assign(static_cast<std::size_t>(sys.gpu_count()), limit.gpu);
  b.host = b.host_locked = limit.host;
  return b;
}

}  // namespace

std::string utc_now_iso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string impossible_reason(double gbps, const Peak& peak) {
  if (!peak.known() || gbps <= peak.gbps) return "";
  return fmt::format("{:.2f} GB/s is {:.1f}% of the theoretical peak {:.2f} GB/s ({}): more than the link can carry, "
                     "so this is not a measurement of that link",
                     gbps, 100 * gbps / peak.gbps, peak.gbps, peak.formula);
}

void mark_impossible_cells(CaseResult& c) {
  for (auto& m : c.matrices) {
    if (m.metric != Metric::bandwidth_gbps) continue;
    for (auto& cell : m.cells) {
      cell.invalid_reason = impossible_reason(cell.value, cell.peak);
      cell.invalid = !cell.invalid_reason.empty();
      if (!cell.invalid || c.status == CaseStatus::failed || c.status == CaseStatus::error) continue;
      c.status = CaseStatus::failed;
      c.message = fmt::format("invalid cell [{},{}] {}: {}", m.row_labels.at(cell.row), m.col_labels.at(cell.col),
                              cell.link, cell.invalid_reason);
    }
  }
}

void flag_outliers(Matrix& m) {
  std::map<std::string, std::vector<double>> groups;
  // Invalid and unmeasured (error) cells are no reference for the others.
  for (const auto& c : m.cells)
    if (!c.invalid && c.error.empty()) groups[c.link].push_back(c.value);
  for (auto& c : m.cells) {
    if (c.invalid || !c.error.empty()) continue;
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

RunResult run_cases(const System& sys, const RunRequest& req, const CaseCallback& on_case) {
  Measurer measurer(sys, req.measure);
  GpuSource src(measurer);
  return run_cases(src, req, on_case, RunControls{});
}

namespace {

RunResult start_run(const SampleSource& src, const RunRequest& req, const RunControls& controls) {
  RunResult run;
  run.command_line = req.command_line;
  run.start_time_utc = utc_now_iso8601();
  run.settings.buffer_bytes = req.buffer_bytes;
  run.settings.statistic = to_string(req.measure.statistic);
  run.settings.measure = req.measure;
  run.system = src.system();
  run.settings.pairs = select_pairs(req.given_pairs, req.sample_pairs, req.pair_seed, run.system);
  if (controls.budget != nullptr) run.completion.time_limit_s = controls.budget->limit_s();
  if (controls.resume != nullptr) run.resumed_from = controls.resume->resumed_from;
  return run;
}

// The pool's budget: --max-memory, else the largest need of any one cell.
void plan_memory(RunResult& run, const RunRequest& req, const std::vector<PlannedCase>& plans) {
  run.memory.planned = run_memory_need(plans, run.system);
  run.memory.budget_fixed = req.max_memory.has_value();
  run.memory.budget = req.max_memory ? budget_of(*req.max_memory, run.system) : run.memory.planned;
}

// The drift check (stability.hpp): reference cells measured just before
// the first cell the run measures and after the last. A run that measures
// nothing (a resume of a complete result) has no drift to check. A stop
// request during either measurement passes through as Stopped; the run
// then reports the check as not completed.
class DriftCheck {
 public:
  DriftCheck(SampleSource& src, const RunRequest& req, TimeBudget* budget)
      : on_(req.stability_check && !req.cases.empty()),
        budget_(budget),
        plans_(on_ ? reference_plans(src.system(), req.buffer_bytes) : ReferencePlans{}),
        check_(reference_cells(src.system()),
               [this, &src](const ReferenceCell& ref) {
                 const auto& [def, plan] = plans_.at(ref.case_name);
                 return measure_one_cell(*def, plan, src, ref.row, ref.col);
               },
               req.stability_tolerance_pct) {}
  DriftCheck(const DriftCheck&) = delete;
  DriftCheck& operator=(const DriftCheck&) = delete;

  // Called as every cell begins; measures the start values the first time.
  void start_once(RunResult& run, const RunRequest& req) {
    if (!on_ || started_) return;
    started_ = true;
    const auto t0 = std::chrono::steady_clock::now();
    try {
      check_.start();
    } catch (const Error& e) {
      run.stability.error = e.what();
    }
    start_s_ = seconds_since(t0);
    start_done_ = true;
    if (req.on_stability_start) req.on_stability_start(run.stability.error.empty() ? check_.peek() : run.stability);
  }

  void finish(RunResult& run) {
    if (!on_ || !started_ || !run.stability.error.empty()) return;
    // Under --time-limit the references are measured again only when that
    // (as long as their first measurement) ends in time.
    if (budget_ != nullptr && budget_->limited()) {
      budget_->record(CellCost{"drift check", 0, start_s_});
      if (!budget_->fits(CellCost{"drift check", 0, 0})) {
        run.stability = check_.peek();
        run.stability.error = "the time limit left no time to measure the reference cells again";
        return;
      }
    }
    try {
      run.stability = check_.finish();
    } catch (const Error& e) {
      run.stability.error = e.what();
    }
  }

  // The run stopped before the end values were measured: the start values
  // (when they were measured in full) are kept, the verdict is not given.
  void not_completed(RunResult& run, const std::string& why) {
    if (!on_ || !run.stability.error.empty()) return;
    run.stability = start_done_ ? check_.peek() : Stability{};
    run.stability.tolerance_pct = check_.peek().tolerance_pct;
    run.stability.error = fmt::format("the run stopped before the reference cells were measured again: {}", why);
  }

 private:
  bool on_;
  bool started_ = false;     // the start values were asked for
  bool start_done_ = false;  // ... and measured (not abandoned by a stop)
  double start_s_ = 0;
  TimeBudget* budget_;
  ReferencePlans plans_;
  StabilityCheck check_;
};

CaseResult not_started(const CaseDef& def, const std::string& why) {
  CaseResult r;
  r.index = def.index;
  r.name = def.name;
  r.description = def.description;
  r.status = CaseStatus::not_run;
  r.message = fmt::format("not run: {}", why);
  return r;
}

// Outlier and above-peak marks, also for a case a stop left unfinished.
void judge_cells(CaseResult& c) {
  mark_impossible_cells(c);
  for (auto& m : c.matrices) flag_outliers(m);
}

// A stop request ended the loop: the case in flight (if any) keeps what it
// measured as not_run, the cases not started are listed.
void record_stop(RunResult& run, const RunRequest& req, const Stopped& stop, bool in_case, const CaseCallback& on_case) {
  xb::record_stop(run.completion, stop);
  const std::size_t total = req.cases.size();
  if (in_case) {
    CaseResult& current = run.cases.back();
    judge_cells(current);
    if (current.status == CaseStatus::passed) {
      current.status = CaseStatus::not_run;
      current.message = fmt::format("not finished: {}", stop.what());
    }
    if (on_case) on_case(current, run.cases.size(), total);
  }
  for (std::size_t i = run.cases.size(); i < total; ++i) {
    run.cases.push_back(not_started(*req.cases[i], stop.what()));
    if (on_case) on_case(run.cases.back(), i + 1, total);
  }
}

// Lists the missing cells of case `i` in the run's not_run (waived cells
// too) and settles its status; returns how many cells it waived for memory.
std::size_t settle_case(RunResult& run, const PlannedCase& pc, std::size_t i) {
  CaseResult& c = run.cases[i];
  std::vector<std::string>& not_run = run.completion.not_run;
  for (const WaivedCell& w : c.waived_cells) not_run.push_back(fmt::format("{}[{},{}]", c.name, w.row, w.col));
  if (c.status == CaseStatus::waived) return c.waived_cells.size();
  if (pc.waived) {
    if (c.status == CaseStatus::not_run) not_run.push_back(c.name);
    return 0;
  }
  auto missing = missing_cells(pc, c);
  // A resumed case may now be complete, or a case may still lack cells.
  if (missing.empty() && c.status == CaseStatus::not_run) {
    c.status = CaseStatus::passed;
    c.message.clear();
  }
  if (!missing.empty() && c.status == CaseStatus::passed) {
    c.status = CaseStatus::not_run;
    c.message = fmt::format("{} of its cells not run", missing.size());
  }
  for (auto& key : missing) not_run.push_back(std::move(key));
  return c.waived_cells.size();
}

// Statuses and the list of what is missing, once the loop is over. Both
// kinds of partial (time limit, waived cells) are the one status partial.
void finish(RunResult& run, const std::vector<PlannedCase>& plans, const RunControl& ctl) {
  Completion& done = run.completion;
  done.not_run.clear();
  std::size_t waived = 0;
  for (std::size_t i = 0; i < run.cases.size() && i < plans.size(); ++i) waived += settle_case(run, plans[i], i);
  if (done.status != RunStatus::complete) return;
  if (!ctl.skipped().empty()) {
    done.status = RunStatus::partial;
    done.stop = StopReason::time_limit;
    done.message = fmt::format("time limit: {} cell(s) would not have ended in time", ctl.skipped().size());
  } else if (waived > 0) {
    done.status = RunStatus::partial;
    done.stop = StopReason::memory;
    done.message = fmt::format("{} cell(s) waived: their buffers did not fit in memory or --max-memory", waived);
  }
}

}  // namespace

RunResult run_cases(SampleSource& src, const RunRequest& req, const CaseCallback& on_case, const RunControls& controls) {
  const auto t0 = std::chrono::steady_clock::now();
  RunResult run = start_run(src, req, controls);
  // Each case planned once, after the pair selection, for the memory plan,
  // the loop and the count of what is missing.
  const std::vector<PlannedCase> plans = plan_run_cases(req.cases, run.system, req.buffer_bytes, &run.settings.pairs);
  plan_memory(run, req, plans);
  src.check_fits(req.buffer_bytes);
  src.start_memory_accounting(run.memory.budget, run.memory.budget_fixed);
  RunControl ctl(controls.budget, controls.faults);
  if (controls.resume != nullptr)
    ctl.set_done_before([&](const std::string& key) { return has_cell(*controls.resume, key); });
  DriftCheck drift(src, req, controls.budget);
  const CellHook on_cell = [&](const CaseDef& def, int row, int col, bool begin, const std::vector<Matrix>* measured) {
    if (begin) drift.start_once(run, req);  // before the caller's hook: its window holds the cell alone
    if (req.on_cell) req.on_cell(def, row, col, begin, measured);
  };
  const std::size_t total = req.cases.size();
  bool in_case = false;
  try {
    for (std::size_t i = 0; i < total; ++i) {
      run.cases.emplace_back();
      in_case = true;
      run_case_into(plans[i], src, run.cases.back(), &ctl, on_cell);
      judge_cells(run.cases.back());
      in_case = false;
      if (on_case) on_case(run.cases.back(), i + 1, total);
    }
    drift.finish(run);
  } catch (const Stopped& stop) {
    record_stop(run, req, stop, in_case, on_case);
    drift.not_completed(run, stop.what());
  }
  if (controls.resume != nullptr) merge_resumed(run, *controls.resume);
  finish(run, plans, ctl);
  src.memory_cost(run.memory);
  run.wall_seconds = seconds_since(t0);
  return run;
}

}  // namespace xb
