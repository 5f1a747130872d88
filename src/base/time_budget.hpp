// --time-limit: a run plans its cells against a wall-clock limit. Before a
// cell starts, its cost is estimated from the cells measured so far (a
// small replaceable function: a per-cell time model can take its place);
// a cell that would end after the limit is skipped and listed. A hard
// deadline a little before the limit (the margin keeps time to free memory
// and write the results) abandons the cell in flight, through the stop
// state (base/stop.hpp), so the run always ends in time.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace xb {

// "90s", "5m", "1h", "1.5h" or a bare number of seconds -> seconds (> 0,
// at most kMaxDurationS). Throws Error(usage) naming `what` and the text.
inline constexpr double kMaxDurationS = 366.0 * 24 * 3600;
double parse_duration_s(const std::string& text, const std::string& what = "--time-limit");

struct CellCost {
  std::string group;   // cells of one group cost alike: a case, a sweep series, a pingpong pair
  double bytes = 0;    // bytes per copy; 0 where a size does not apply
  double seconds = 0;  // measured wall time (ignored for the cell being estimated)
};

// Expected wall seconds of `next`, from the cells measured so far; 0 = no idea.
using CellCostModel = std::function<double(const std::vector<CellCost>& done, const CellCost& next)>;

// The default model: the last measured cell of the same group, plus the
// growth per byte seen between its last two sizes times the bytes `next`
// adds (never less than the last cost: fixed per-cell costs such as warm-up
// and sampling dominate small sizes); with no cell of the group yet, the
// mean of every cell measured; nothing measured: 0 (the cell runs, and the
// hard deadline still ends it in time).
double measured_cost_model(const std::vector<CellCost>& done, const CellCost& next);

// When this process started (static initialization, before main): a fleet
// node's --time-limit counts from here, MPI start-up and the election
// included.
std::chrono::steady_clock::time_point process_start() noexcept;

// Seconds on the steady clock since `t0`.
inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

class TimeBudget {
 public:
  using Clock = std::chrono::steady_clock;
  // limit_s <= 0: no limit. The clock starts at `start` (now by default).
  explicit TimeBudget(double limit_s = 0, CellCostModel model = measured_cost_model, Clock::time_point start = Clock::now());

  bool limited() const noexcept { return limit_s_ > 0; }
  double limit_s() const noexcept { return limit_s_; }
  // Kept free at the end: min(2 s, 10% of the limit).
  double margin_s() const noexcept;
  // Sets the stop state's deadline to limit - margin (no-op without a limit).
  void arm() const;
  // True without a limit, or when `next` is expected to end before the deadline.
  bool fits(const CellCost& next) const;
  void record(const CellCost& done) { done_.push_back(done); }
  double elapsed_s() const;

 private:
  double limit_s_;
  CellCostModel model_;
  Clock::time_point start_;
  std::vector<CellCost> done_;
};

}  // namespace xb
