#include "base/run_control.hpp"

#include "base/stop.hpp"

namespace xb {

RunControl::Decision RunControl::before_cell(const std::string& key, const CellCost& next) {
  throw_if_stopped();
  return decide(key, next);
}

RunControl::Decision RunControl::decide(const std::string& key, const CellCost& next) {
  if (done_before_ && done_before_(key)) return Decision::done_before;
  if (budget_ != nullptr && !budget_->fits(next)) {
    skipped_.push_back(key);
    return Decision::over_time;
  }
  return Decision::run;
}

FaultKind RunControl::fault(const std::vector<std::string>& names) {
  const std::size_t ordinal = attempted_++;
  return faults_ != nullptr ? faults_->match(names, ordinal) : FaultKind::none;
}

void RunControl::after_cell(const CellCost& done) {
  if (budget_ != nullptr) budget_->record(done);
}

}  // namespace xb
