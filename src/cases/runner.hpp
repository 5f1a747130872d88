// Runs a list of named cases against one Measurer and collects a RunResult.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cases/cases.hpp"
#include "machine/pairs.hpp"
#include "records/result.hpp"
#include "records/stability.hpp"

namespace xb {

struct RunRequest {
  std::vector<const CaseDef*> cases;
  std::uint64_t buffer_bytes = 512ull << 20;
  MeasureOptions measure;
  std::vector<std::string> command_line;
  // Reference cells measured at the start and at the end of the run
  // (stability.hpp); off for runs too short for drift to matter.
  bool stability_check = true;
  double stability_tolerance_pct = 2.0;
  // Called once the start values of the reference cells are known.
  std::function<void(const Stability&)> on_stability_start;
  CellHook on_cell;  // optional: called around every cell (telemetry)
  // --max-memory; without it the pool's budget is the largest need of any
  // one cell of the run (memory_plan.hpp, docs/memory.md).
  std::optional<MemoryLimit> max_memory;
  // GPU pairs of the pairwise cases (--pair, --sample-pairs, --seed),
  // checked against the machine by select_pairs when the run starts.
  std::vector<GpuPair> given_pairs;
  int sample_pairs = 0;  // 0: every pair
  std::uint64_t pair_seed = 1;
};

// Called after each case, e.g. for progress on stderr.
using CaseCallback = std::function<void(const CaseResult&, std::size_t done, std::size_t total)>;

// Throws Error(usage) for pairs that do not exist here and Error(resources)
// when the buffer cannot fit in a GPU's free memory, both before measuring
// anything; errors inside a case become that case's data; cells whose
// buffers do not fit are waived (status partial). The drift check, when on,
// measures the reference cells before the first case and after the last.
RunResult run_cases(const System& sys, const RunRequest& req, const CaseCallback& on_case = {});

class FaultPlan;
class SampleSource;
class TimeBudget;

// The optional controls of a run (see base/run_control.hpp).
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

// Marks cells far below the others on the same kind of link in the same
// matrix (bandwidth < 80% of the group's median; latency > 125%).
void flag_outliers(Matrix& m);

// Why a bandwidth of `gbps` cannot have crossed a link whose theoretical
// peak is `peak` (empty when it can, or when the peak is unknown).
std::string impossible_reason(double gbps, const Peak& peak);

// Marks every bandwidth cell above its link's theoretical peak invalid and
// fails the case naming the first such cell. Run before flag_outliers.
void mark_impossible_cells(CaseResult& c);

std::string utc_now_iso8601();

}  // namespace xb
