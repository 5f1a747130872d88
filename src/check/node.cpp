#include "check/node.hpp"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/fault.hpp"
#include "machine/nvml.hpp"
#include "base/time_budget.hpp"

namespace xb::check {
namespace {

void check_spec_model(const CheckSpec& spec, const System& machine, bool force) {
  if (spec.model.empty() || force) return;
  for (const GpuInfo& g : machine.gpus)
    if (g.name.find(spec.model) == std::string::npos)
      fail(ErrorKind::usage, fmt::format("spec {} is for '{}' GPUs but gpu{} is a {}: refusing to judge it with this "
                                         "spec (--force judges anyway)", spec.file, spec.model, g.index, g.name));
}

// Marks each cell with the telemetry of the window it was measured in.
void apply_telemetry(std::vector<CheckCell>& cells, const std::vector<CellWindow>& windows,
                     const std::vector<std::string>& remeasured) {
  for (CheckCell& c : cells) {
    c.remeasured = std::find(remeasured.begin(), remeasured.end(), c.case_name) != remeasured.end();
    for (const CellWindow& w : windows) {
      if (w.case_name != c.case_name || w.row != c.row_index || w.col != c.col_index || !w.throttled) continue;
      c.throttled = true;
      std::vector<std::string> why;
      if (w.reasons) why.push_back(clock_reason_names(w.reasons));
      if (w.power_throttle_ns) why.push_back("power throttle counter grew");
      if (w.thermal_throttle_ns) why.push_back("thermal throttle counter grew");
      c.throttle_reasons.clear();
      for (const auto& s : why) c.throttle_reasons += (c.throttle_reasons.empty() ? "" : "; ") + s;
    }
  }
}

std::vector<std::string> throttled_cases(const std::vector<CellWindow>& windows) {
  std::vector<std::string> out;
  for (const auto& w : windows)
    if (w.throttled && std::find(out.begin(), out.end(), w.case_name) == out.end()) out.push_back(w.case_name);
  return out;
}

// Re-measures the throttled cases once and puts their new results (and
// telemetry) in place of the old ones. A stop during it keeps the first
// measurement of every case it did not finish, and records the stop.
void remeasure(CheckResult& r, RunResult& run, SampleSource& src, const RunRequest& base, const NvmlQueries* nvml,
               const CheckCallbacks& cb, const RunControls& controls) {
  r.remeasured_cases = throttled_cases(r.telemetry);
  if (r.remeasured_cases.empty()) return;
  if (cb.phase) cb.phase(fmt::format("re-measuring {} case(s) measured while throttled", r.remeasured_cases.size()));
  TelemetryRecorder again(nvml, src.system());
  RunRequest req = base;
  req.cases = select_cases(r.remeasured_cases, {});
  req.stability_check = false;
  req.on_cell = [&again](const CaseDef& d, int row, int col, bool begin, const std::vector<Matrix>*) {
    again.on_cell(d, row, col, begin);
  };
  const RunResult second = run_cases(src, req, cb.on_case, controls);
  std::vector<std::string> replaced;
  for (const CaseResult& c : second.cases) {
    if (c.status == CaseStatus::not_run) continue;
    for (CaseResult& old : run.cases)
      if (old.name == c.name) old = c;
    replaced.push_back(c.name);
  }
  if (is_interruption(second.completion.stop) || second.completion.stop == StopReason::time_limit) {
    run.completion.stop = second.completion.stop;
    run.completion.message = second.completion.message;
    run.completion.status = second.completion.status;
  }
  r.remeasured_cases = replaced;
  auto& t = r.telemetry;
  t.erase(std::remove_if(t.begin(), t.end(), [&](const CellWindow& w) {
            return std::find(replaced.begin(), replaced.end(), w.case_name) != replaced.end();
          }), t.end());
  for (const CellWindow& w : again.windows())
    if (std::find(replaced.begin(), replaced.end(), w.case_name) != replaced.end()) t.push_back(w);
}

// The check suite's cases, the loaded-latency cases (judged on their load
// and ratio) and those a spec names: a recorded full run holds cases (host
// traffic of every GPU at once) that no built-in peak can judge.
bool judged_case(const std::string& name, const JudgeOptions& opts) {
  for (const CaseDef* d : check_suite())
    if (d->name == name) return true;
  if (const CaseDef* d = find_case(name); d && d->load != LatencyLoad::none) return true;
  if (!opts.spec) return false;
  return std::any_of(opts.spec->expect.begin(), opts.spec->expect.end(),
                     [&](const Expectation& e) { return e.case_name == name; });
}

// Expectations from the options' spec and baseline, checked against the
// machine the run was measured on.
struct Expectations {
  CheckSpec spec;
  Baseline baseline;

