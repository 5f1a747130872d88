// The scenario result: one concurrent scenario (run --do, cuts) as
// measured, per transfer and for the whole scenario (cases/concurrent.hpp
// measures it; docs/concurrent.md says what each figure means). Its
// document, both ways, is records/scenario_json.hpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/model.hpp"
#include "base/stats.hpp"
#include "machine/topology.hpp"
#include "records/completion.hpp"
#include "records/measure_options.hpp"
#include "records/result.hpp"

namespace xb {

struct TransferResult {
  int id = 0;                      // position in the scenario
  std::string label;               // "host->gpu0", "gpu0->gpu1"
  int device = 0;                  // GPU whose stream issues the copy
  std::string device_name;
  int src_gpu = -1, dst_gpu = -1;  // GPU of each side; -1 for a host side
  std::string direction;           // "HtoD", "DtoH", "DtoD" or "local"
  std::uint64_t bytes = 0;         // per copy
  MemKind memory = MemKind::pinned;  // host-side kind; device/managed for DtoD
  int host_numa = kGpuNumaNode;    // node of the host buffer once resolved; kNoNumaPlacement: none
  Engine engine = Engine::copy_engine;
  std::string link;                // "PCIe Gen5 x16", "NVLink x18"
  Peak peak;                       // of that link, per direction
  // Measured (zero until summarize_samples):
  double elapsed_s = 0;            // per copy: median sample time / copies per sample
  double sample_elapsed_s = 0;     // median time of one sample (all its copies)
  double bandwidth_gbps = 0;       // median (or mean) over samples
  double efficiency = 0;           // bandwidth / peak; 0 when the peak is unknown
  Summary stats;                   // GB/s over samples
  std::vector<double> samples_gbps;
  Verification verification;
  std::string invalid_reason;      // set when the bandwidth is above the link's peak
  double start_s = 0, end_s = 0;   // on the timeline of the median-span sample
};

// The build that wrote a result: {"name", "version", "git"} of its "tool"
// section ("" for a git hash the build did not know).
struct ToolInfo {
  std::string name, version, git;
};

struct ScenarioResult {
  std::vector<std::string> command_line;
  std::string front_end;           // "bwtest" (--do) or "cuts"
  std::string start_time_utc;
  StreamMode streams = StreamMode::per_transfer;
  std::string statistic = "median";
  MeasureOptions measure;
  System system;
  std::vector<TransferResult> transfers;
  // Scenario figures, from the sample whose span is the median (its timeline
  // is the one shown), so aggregate == total_bytes / span exactly.
  int copies_per_sample = 0;
  int samples = 0;
  bool gated = true;
  int timeline_sample = 0;
  std::uint64_t total_bytes = 0;   // per sample, all transfers
  double span_s = 0;               // gate release -> last transfer end
  double aggregate_bandwidth_gbps = 0;         // total_bytes / span_s
  Summary aggregate_stats;                     // GB/s over samples
  double sum_of_transfer_bandwidths_gbps = 0;  // sum of per-transfer bandwidth_gbps
  double overlapped_s = 0;         // time with more than one transfer running
  double overlap_fraction = 0;     // overlapped_s / span_s
  int max_concurrent = 0;
  double wall_s = 0;
  // complete, or interrupted / partial (a stop request abandoned the
  // scenario: nothing above is measured, not_run is {"scenario"}); `error`:
  // the measurement failed.
  Completion completion;
  // Read back from a document: the build that wrote it, written again as
  // it was; empty: this build.
  std::optional<ToolInfo> written_by;
};

// True when no transfer failed verification or reported a bandwidth above
// its link's theoretical peak (an invalid figure).
bool all_valid(const ScenarioResult& r);

}  // namespace xb
