// Runs a list of named cases against one Measurer and collects a RunResult.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/cases.hpp"
#include "core/result.hpp"

namespace xb {

struct RunRequest {
  std::vector<const CaseDef*> cases;
  std::uint64_t buffer_bytes = 512ull << 20;
  bool use_mean = false;
  MeasureOptions measure;
  std::vector<std::string> command_line;
};

// Called after each case, e.g. for progress on stderr.
using CaseCallback = std::function<void(const CaseResult&, std::size_t done, std::size_t total)>;

// Throws Error(resources) before measuring anything when the buffer cannot
// fit in a GPU's free memory; errors inside a case become that case's data.
RunResult run_cases(const System& sys, const RunRequest& req, const CaseCallback& on_case = {});

class FaultPlan;
class SampleSource;
class TimeBudget;

// The optional controls of a run (see core/run_control.hpp).
struct RunControls {
  TimeBudget* budget = nullptr;        // --time-limit
  FaultPlan* faults = nullptr;         // XFERBENCH_FAULT
  const RunResult* resume = nullptr;   // --resume: cells it holds are kept, not measured again
};

// The same through any source. A stop request (signal, time limit, an
// unusable GPU) ends the loop: the result then holds every cell measured,
// the unfinished cases with status not_run, status interrupted or partial,
// and `not_run` lists what is missing; on_case is called for every case,
// also the unfinished ones.
RunResult run_cases(SampleSource& src, const RunRequest& req, const CaseCallback& on_case, const RunControls& controls);

// The process exit code for a run: 130 / 143 (interrupted by SIGINT /
// SIGTERM), 8 (GPU unusable), 1 (a case failed or errored), 10 (partial:
// cells left out by the time limit), 0.
int run_exit_code(const RunResult& r);

// Marks cells far below the others on the same kind of link in the same
// matrix (bandwidth < 80% of the group's median; latency > 125%).
void flag_outliers(Matrix& m);

// True when every case passed or was waived.
bool all_passed(const RunResult& r);

std::string utc_now_iso8601();

}  // namespace xb
