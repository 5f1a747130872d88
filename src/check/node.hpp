// One node's acceptance check: lint the environment, run the check suite
// with telemetry around every cell, re-measure throttled cases once, judge
// every cell and decide PASS / FAIL. The result is a self-contained record
// (report::check_json turns it into the run JSON with a "check" section,
// which is also what a node sends under a launcher: fleet::Session).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "check/judge.hpp"
#include "check/lint.hpp"
#include "check/spec.hpp"
#include "check/telemetry.hpp"
#include "cases/runner.hpp"
#include "measure/sample_source.hpp"
#include "base/stop.hpp"
#include "soak/soak_analysis.hpp"

namespace xb::check {

// The check suite: the quick suite, the bidirectional host and GPU cells,
// an all-to-one and a one-to-all case (they load every link of a GPU at
// once) and the GPU-to-GPU and host latency cells.
std::vector<const CaseDef*> check_suite();

// Sampling for check cells: at most `budget_s` per cell (shorter than run's
// 3 s so 2 GPUs finish well under a minute; the median is still reported).
MeasureOptions check_measure_options();

struct CheckOptions {
  std::string spec_file;        // --spec
  std::string baseline_file;    // --baseline, as messages and reports name it
  std::optional<RunResult> baseline;  // the run recorded in it, decoded by the command
  bool force = false;           // compare against another model's spec or baseline
  bool strict = false;          // a lint warning fails the check too
  bool remeasure = true;        // re-measure a throttled case once
  CompareOptions compare;       // baseline noise model
  std::uint64_t buffer_bytes = 512ull << 20;
  MeasureOptions measure = check_measure_options();
  SysPaths paths;
  std::vector<std::string> command_line;
  double time_limit_s = 0;      // --time-limit; 0: none
};

struct CheckResult {
  RunResult run;  // the run judged: just measured, or recorded (--judge)
  LintReport lint;
  std::vector<CellWindow> telemetry;
  std::vector<std::string> remeasured_cases;
  std::vector<CheckCell> cells;
  std::vector<CaseProblem> problems;
  std::vector<LinkVerdict> links;
  std::string spec_file, baseline_file;
  // check --soak: what the soak found (its findings fail the check) and
  // the file it wrote; the cells judged carry the soak's medians.
  std::optional<soak::SoakSummary> soak;
  soak::Header soak_header;
  std::string soak_file;
  bool strict = false;
  bool pass = false;
  double wall_seconds = 0;  // the whole check: lint, measurement, re-measurement
  const std::string& hostname() const { return run.system.hostname; }
};

// Why a judged result passes or not: lint errors (warnings with strict),
// failed cells, cases that errored or failed verification, or nothing
// judged at all. Empty: pass.
struct FailReasons {
  std::vector<std::size_t> findings;   // indices into lint.findings
  std::vector<std::size_t> cells;      // indices into cells
  std::vector<std::size_t> problems;   // indices into problems
  bool nothing_judged = false;
  bool incomplete = false;             // stopped before every cell was measured
  bool soak_findings = false;          // check --soak: the soak found something (CheckResult::soak)
  bool empty() const {
    return findings.empty() && cells.empty() && problems.empty() && !nothing_judged && !incomplete && !soak_findings;
  }
};
FailReasons fail_reasons(const CheckResult& r);

// The check did not measure everything (docs/interrupts.md): a signal, an
// unusable GPU or the time limit stopped its run (cells waived for memory
// alone are judged as waived); never a PASS.
bool stopped(const CheckResult& r);

// The exit-code rule (records/completion.hpp) for a check: passed (PASS),
// failed (FAIL: a fail reason other than the stop), interrupted, or
// partial (the time limit alone kept it from passing; memory waivers are
// not partial for a check).
Ending check_verdict(const CheckResult& r);

// Judges r.run (live or recorded): cells, link verdicts, problems and
// pass. `lint` and `telemetry` are taken as they are. `source` names the
// run in messages about a malformed cell.
void judge_result(CheckResult& r, const JudgeOptions& opts, const std::string& source = "this run");

// Judges a recorded run (`xferbench check --judge RUN.json`, decoded by the
// command; `source` names the file): no lint, no telemetry (both reported as
// not done), the same verdicts as a live check.
CheckResult judge_recorded(const CheckOptions& opts, RunResult run, const std::string& source);

// Progress: `phase` names what starts ("lint", "measuring", "re-measuring
// 2 throttled cases"); `on_case` follows run_cases.
struct CheckCallbacks {
  std::function<void(const std::string&)> phase;
  CaseCallback on_case;
  // Measures instead of a GpuSource on the GPUs found (tests pass a fake).
  std::function<std::unique_ptr<SampleSource>(const MeasureOptions&)> open_source;
  // NVML in place of the driver's (tests pass a fake); empty: Nvml::load().
  std::function<std::shared_ptr<NvmlQueries>()> open_nvml;
  // Measures in place of the check suite's one run (check --soak: a soak,
  // its medians put into the run it returns, its summary into `r.soak`);
  // no re-measurement then.
  std::function<RunResult(SampleSource&, const NvmlQueries*, const RunRequest&, CheckResult& r)> measure;
};

// Reads the spec first (usage errors before any GPU work), then discovers
// the node, lints it and measures. Throws Error for setup
// failures (no GPU, unreadable files, a refused spec or baseline).
CheckResult check_node(const CheckOptions& opts, const CheckCallbacks& cb = {});

}  // namespace xb::check
