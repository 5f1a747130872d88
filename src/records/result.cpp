#include "records/result.hpp"

#include "base/error.hpp"

namespace xb {

const char* to_string(Metric m) noexcept {
  return m == Metric::latency_ns ? "latency_ns" : "bandwidth_gbps";
}

const char* to_string(CaseStatus s) noexcept {
  switch (s) {
    case CaseStatus::passed: return "passed";
    case CaseStatus::failed: return "failed";
    case CaseStatus::waived: return "waived";
    case CaseStatus::error: return "error";
    case CaseStatus::not_run: return "not_run";
  }
  return "error";
}

const char* to_string(RunStatus s) noexcept {
  switch (s) {
    case RunStatus::complete: return "complete";
    case RunStatus::interrupted: return "interrupted";
    case RunStatus::partial: return "partial";
  }
  return "complete";
}

bool all_passed(const RunResult& r) {
  for (const auto& c : r.cases)
    if (c.status == CaseStatus::failed || c.status == CaseStatus::error) return false;
  return true;
}

bool memory_partial(const RunResult& r) {
  for (const auto& c : r.cases)
    if (!c.waived_cells.empty()) return true;
  return false;
}

bool run_partial(const RunResult& r) { return r.status == RunStatus::partial || memory_partial(r); }

const char* run_verdict(const RunResult& r) {
  if (r.status == RunStatus::interrupted) return "interrupted";
  if (!all_passed(r)) return "failed";
  return run_partial(r) ? "partial" : "passed";
}

int run_exit_code(const RunResult& r) {
  if (is_interruption(r.stop))
    return stop_exit_code(r.stop);
  if (!all_passed(r)) return 1;
  return run_partial(r) ? kExitPartial : 0;
}

}  // namespace xb
