// Size sweeps: one transfer (a --do scenario or a named case) measured over
// a range of sizes, and the fit of time = startup + bytes / bandwidth over
// the measured rows (the Hockney model), reporting the startup time, the
// asymptotic bandwidth and n_half, the size that reaches half of it.
//
// Ping-pong sweeps between processes are what pingpong::run already does
// (its -n sizes); this module covers transfers inside one process.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cases/cases.hpp"
#include "measure/measure.hpp"
#include "base/model.hpp"
#include "records/result.hpp"

namespace xb {

// How the sizes advance from min to max.
struct SweepRange {
  std::uint64_t min_bytes = 0;
  std::uint64_t max_bytes = 0;
  double factor = 2.0;          // used when step_bytes is 0
  std::uint64_t step_bytes = 0; // > 0: arithmetic steps instead of a factor
};

inline constexpr std::size_t kMaxSweepSizes = 1000;

// min, min*factor (rounded, duplicates dropped) ... or min, min+step, ...;
// max is always the last size even when the progression skips it. Throws
// Error(usage) for zero sizes, min > max, factor <= 1 or too many sizes.
std::vector<std::uint64_t> sweep_sizes(const SweepRange& range);

// Least-squares fit of seconds = startup_s + bytes / (asymptotic_gbps * 1e9).
// Residuals are relative (weights 1/t^2): sizes span orders of magnitude, and
// in absolute terms the largest sizes would decide the intercept alone, so
// the startup time would be noise. Exact data is recovered exactly.
struct LinearFit {
  bool valid = false;           // false with < 2 distinct sizes or a slope <= 0
  int points = 0;
  double startup_s = 0;         // may come out negative on noisy data; reported as fitted
  double asymptotic_gbps = 0;
  double n_half_bytes = 0;      // startup * bandwidth; 0 when startup <= 0
  double rms_relative_residual = 0;
};
LinearFit fit_startup_bandwidth(const std::vector<double>& bytes, const std::vector<double>& seconds);

struct SweepRow {
  std::uint64_t bytes = 0;
  double value_gbps = 0;        // median (or mean) of the samples
  double seconds_per_copy = 0;  // bytes / value: what the fit uses
  Summary stats;                // over samples, GB/s
  std::vector<double> samples_gbps;
  int copies_per_sample = 0;
  double efficiency = 0;        // value / peak; 0 when the peak is unknown
  Verification::Status verification = Verification::Status::skipped;
  bool invalid = false;         // above the link's theoretical peak (see impossible_reason)
};

// One curve: a transfer of the spec, or one matrix cell of a named case.
struct SweepSeries {
  std::string label;            // "host->gpu0", or "[host,gpu0]" / "write1[gpu0,gpu1]" for cases
  std::string link;
  Peak peak;
  std::vector<SweepRow> rows;
  LinearFit fit;
};

// Per-transfer start/end of every sample at one size, relative to the gate
// release: shows whether the transfers of a --do scenario overlapped.
struct SweepTimeline {
  std::uint64_t bytes = 0;
  int copies_per_sample = 0;
  std::vector<std::string> labels;
  std::vector<std::vector<double>> start_s, end_s;  // [transfer][sample]
};

struct SweepRequest {
  std::vector<std::uint64_t> sizes;
  Scenario scenario;            // used when named_case is null; bytes replaced per size
  std::string spec;             // the --do text, for the record
  const CaseDef* named_case = nullptr;
  MeasureOptions measure;
  std::vector<std::string> command_line;
};

enum class SweepStatus { passed, failed, waived };
const char* to_string(SweepStatus s) noexcept;

struct SweepResult {
  std::vector<std::string> command_line;
  std::string start_time_utc;
  double wall_seconds = 0;
  std::string source;           // "spec" or "case"
  std::string what;             // the spec text or the case name
  std::string stream_mode;      // for specs
  std::vector<std::uint64_t> sizes;
  std::string statistic = "median";
  MeasureOptions measure;
  System system;
  SweepStatus status = SweepStatus::passed;
  std::vector<std::string> messages;  // waiver reason, errors and failed checks, one per line
  std::vector<SweepSeries> series;
  SweepTimeline timeline;       // specs only: at the largest size measured in this process
  // Whether every size ran (see RunResult): interrupted / partial list the
  // sizes not measured (in bytes, as decimal text); a resumed sweep names
  // the file it completes.
  Completion completion;
  std::string resumed_from;
};

// Called once before the first size (done 0: `partial` holds the request's
// fields, no rows) and after each size (its rows added), so callers print
// progress and rows as they are measured.
using SweepCallback = std::function<void(const SweepResult& partial, std::size_t done, std::size_t total)>;

class SampleSource;
struct RunControls;
// Measures every size, then fits each series. Errors at one size become
// messages (status failed) and the other sizes still run. Under the run
// controls (time limit, faults, resume; the resume result's rows are kept
// and those sizes skipped). A
// stop request ends the loop with the sizes measured so far kept, the rest
// in not_run and run_status interrupted or partial. Sizes are the cells:
// the fault hook names them in bytes.
SweepResult run_sweep(SampleSource& src, const SweepRequest& req, const SweepCallback& on_size,
                      const RunControls& controls, const SweepResult* resume = nullptr);


// Adds one size's measurement of a named case to `out` (series per cell).
void add_case_rows(const CaseResult& c, SweepResult& out);

// The series of `all` called `label`, appended when there is none yet
// (sweeps and SM sweeps alike).
template <typename Series>
Series& series_named(std::vector<Series>& all, const std::string& label) {
  for (auto& s : all)
    if (s.label == label) return s;
  all.emplace_back().label = label;
  return all.back();
}

// Fits every series from its rows.
void fit_series(SweepResult& out);

}  // namespace xb