  JudgeOptions judge_options(const CheckOptions& opts) const {
    JudgeOptions jo;
    jo.spec = opts.spec_file.empty() ? nullptr : &spec;
    jo.baseline = opts.baseline ? &baseline : nullptr;
    jo.compare = opts.compare;
    return jo;
  }
};

Expectations load_expectations(const CheckOptions& opts, const System& machine) {
  Expectations e;
  if (!opts.spec_file.empty()) {
    e.spec = parse_spec_file(opts.spec_file);
    check_spec_model(e.spec, machine, opts.force);
  }
  if (opts.baseline) e.baseline = load_baseline(*opts.baseline, opts.baseline_file, machine, opts.force);
  return e;
}

}  // namespace

std::vector<const CaseDef*> check_suite() {
  std::vector<const CaseDef*> cases = suite_cases("quick");
  const auto extra = select_cases({"host_to_device_bidirectional_memcpy_ce", "device_to_host_bidirectional_memcpy_ce",
                                   "device_to_device_bidirectional_memcpy_write_ce", "all_to_one_write_ce",
                                   "one_to_all_read_ce", "device_to_device_latency_sm", "host_device_latency_sm"},
                                  {});
  cases.insert(cases.end(), extra.begin(), extra.end());
  return cases;
}

MeasureOptions check_measure_options() {
  MeasureOptions m;
  m.budget_s = 1.0;
  m.max_samples = 20;
  m.nvbandwidth_way = false;  // check judges xferbench's own figures
  return m;
}

FailReasons fail_reasons(const CheckResult& r) {
  FailReasons f;
  for (std::size_t i = 0; i < r.lint.findings.size(); ++i) {
    const Severity s = r.lint.findings[i].severity;
    if (s == Severity::error || (r.strict && s == Severity::warn)) f.findings.push_back(i);
  }
  bool judged_bandwidth = false;
  for (std::size_t i = 0; i < r.cells.size(); ++i) {
    if (r.cells[i].verdict == CellVerdict::fail) f.cells.push_back(i);
    judged_bandwidth = judged_bandwidth || (!r.cells[i].latency && r.cells[i].verdict != CellVerdict::unjudged);
  }
  for (std::size_t i = 0; i < r.problems.size(); ++i)
    if (r.problems[i].status != CaseStatus::waived && r.problems[i].status != CaseStatus::not_run)
      f.problems.push_back(i);
  f.nothing_judged = !judged_bandwidth;
  f.incomplete = stopped(r);
  f.soak_findings = r.soak && r.soak->findings;
  return f;
}

bool stopped(const CheckResult& r) {
  return r.run.completion.status != RunStatus::complete && r.run.completion.stop != StopReason::memory;
}

Ending check_verdict(const CheckResult& r) {
  FailReasons why = fail_reasons(r);
  why.incomplete = false;
  return ending(r.run.completion, !why.empty(), PartialMeans::time_limit_only);
}

CheckResult judge_recorded(const CheckOptions& opts, RunResult run, const std::string& source) {
  CheckResult r;
  r.strict = opts.strict;
  r.wall_seconds = run.wall_seconds;
  r.run = std::move(run);
  const Expectations ex = load_expectations(opts, r.run.system);
  for (const auto& id : lint_rule_ids())
    r.lint.rules.push_back({id, "", RuleStatus::skipped, "judging a recorded run"});
  judge_result(r, ex.judge_options(opts), source);
  return r;
}

void judge_result(CheckResult& r, const JudgeOptions& opts, const std::string& source) {
  // A run (live or recorded) that was interrupted or cut short is judged
  // as such; memory waivers alone are not a stop for a check. The files
  // named are those the expectations came from.
  if (opts.spec) r.spec_file = opts.spec->file;
  if (opts.baseline) r.baseline_file = opts.baseline->file;
  r.cells = extract_cells(r.run, source);
  r.cells.erase(std::remove_if(r.cells.begin(), r.cells.end(),
                               [&](const CheckCell& c) { return !judged_case(c.case_name, opts); }),
                r.cells.end());
  r.problems = case_problems(r.run);
  r.problems.erase(std::remove_if(r.problems.begin(), r.problems.end(),
                                  [&](const CaseProblem& p) { return !judged_case(p.case_name, opts); }),
                   r.problems.end());
  apply_telemetry(r.cells, r.telemetry, r.remeasured_cases);
  judge_cells(r.cells, opts);
  r.links = link_verdicts(r.cells);
  r.pass = fail_reasons(r).empty();
}

CheckResult check_node(const CheckOptions& opts, const CheckCallbacks& cb) {
  const auto t0 = std::chrono::steady_clock::now();
  CheckResult r;
  r.strict = opts.strict;
  // The files are parsed before any GPU work so their errors come first;
  // the model checks need the machine and follow discovery.
  if (!opts.spec_file.empty()) (void)parse_spec_file(opts.spec_file);
  const std::unique_ptr<SampleSource> src = cb.open_source ? cb.open_source(opts.measure) : open_gpu_source(opts.measure);
  const System& sys = src->system();
  const Expectations ex = load_expectations(opts, sys);
  // The clock of --time-limit starts with the node's discovery; a signal
  // from here on stops the loops (the command installs the handlers).
  TimeBudget budget(opts.time_limit_s);
  budget.arm();
  FaultPlan faults = FaultPlan::from_env();
  const RunControls controls{&budget, &faults, nullptr};

  if (cb.phase) cb.phase("lint");
  std::shared_ptr<NvmlQueries> nvml;
  LintInput lin;
  lin.sys = &sys;
  lin.paths = opts.paths;
  lin.settings = ex.spec.lint;
  try {
    nvml = cb.open_nvml ? cb.open_nvml() : Nvml::load();
    lin.nvml = nvml.get();
  } catch (const Error& e) {
    lin.nvml_error = e.what();
  }
  r.lint = run_lint(lin);

  if (cb.phase) cb.phase("measuring");
  TelemetryRecorder rec(lin.nvml, sys);
  RunRequest req;
  req.cases = check_suite();
  req.buffer_bytes = opts.buffer_bytes;
  req.measure = opts.measure;
  req.command_line = opts.command_line;
  req.on_cell = [&rec](const CaseDef& d, int row, int col, bool begin, const std::vector<Matrix>*) {
    rec.on_cell(d, row, col, begin);
  };
  RunResult run = cb.measure ? cb.measure(*src, lin.nvml, req, r) : run_cases(*src, req, cb.on_case, controls);
  r.telemetry = rec.windows();
  const bool cut_short = run.completion.stop != StopReason::none && run.completion.stop != StopReason::memory;
  if (opts.remeasure && !cut_short && !cb.measure) remeasure(r, run, *src, req, lin.nvml, cb, controls);
  r.run = std::move(run);  // judge_result reads the stop (also one during remeasure) from it

  recheck_pcie_under_load(r.lint, sys, pcie_gen_under_load(r.telemetry, sys.gpu_count()));
  judge_result(r, ex.judge_options(opts));
  r.wall_seconds = seconds_since(t0);
  return r;
}

}  // namespace xb::check
