// Measurement: turns a Scenario into timed samples.
//
// One sample: a gate kernel holds every stream; each transfer's start event,
// `copies_per_sample` copies and end event are queued (SM copies: one kernel
// that repeats the copy, unless sm_repeat_in_kernel is off); the host releases the
// gate; all streams run at once. Per transfer we keep its start/end on a
// timeline whose zero is the gate release, and the scenario's total time
// (gate release to the last transfer's end). Warm-up copies run first and
// size the samples; adaptive sampling stops once the metric the caller
// reports is stable. Verification runs after the timed region, never inside.
// A scenario with Timing::nvbandwidth is sampled in nvbandwidth's order
// instead (model.hpp); its total then starts at stream 0's start.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kernels/kernels.hpp"
#include "records/measure_options.hpp"
#include "memory/memory.hpp"
#include "base/model.hpp"
#include "kernels/sm_shape.hpp"
#include "machine/topology.hpp"

namespace xb {

class Event;
class MemoryProbe;

struct TransferSamples {
  std::vector<double> seconds;  // per sample: from this transfer's start event to its end event
  std::vector<double> start_s;  // per sample: start relative to the gate release
  std::vector<double> end_s;
  Verification verification;
};

struct ScenarioSamples {
  int copies_per_sample = 0;
  bool gated = true;                  // false when pageable memory forced ungated timing
  std::vector<TransferSamples> transfers;
  std::vector<double> total_seconds;  // per sample: gate release -> last transfer done
  std::uint64_t host_page_bytes = 0;  // smallest checked page size of a huge-page host buffer; 0: none
  double wall_seconds = 0;            // whole measurement incl. warm-up and verification
};

// The value the caller reports for sample `i`; adaptive sampling watches it.
using SampleMetric = std::function<double(const ScenarioSamples&, std::size_t i)>;

class Measurer {
 public:
  Measurer(const System& sys, MeasureOptions opts);
  ~Measurer();
  Measurer(const Measurer&) = delete;
  Measurer& operator=(const Measurer&) = delete;

  // Throws Error for setup failures (allocation, CUDA, gate timeout); a
  // failed verification is data (TransferSamples::verification).
  ScenarioSamples run(const Scenario& scenario, const SampleMetric& metric);

  const MeasureOptions& options() const noexcept { return opts_; }
  // The SM budget of later scenarios (sweep --sms keeps its buffers across
  // budgets); prepares SM pinning (kernels.hpp) on every GPU it limits.
  void set_sm_limit(int sms);
  const System& system() const noexcept { return sys_; }
  BufferPool& pool() noexcept { return pool_; }
  // Buffers for one set of requests (buffer_pool.hpp); samples the memory
  // probe when new memory was allocated, the only time the footprint grows.
  std::vector<Buffer*> acquire(const std::vector<BufferRequest>& requests);
  // Why buffers needing `need` at once cannot be had now: above a fixed
  // (--max-memory) budget, or more than the free memory plus what the pool
  // holds; nullopt when they fit.
  std::optional<std::string> preflight(const MemoryAmount& need);
  void set_memory_probe(MemoryProbe* probe) noexcept { probe_ = probe; }
  // Host location with its NUMA node resolved for a transfer executed by `gpu`.
  Location resolve(const Location& loc, int gpu) const;

 private:
  struct Plan;
  void prepare_buffers(Plan& plan);
  void prepare_split(Buffer& src, Buffer& dst, const Transfer& t);
  void place_managed(const Plan& plan);
  void warm_up(Plan& plan);
  void enqueue_copy(const Plan& plan, std::size_t i, int reps = 1);
  SmCopySite sm_site(const Plan& plan, std::size_t i) const;
  SmCopyConfig kernel_config(const Plan& plan, std::size_t i) const;
  int sm_budget(int device) const;  // SMs a kernel may use: all, or opts_.sm_limit
  void run_sample(Plan& plan, ScenarioSamples& out);
  void queue_nvbandwidth_starts(const Plan& plan);
  void wait_for(const Event& done);
  void verify(Plan& plan, ScenarioSamples& out);

  const System& sys_;
  MeasureOptions opts_;
  BufferPool pool_{allocate_buffer};
  MemoryProbe* probe_ = nullptr;
  volatile int* release_ = nullptr;  // host-mapped gate flag
  int* timed_out_ = nullptr;         // host-mapped, set by a gate that gave up
};

// Calls `sample` until the median of its values is stable, under the
// measurer's options (min/max samples, relative-error target, budget), and
// returns the values. Shared by the measurements that are not copies
// (latency chases, managed-memory migration).
std::vector<double> sample_until_stable(const MeasureOptions& opts, const std::function<double()>& sample);

// Bytes per second of `bytes` moved in `seconds`, in GB/s (1e9 B/s).
inline double gbps(double bytes, double seconds) { return seconds > 0 ? bytes / seconds / 1e9 : 0.0; }

}  // namespace xb
