// What a runner loop consults around each cell, so every command handles
// stops, time limits, failing cells, faults and resumes the same way:
//
//   for each cell:
//     switch (ctl.before_cell(key, cost))  // throws Stopped on a stop request
//       done_before: continue             // --resume: the earlier result has it
//       over_time:   continue             // --time-limit: listed in skipped()
//       run: fault = ctl.fault({names}); inject_fault(fault, key); measure;
//            a thrown Error becomes the cell's error; ctl.after_cell(cost)
//
// A command adopting it also installs the signal handlers
// (app/interrupt.hpp), catches Stopped, and reports the cells it kept with
// the run status and exit code of stop_exit_code() (docs/interrupts.md).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "base/fault.hpp"
#include "base/time_budget.hpp"

namespace xb {

class RunControl {
 public:
  enum class Decision { run, done_before, over_time };

  // All parts optional: no time limit, no faults, nothing measured before.
  RunControl() = default;
  RunControl(TimeBudget* budget, FaultPlan* faults) : budget_(budget), faults_(faults) {}
  // --resume: cells for which this returns true are not measured again.
  void set_done_before(std::function<bool(const std::string& key)> done) { done_before_ = std::move(done); }

  // Throws Stopped when a stop was requested; otherwise decide().
  Decision before_cell(const std::string& key, const CellCost& next);
  // Whether to measure, without looking at the stop state (multi-rank
  // loops agree on stops themselves).
  Decision decide(const std::string& key, const CellCost& next);
  // The fault to inject into the cell about to be measured (counts it).
  FaultKind fault(const std::vector<std::string>& names);
  void after_cell(const CellCost& done);

  // Cells left out because they would not end before the time limit.
  const std::vector<std::string>& skipped() const noexcept { return skipped_; }

 private:
  TimeBudget* budget_ = nullptr;
  FaultPlan* faults_ = nullptr;
  std::function<bool(const std::string&)> done_before_;
  std::size_t attempted_ = 0;
  std::vector<std::string> skipped_;
};

}  // namespace xb
