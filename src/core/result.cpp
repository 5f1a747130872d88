#include "core/result.hpp"

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
  }
  return "error";
}

}  // namespace xb
