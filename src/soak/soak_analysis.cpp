#include "soak/soak_analysis.hpp"

namespace xb::soak {

SoakSummary analyze(const SoakFile& soak, const AnalysisOptions&) {
  SoakSummary out;
  if (!soak.samples.empty()) out.duration_s = soak.samples.back().t_s;
  return out;
}

}  // namespace xb::soak
