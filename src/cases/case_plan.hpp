// Turns a case definition into matrix cells: for each cell the transfers
// that run together and how the reported value is reduced from them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cases/cases.hpp"
#include "memory/memory_plan.hpp"
#include "records/result.hpp"
#include "measure/measure.hpp"
#include "base/run_control.hpp"
#include "measure/sample_source.hpp"

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
  std::vector<Matrix> matrices;  // titles and labels; cells filled by the runner
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

// Per-sample value of an output, in GB/s.
double output_value(const Output& out, const Scenario& sc, const ScenarioSamples& s, std::size_t sample);

// Measures one cell (row, col of the first matrix) of a bandwidth case on
// its own and returns the median of its first output, in GB/s. Throws
// Error(usage) when the case has no such cell on this machine; a stop
// request throws Stopped.
double measure_one_cell(const CaseDef& def, SampleSource& src, std::uint64_t bytes, int row, int col);

// Runs one case into `r` through a sample source, under a RunControl
// (stops, time limit, faults, resume); errors inside become data (status
// error / failed). A stop request throws Stopped out of it with the cells
// measured so far in `r`. With `pairs`, pairwise cases measure only the
// selected pairs.
void run_case_into(const CaseDef& def, SampleSource& src, std::uint64_t bytes, CaseResult& r,
                   RunControl* ctl = nullptr, const CellHook& on_cell = {}, const PairSelection* pairs = nullptr);

// The buffers of one planned cell (a latency cell needs one ring).
std::vector<BufferRequest> cell_requests(const CasePlan& plan, const CellPlan& cell,
                                         const LocationResolver& resolve = {});

// Per GPU and host: the most any one cell of the case needs at once.
// Pure (no CUDA), for --dry-run and for the pool's default budget.
MemoryAmount case_memory_need(const CaseDef& def, const System& sys, std::uint64_t bytes);
// The most any one cell of these cases needs (cases waived here skipped).
MemoryAmount run_memory_need(const std::vector<const CaseDef*>& cases, const System& sys, std::uint64_t bytes);

// Keys "CASE[ROW,COL]" of the planned cells `r` holds no cell for and did
// not waive for memory.
std::vector<std::string> missing_cells(const CaseDef& def, const System& sys, std::uint64_t bytes, const CaseResult& r,
                                       const PairSelection* pairs = nullptr);

}  // namespace xb
