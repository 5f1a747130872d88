// Turns a case definition into matrix cells: for each cell the transfers
// that run together and how the reported value is reduced from them. A run
// plans each case once, after the pair selection (PlannedCase), and hands
// that plan to the runner, the memory plan, the dry-run estimate and the
// count of missing cells. Pure: no CUDA.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cases/cases.hpp"
#include "memory/memory_plan.hpp"
#include "records/result.hpp"
#include "measure/measure.hpp"

namespace xb {

// How one reported value is computed from a scenario's samples.
struct Output {
  enum class Kind {
    transfer,  // bandwidth of transfer `first` (others only interfere)
    sum,       // sum of the bandwidths of transfers [first, first + count)
    total,     // all bytes of the scenario / time from gate release to the last end
  };
  int matrix = 0;
  Kind kind = Kind::transfer;
  int first = 0, count = 1;
  double scale = 1.0;  // 0.5 for split-warp copies: reported per direction
  std::string link;
  Peak peak;
};

struct CellPlan {
  int row = 0, col = 0;
  Scenario scenario;
  std::vector<Output> outputs;  // the first one drives adaptive sampling
  // Where nvbandwidth measures the cell another way (its timing, or
  // interfering copies of another length): the scenario as nvbandwidth
  // runs it, measured as well (NvbandwidthWay), and what differs.
  std::optional<Scenario> nvbandwidth;
  std::string nvbandwidth_why;
};

struct CasePlan {
  std::vector<Matrix> matrices;  // titles and labels; the runner fills a copy with cells
  std::vector<CellPlan> cells;
  bool latency = false;
  // Latency cells measured idle and under load: their scenario's first
  // transfer is the chase, the others the load; three matrices (loaded
  // latency, idle latency, the load's GB/s), outputs in that order.
  LatencyLoad load = LatencyLoad::none;
  bool migration = false;  // managed-memory migration: three matrices per GPU
};

CasePlan plan_case(const CaseDef& def, const System& sys, std::uint64_t bytes);

// Drops the cells a run does not measure: in pairwise cases the pairs
// `pairs` does not select (when given), and in TMA cases the cells whose
// executing GPU has no Tensor Memory Accelerator. Returns how many went.
std::size_t restrict_plan(const CaseDef& def, const System& sys, const PairSelection* pairs, CasePlan& plan);

// The planned cell at (row, col), or null.
const CellPlan* find_cell(const CasePlan& plan, int row, int col);

// The buffers of one planned cell (a latency cell needs one ring).
std::vector<BufferRequest> cell_requests(const CasePlan& plan, const CellPlan& cell,
                                         const LocationResolver& resolve = {});

// Per GPU and host: the most any one cell of the plan needs at once.
MemoryAmount plan_memory_need(const CasePlan& plan, const System& sys);

// The cases of the drift check's reference cells (stability.hpp), by name,
// each planned once.
using ReferencePlans = std::map<std::string, std::pair<const CaseDef*, CasePlan>>;
ReferencePlans reference_plans(const System& sys, std::uint64_t bytes);

// One case as a run measures it, planned once.
struct PlannedCase {
  const CaseDef* def = nullptr;
  std::optional<std::string> waived;  // waive_reason on this machine: nothing planned
  CasePlan plan;                       // the cells the run measures (restrict_plan applied)
  // plan_memory_need of every cell planned before the selection: the
  // pool's default budget counts them all.
  MemoryAmount need;
};

// Why a case with no planned cell left is waived.
inline constexpr const char* kNoCellLeft =
    "no cell left to measure (--pair / --sample-pairs select none of its GPU pairs)";

// Plans `def` at `bytes` per buffer on `sys` and restricts it to `pairs`
// (null: every pair).
PlannedCase plan_run_case(const CaseDef& def, const System& sys, std::uint64_t bytes, const PairSelection* pairs);
std::vector<PlannedCase> plan_run_cases(const std::vector<const CaseDef*>& cases, const System& sys,
                                        std::uint64_t bytes, const PairSelection* pairs);

// Per GPU and host: the most any one cell of these cases needs (waived
// cases skipped). Pure (no CUDA), for --dry-run and for the pool's default
// budget.
MemoryAmount run_memory_need(const std::vector<PlannedCase>& cases, const System& sys);

}  // namespace xb
