#include "records/result.hpp"

#include "base/names.hpp"

namespace xb {

// Declared with Verification in records/measure_options.hpp.
const char* to_string(Verification::Status s) noexcept {
  using S = Verification::Status;
  static constexpr Named<S> kNames[] = {{S::passed, "passed"}, {S::failed, "failed"}, {S::skipped, "skipped"}};
  return lookup_name(kNames, s, "skipped");
}

const char* to_string(Metric m) noexcept {
  return m == Metric::latency_ns ? "latency_ns" : "bandwidth_gbps";
}

const char* to_string(CaseStatus s) noexcept {
  static const char* const names[] = {"passed", "failed", "waived", "error", "not_run"};
  return names[static_cast<int>(s)];
}

const Cell* find_cell(const Matrix& m, int row, int col) {
  for (const Cell& c : m.cells)
    if (c.row == row && c.col == col) return &c;
  return nullptr;
}

bool all_passed(const RunResult& r) {
  for (const auto& c : r.cases)
    if (c.status == CaseStatus::failed || c.status == CaseStatus::error) return false;
  return true;
}

}  // namespace xb
