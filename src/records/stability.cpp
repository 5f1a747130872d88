#include "records/stability.hpp"

#include <cmath>
#include <utility>

#include <fmt/format.h>


namespace xb {

std::vector<ReferenceCell> reference_cells(const System& sys) {
  std::vector<ReferenceCell> refs;
  if (sys.gpu_count() == 0) return refs;
  refs.push_back({"host_to_device_memcpy_ce", 0, 0, "host->gpu0", host_link_label(sys.gpus[0])});
  for (int p = 1; p < sys.gpu_count(); ++p) {
    if (!sys.link(0, p).peer_access) continue;
    refs.push_back({"device_to_device_memcpy_write_ce", 0, p, fmt::format("gpu0->gpu{}", p),
                    peer_link_label(sys.link(0, p))});
    break;
  }
  return refs;
}

Stability assess_stability(std::vector<StabilityEntry> entries, double tolerance_pct) {
  Stability s;
  s.checked = true;
  s.tolerance_pct = tolerance_pct;
  for (auto& e : entries) {
    e.drift_pct = e.start_gbps > 0 ? (e.end_gbps - e.start_gbps) / e.start_gbps * 100 : 0.0;
    s.max_abs_drift_pct = std::max(s.max_abs_drift_pct, std::fabs(e.drift_pct));
  }
  s.entries = std::move(entries);
  s.stable = s.max_abs_drift_pct <= tolerance_pct;
  return s;
}

double drift_for_link(const Stability& s, const std::string& link) {
  double on_link = -1, all = 0;
  for (const auto& e : s.entries) {
    all = std::max(all, std::fabs(e.drift_pct));
    if (e.ref.link == link) on_link = std::max(on_link, std::fabs(e.drift_pct));
  }
  return on_link >= 0 ? on_link : all;
}

StabilityCheck::StabilityCheck(std::vector<ReferenceCell> refs, Measure measure, double tolerance_pct)
    : refs_(std::move(refs)), measure_(std::move(measure)) {
  result_.tolerance_pct = tolerance_pct;
}

void StabilityCheck::start() {
  result_.entries.clear();
  for (const auto& r : refs_) result_.entries.push_back({r, measure_(r), 0, 0});
}

Stability StabilityCheck::finish() {
  for (auto& e : result_.entries) e.end_gbps = measure_(e.ref);
  return assess_stability(std::move(result_.entries), result_.tolerance_pct);
}

}  // namespace xb
