// Run-level stability: is the machine the same at the end of a run as at
// its start? Per-cell CoV only says that the samples of one cell agreed;
// on shared machines the host side can change level between cells and
// between runs (seen on H200 x2: host->gpu 51.2 GB/s in one process, 55.4
// in others within the hour). So a run measures a few reference cells at
// its start and again at its end, and reports how far they moved.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "machine/topology.hpp"

namespace xb {

// One cell of a named case, measured on its own.
struct ReferenceCell {
  std::string case_name;  // "host_to_device_memcpy_ce"
  int row = 0, col = 0;   // the cell in the case's first matrix
  std::string label;      // "host->gpu0"
  std::string link;       // "PCIe Gen5 x16", "NVLink x18": what its drift speaks for
};

struct StabilityEntry {
  ReferenceCell ref;
  double start_gbps = 0, end_gbps = 0;
  double drift_pct = 0;  // (end - start) / start * 100
};

struct Stability {
  bool checked = false;
  double tolerance_pct = 2.0;
  std::vector<StabilityEntry> entries;
  double max_abs_drift_pct = 0;
  bool stable = true;
  std::string error;  // why the check could not run, if it could not
};

// The first host cell (host -> gpu0, copy engine) and, where gpu0 has a
// peer, the first peer cell (gpu0 writes to that peer, copy engine).
std::vector<ReferenceCell> reference_cells(const System& sys);

// Measures each reference once now (the start); `finish` measures them
// again and fills in the verdict. `measure` returns a reference's GB/s; a
// fake stands in for it in tests.
class StabilityCheck {
 public:
  using Measure = std::function<double(const ReferenceCell&)>;
  StabilityCheck(std::vector<ReferenceCell> refs, Measure measure, double tolerance_pct);
  void start();
  // The start values so far (end values zero): for a report's header.
  const Stability& peek() const { return result_; }
  Stability finish();

 private:
  std::vector<ReferenceCell> refs_;
  Measure measure_;
  Stability result_;
};

// The verdict from measured start/end values (pure, for tests and reports).
Stability assess_stability(std::vector<StabilityEntry> entries, double tolerance_pct);

// Worst absolute drift (percent) among references on `link`, or among all
// references when none is on that link; 0 when the run has none.
double drift_for_link(const Stability& s, const std::string& link);

}  // namespace xb
