// What a soak's samples say: per cell min / median / max, the trend (a
// robust slope, % of the cell's median per hour), step changes with their
// times, and the throttle and error episodes (from telemetry) lined up with
// the samples they touched. Pure: unit-tested with planted signals.
#pragma once

#include <string>
#include <vector>

#include "soak/soak_data.hpp"
#include "soak/soak_record.hpp"

namespace xb::soak {

struct AnalysisOptions {
  // A trend is reported as drift when its |slope| is at least this many %
  // per hour AND its confidence interval excludes 0.
  double drift_pct_per_hour = 0.25;
  // ... AND the trend moved the cell by at least this many % over the time
  // the cell was sampled: a few minutes' wander, extrapolated to an hour, is
  // not drift (a 5-minute H200 soak showed 1-3 %/h trends with intervals
  // excluding 0 on steady cells, bench/results/2026-11-25-h200-soak).
  double drift_min_change_pct = 1.0;
  // A step is a lasting change of the median of at least this many % (and
  // well above the cell's noise) between neighbouring windows of samples.
  double step_pct = 3.0;
};

struct Step {
  double t_s = 0;             // first sample after the change
  std::string time_utc;
  double before = 0, after = 0;  // medians of the windows either side
  double change_pct = 0;         // (after - before) / before * 100
};

struct CellSummary {
  std::string cell, unit;
  int samples = 0, failed = 0;     // failed: samples with an error or failed verification
  double min = 0, median = 0, max = 0;
  int measured = 0;                // samples with a value (no error): min to max, stddev
  double stddev = 0;               // of those values (compare's noise rule)
  double slope_pct_per_hour = 0;   // Theil-Sen slope / median * 100 * 3600
  double slope_low = 0, slope_high = 0;  // its confidence interval, same unit
  bool drift = false;              // see AnalysisOptions::drift_pct_per_hour and drift_min_change_pct
  bool worse = false;              // the trend or last step goes the bad way (lower GB/s, higher ns)
  std::vector<Step> steps;
  int weak_load_samples = 0;       // loaded-latency samples whose load was under 50% of peak
};

// A time span where telemetry showed trouble on one GPU.
struct Episode {
  std::string kind;           // "throttle", "xid", "ecc", "row_remap", "pcie_replay"
  int gpu = 0;
  double start_s = 0, end_s = 0;
  std::string start_utc, end_utc;
  std::string detail;         // "hw_slowdown, sw_thermal", "XID 79", "+2 uncorrected"
  std::vector<std::string> cells;  // cells with samples in the span
  int samples = 0;                 // samples in the span
};

struct SoakSummary {
  double duration_s = 0;
  int rounds = 0;
  std::vector<CellSummary> cells;  // in the order cells first appear
  std::vector<Episode> episodes;   // by start time
  // Whether the soak found anything: drift the bad way, a step the bad way,
  // an episode, a failed sample, weak loads.
  bool findings = false;
  std::vector<std::string> finding_lines;  // one line each, for the verdict
};

SoakSummary analyze(const SoakData& soak, const AnalysisOptions& opts = {});
// The same over a file read whole (tests, small files).
SoakSummary analyze(const SoakFile& soak, const AnalysisOptions& opts = {});

}  // namespace xb::soak
