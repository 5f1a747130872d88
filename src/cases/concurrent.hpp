// Concurrent scenarios (the multi-gpu-bwtest and CUts front-ends): every
// transfer of a Scenario starts behind one gate, and the result says per
// transfer how fast it went and, for the whole scenario, how the transfers
// shared the time: the real span, the aggregate bandwidth over that span,
// the sum of per-transfer bandwidths (a different number: it assumes each
// transfer had the span to itself), a timeline and how much of the span saw
// more than one transfer running.
//
// describe_scenario and summarize_samples are pure, so everything except the
// measurement itself is unit-tested without a GPU.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "measure/measure.hpp"
#include "base/model.hpp"
#include "records/result.hpp"
#include "base/stats.hpp"
#include "machine/topology.hpp"

namespace xb {

class SampleSource;

// A time interval on the scenario timeline, in seconds from the gate release.
struct Interval {
  double start_s = 0;
  double end_s = 0;
};

// Seconds during which at least two intervals run at once (touching ends do
// not count). Exact; intervals with end <= start are ignored.
double overlapped_seconds(const std::vector<Interval>& intervals);
// Most intervals running at the same instant.
int max_concurrency(const std::vector<Interval>& intervals);
// overlapped_seconds / span_s, clamped to [0, 1]; 0 for a span <= 0.
double overlap_fraction(const std::vector<Interval>& intervals, double span_s);
// Index of the lower median of `values`: the element at sorted position
// (n - 1) / 2, equal values kept in their order. Throws Error(internal) when
// empty.
std::size_t median_index(const std::vector<double>& values);

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
};

// True when no transfer failed verification or reported a bandwidth above
// its link's theoretical peak (an invalid figure).
bool all_valid(const ScenarioResult& r);

// Refuses what the machine cannot run, before any allocation: a device id
// out of range, a copy between two GPUs without peer access ("gpu0 -> gpu1:
// no peer access; xferbench does not stage through host memory"). Throws
// Error(usage).
void check_scenario(const System& sys, const Scenario& scenario);

// Host location with its NUMA node resolved for the executing GPU (the
// measurer's rule); empty: nodes stay as given.
using NumaResolver = std::function<Location(const Location&, int gpu)>;

// Everything known before measuring: ids, labels, devices, links, peaks.
ScenarioResult describe_scenario(const System& sys, const Scenario& scenario, const NumaResolver& resolve = {});

// Fills the measured fields of `r` from samples of the same scenario.
void summarize_samples(ScenarioResult& r, const ScenarioSamples& samples, Statistic statistic);

// Called after every sample with the count so far (progress display).
using SampleCallback = std::function<void(int samples)>;

struct ScenarioRequest {
  Scenario scenario;
  std::string front_end = "bwtest";
  std::vector<std::string> command_line;
};

// check_scenario, peer access for every GPU pair, then the measurement
// through any sample source (GpuSource; tests use a fake one). Adaptive
// sampling watches the aggregate bandwidth. Throws Error for setup
// failures; a failed verification is data.
ScenarioResult run_scenario(SampleSource& src, const ScenarioRequest& req, const SampleCallback& on_sample = {});

}  // namespace xb
