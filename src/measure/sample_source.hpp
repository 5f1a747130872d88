// The seam between the runner loops (named cases, sweeps, concurrent
// scenarios) and whatever produces timed samples. GpuSource measures on
// the GPUs through a Measurer; tests give the loops a fake source, so the
// loop logic (stops, time limits, failing cells, resume, outputs) is proved
// without a GPU.
//
// A source must poll throw_if_stopped() (base/stop.hpp) between samples so a
// stop request abandons the cell in flight, and must leave the GPU usable
// for the next cell when it throws (or say it is not: unusable_reason).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "measure/latency.hpp"
#include "measure/measure.hpp"
#include "base/memory_types.hpp"
#include "measure/migration.hpp"
#include "machine/topology.hpp"

namespace xb {

class MemoryProbe;
struct MemoryCost;

class SampleSource {
 public:
  virtual ~SampleSource() = default;
  virtual const System& system() const = 0;
  virtual const MeasureOptions& options() const = 0;
  // Host location with its NUMA node resolved for the executing GPU.
  virtual Location resolve(const Location& loc, int gpu) const = 0;

  // Before any cell: throws Error(resources) when a buffer of `bytes`
  // cannot fit on some GPU.
  virtual void check_fits(std::uint64_t bytes) = 0;
  // Measurer::run's contract: timed samples of one scenario.
  virtual ScenarioSamples run(const Scenario& scenario, const SampleMetric& metric) = 0;
  // measure_latency's contract: GPU `gpu` chasing pointers at `target`
  // with loads or with TMA bulk copies.
  virtual LatencySamples latency(int gpu, const Location& target, ChaseKind kind = ChaseKind::load) = 0;
  // measure_loaded_latency's contract: the chase alone, then under `load`.
  virtual LoadedLatencySamples loaded_latency(int gpu, const Location& target, const std::vector<Transfer>& load) = 0;
  // measure_migration's contract: managed pages faulting between the host and `gpu`.
  virtual MigrationSamples migration(int gpu, MigrationDirection dir, std::uint64_t bytes) = 0;
  // Measurer::preflight's contract: why the buffers of a cell needing
  // `need` at once cannot be had now (the cell is then waived); nullopt
  // when they fit.
  virtual std::optional<std::string> preflight(const MemoryAmount& need) = 0;
  // A named-case run's memory accounting (docs/memory.md): the buffer
  // pool's budget, and from then on the run's peaks are watched;
  // memory_cost() reads them. A source without buffers has nothing to do.
  virtual void start_memory_accounting(const MemoryAmount& /*budget*/, bool /*fixed*/) {}
  virtual void memory_cost(MemoryCost& /*cost*/) {}
  // The SM budget of later cells (Measurer::set_sm_limit); 0: every SM.
  virtual void set_sm_limit(int sms) = 0;
  // After a cell failed with a CUDA error: why no further cell can run (a
  // sticky error poisons the context), or "" when the GPUs still work.
  virtual std::string unusable_reason() = 0;
};

// Measures on this machine's GPUs.
class GpuSource final : public SampleSource {
 public:
  // Discovers the system (Error(no_device) without a GPU) and starts a Measurer.
  explicit GpuSource(const MeasureOptions& opts);
  // Measures with a Measurer the caller owns (and keeps alive).
  explicit GpuSource(Measurer& measurer);
  ~GpuSource() override;

  const System& system() const override { return measurer_->system(); }
  const MeasureOptions& options() const override { return measurer_->options(); }
  Location resolve(const Location& loc, int gpu) const override { return measurer_->resolve(loc, gpu); }
  void check_fits(std::uint64_t bytes) override;
  ScenarioSamples run(const Scenario& scenario, const SampleMetric& metric) override;
  LatencySamples latency(int gpu, const Location& target, ChaseKind kind = ChaseKind::load) override;
  LoadedLatencySamples loaded_latency(int gpu, const Location& target, const std::vector<Transfer>& load) override;
  MigrationSamples migration(int gpu, MigrationDirection dir, std::uint64_t bytes) override;
  std::optional<std::string> preflight(const MemoryAmount& need) override { return measurer_->preflight(need); }
  void start_memory_accounting(const MemoryAmount& budget, bool fixed) override;
  void memory_cost(MemoryCost& cost) override;
  std::string unusable_reason() override;
  void set_sm_limit(int sms) override { measurer_->set_sm_limit(sms); }
  Measurer& measurer() { return *measurer_; }

 private:
  void enable_peers(int a, int b);  // both ways, once per pair
  std::unique_ptr<System> own_sys_;  // when owned here: the Measurer keeps a reference
  std::unique_ptr<Measurer> own_measurer_;
  Measurer* measurer_ = nullptr;
  std::set<std::pair<int, int>> peers_;
  std::unique_ptr<MemoryProbe> probe_;
};

// Makes the source a command measures with; tests install a fake one.
using SourceFactory = std::function<std::unique_ptr<SampleSource>(const MeasureOptions&)>;
std::unique_ptr<SampleSource> open_gpu_source(const MeasureOptions& opts);

}  // namespace xb
