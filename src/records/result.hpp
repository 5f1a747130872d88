// Result records: flat, plain data, read by reporters only. SI units inside:
// bandwidth in GB/s (1e9 B/s), times in seconds, latency in nanoseconds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "records/measure_options.hpp"
#include "base/memory_types.hpp"
#include "machine/pairs.hpp"
#include "records/stability.hpp"
#include "base/stats.hpp"
#include "records/completion.hpp"
#include "machine/topology.hpp"

namespace xb {

enum class Metric { bandwidth_gbps, latency_ns };
const char* to_string(Metric m) noexcept;

// A latency measured while a copy loads the same link (the *_under_* cases),
// kept on the cell of the loaded-latency matrix, whose value is the loaded
// latency: the idle figure, their ratio, and what the load achieved, so a
// weak load cannot pass for a small slowdown.
struct LoadedLatency {
  double idle_ns = 0;          // the idle chase (the matrix "idle" has its cell, with its statistics)
  double loaded_ns = 0;        // the cell's value
  double ratio = 0;            // loaded / idle
  std::string load;            // what loaded the link: "host->gpu0, copy engine"
  double load_gbps = 0;        // median over the loaded samples of what the load moved meanwhile
  std::string load_link;
  Peak load_peak;
  double load_pct = 0;         // load_gbps as a percentage of load_peak; 0 when the peak is unknown
  bool weak = false;           // below kWeakLoadShare of the load's peak
};
// A load below this share of its link's peak does not show the link loaded.
inline constexpr double kWeakLoadShare = 0.5;

// A cell that nvbandwidth measures another way than xferbench (its copy
// schedule, the size of its interfering copies), measured that way too, so
// the nvbandwidth layouts print nvbandwidth's figure and xferbench's own
// output says where the two part (docs/nvbandwidth.md).
struct NvbandwidthWay {
  double value = 0;    // GB/s measured nvbandwidth's way (the run's statistic of its samples)
  double ratio = 0;    // value / the cell's own value
  bool differs = false;  // |ratio - 1| above kMethodsDiffer
  std::string why;     // what nvbandwidth does differently
  Summary stats;
  std::vector<double> samples;
};
// Two ways of measuring a cell that part by more than this share are
// reported as different.
inline constexpr double kMethodsDiffer = 0.03;

struct Cell {
  int row = 0, col = 0;
  double value = 0;                 // what the case reports: median (or mean with --mean)
  Summary stats;                    // over samples, in the matrix metric
  std::vector<double> samples;
  int copies_per_sample = 0;
  std::uint64_t bytes_per_copy = 0;
  std::string link;                 // "PCIe Gen5 x16", "NVLink x18", "HBM"
  Peak peak;
  double efficiency = 0;            // value / peak.gbps; 0 when the peak is unknown
  Verification verification;
  bool gated = true;
  std::uint64_t host_page_bytes = 0;  // page size of huge-page host buffers, as checked; 0: none in the cell
  bool outlier = false;
  std::string note;                 // outlier explanation or why the cell is empty
  // Above the link's theoretical peak: not a measurement of that link (e.g.
  // managed pages that had already moved). Never reported as a plain value.
  bool invalid = false;
  std::string invalid_reason;
  std::string error;                // non-empty: the cell could not be measured (no value); why
  std::optional<LoadedLatency> loaded;  // loaded-latency cells only
  std::optional<NvbandwidthWay> nvbandwidth;  // cells nvbandwidth measures another way
};
// What nvbandwidth's layouts print for a cell: its nvbandwidth-way figure
// where it has one, else its value.
inline double nvbandwidth_value(const Cell& c) { return c.nvbandwidth ? c.nvbandwidth->value : c.value; }
inline const Summary& nvbandwidth_stats(const Cell& c) { return c.nvbandwidth ? c.nvbandwidth->stats : c.stats; }
inline const std::vector<double>& nvbandwidth_samples(const Cell& c) {
  return c.nvbandwidth ? c.nvbandwidth->samples : c.samples;
}

struct Matrix {
  std::string name;                 // "", "write1", "write2", "total"
  std::string title;                // "memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)"
  Metric metric = Metric::bandwidth_gbps;
  std::vector<std::string> row_labels, col_labels;
  std::vector<Cell> cells;          // only the measured cells
};
// The measured cell at (row, col) of `m`; nullptr when it has none.
const Cell* find_cell(const Matrix& m, int row, int col);

// A cell not run because its buffers did not fit (memory or --max-memory).
struct WaivedCell {
  int row = 0, col = 0;
  std::string reason;
};

// not_run: the case was not (fully) measured: the run was interrupted or
// reached its time limit first; its matrices hold the cells it did measure.
enum class CaseStatus { passed, failed, waived, error, not_run };
const char* to_string(CaseStatus s) noexcept;

struct CaseResult {
  int index = 0;
  std::string name, description;
  CaseStatus status = CaseStatus::passed;
  std::string message;              // waiver reason, error, or first verification failure
  std::vector<Matrix> matrices;
  double wall_seconds = 0;
  std::vector<WaivedCell> waived_cells;  // a partial result when not empty
};

struct RunSettings {
  std::uint64_t buffer_bytes = 0;
  std::string statistic = "median";
  MeasureOptions measure;
  PairSelection pairs;  // which GPU pairs the pairwise cases measured
};

// What the run cost in memory: measured peaks (memory_probe.hpp), and the
// budget the buffer pool kept to with the planned peak it came from.
struct MemoryCost {
  std::vector<GpuMemoryPeak> gpus;
  std::uint64_t host_peak_rss_bytes = 0;  // getrusage ru_maxrss
  MemoryAmount planned;                   // the largest cell of the run (memory_plan.hpp)
  MemoryAmount budget;
  bool budget_fixed = false;              // --max-memory
  PoolStats pool;
};

struct RunResult {
  // not_run: cells ("CASE[ROW,COL]") and cases not measured, waived cells
  // included. Waived cells make the run partial (stop memory), as the time
  // limit does.
  Completion completion;
  std::string resumed_from;          // --resume FILE this result completes
  std::vector<std::string> command_line;
  std::string start_time_utc;
  double wall_seconds = 0;
  RunSettings settings;
  System system;
  std::vector<CaseResult> cases;
  Stability stability;  // checked == false when the run did not measure it
  MemoryCost memory;
};

// True when every case passed or was waived.
bool all_passed(const RunResult& r);

}  // namespace xb
