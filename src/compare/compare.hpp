// Comparison of two results of the same kind (two run JSONs or two sweep
// JSONs), cell by cell, for regression gates such as node acceptance.
//
// The noise rule: a cell changed only if the difference of the two reported
// values exceeds BOTH
//   - the tolerance: tolerance_pct percent of the OLD value, and
//   - noise_k times the combined standard error of the two values,
//     sqrt(se_old^2 + se_new^2), with se = sqrt(pi/2) * stddev / sqrt(n)
//     (the standard error of a median; n = sample count, stddev of samples).
// Otherwise it is "same". It is also "same" when the difference is within
// the drift that either run's own drift check measured (the "stability"
// section: reference cells measured at the start and the end of the run) on
// the cell's link, or on any link when no reference used that one; the noise
// reported is then that drift. Bandwidth going down, or latency going up, is
// "slower"; a cell whose data verification failed in NEW, or a case that
// measured in OLD but errored or was waived in NEW, or a cell marked invalid
// (above its link's theoretical peak) in NEW, is "failed". Both count
// as regressions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cases/sweep.hpp"
#include "fabric/result.hpp"
#include "records/result.hpp"
#include "soak/soak_analysis.hpp"
#include "soak/soak_record.hpp"

namespace xb {

struct CompareOptions {
  double tolerance_pct = 5.0;
  double noise_k = 3.0;
};

enum class Verdict { faster, slower, same, failed, skipped };
const char* to_string(Verdict v) noexcept;

// What two soaks say of one cell beside its median (compare_soaks).
struct SoakCellChange {
  double old_slope_pct_per_hour = 0, new_slope_pct_per_hour = 0;  // the trends (soak_analysis.hpp)
  bool old_drift = false, new_drift = false;
  int old_steps = 0, new_steps = 0;    // steps the bad way
  int old_failed = 0, new_failed = 0;  // samples with an error or a failed data check
};

struct CompareEntry {
  std::string key;            // "host_to_device_memcpy_ce [host,gpu0]", "host->gpu0 @ 1048576"
  std::string unit;           // "gbps" or "ns"
  double old_value = 0, new_value = 0;
  double delta_pct = 0;       // (new - old) / old * 100
  double noise_pct = 0;       // noise_k x combined standard error, percent of old
  Verdict verdict = Verdict::same;
  std::string note;           // why failed / skipped
  std::optional<SoakCellChange> soak;  // a cell of two soak files
};

// An entry that carries no values, only a verdict and why (a case that
// failed, a cell or node not measured).
CompareEntry note_entry(const std::string& key, Verdict verdict, const std::string& note);

struct CompareResult {
  std::string schema;         // "xferbench-run", "xferbench-sweep", "xferbench-fleet" or "xferbench.soak"
  CompareOptions options;
  std::vector<CompareEntry> entries;
  int count(Verdict v) const;
  bool regression() const { return count(Verdict::slower) + count(Verdict::failed) > 0; }
};

// Standard error of a median from the sample stddev and count; 0 for n < 2.
double median_standard_error(double stddev, int samples);

// Verdict of one value pair under the noise rule above.
CompareEntry compare_values(const std::string& key, const std::string& unit, double old_value, double old_stddev,
                            int old_samples, double new_value, double new_stddev, int new_samples,
                            const CompareOptions& opts);

// Two runs, or two sweeps, cell by cell under the rule above. Error(usage)
// with one line naming the file (old_name / new_name) for cases / cells /
// series / sizes present in only one of them. The documents a user hands
// in reach these through compare_json.hpp.
CompareResult compare_runs(const RunResult& old_run, const RunResult& new_run, const CompareOptions& opts,
                           const std::string& old_name = "OLD", const std::string& new_name = "NEW");
CompareResult compare_sweeps(const SweepResult& old_sweep, const SweepResult& new_sweep, const CompareOptions& opts,
                             const std::string& old_name = "OLD", const std::string& new_name = "NEW");


// Two soaks (xferbench soak), cell by cell: each cell's median under the
// noise rule above (the noise from the spread of its samples); a cell is
// also "slower" when NEW drifts the bad way and OLD does not, or NEW has
// more steps the bad way than OLD, and "failed" when NEW has more failed
// samples. One entry per kind of telemetry episode found in either ("episodes:
// xid"): "failed" when NEW has more of them. Error(usage) naming the cells
// for files that hold different cells. Works on the two analyses
// (soak::analyze), so each file is read, analysed and let go in turn.
CompareResult compare_soaks(const soak::SoakSummary& old_soak, const soak::SoakSummary& new_soak,
                            const CompareOptions& opts, const std::string& old_name = "OLD",
                            const std::string& new_name = "NEW");

// Two fabric files (xferbench fabric, docs/fabric.md), pair by pair: each
// node pair and rail's bandwidth both ways and latency under the noise rule
// above. A pair that failed in NEW is "failed"; a pair in only one of them
// (another schedule, another launch) is "skipped". compare_documents()
// sends fabric files here.
CompareResult compare_fabrics(const fabric::Result& old_fabric, const fabric::Result& new_fabric,
                              const CompareOptions& opts, const std::string& old_name = "OLD",
                              const std::string& new_name = "NEW");

}  // namespace xb
