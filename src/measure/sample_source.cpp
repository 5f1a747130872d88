#include "measure/sample_source.hpp"

#include <algorithm>

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "machine/cuda_check.hpp"
#include "base/error.hpp"
#include "memory/memory_probe.hpp"
#include "records/result.hpp"
#include "base/units.hpp"

namespace xb {

GpuSource::GpuSource(const MeasureOptions& opts) : own_sys_(std::make_unique<System>(discover_system(false))) {
  own_measurer_ = std::make_unique<Measurer>(*own_sys_, opts);
  measurer_ = own_measurer_.get();
}

GpuSource::GpuSource(Measurer& measurer) : measurer_(&measurer) {}

GpuSource::~GpuSource() {
  if (probe_) measurer_->set_memory_probe(nullptr);  // a caller's Measurer may outlive this source
}

void GpuSource::check_fits(std::uint64_t bytes) {
  for (const auto& g : system().gpus) {
    std::size_t free_b = 0, total_b = 0;
    XB_CUDA_CHECK(cudaSetDevice(g.index));
    XB_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (bytes > free_b)
      fail(ErrorKind::resources, fmt::format("buffer size {} does not fit in gpu{}'s free memory ({} free)",
                                             bytes_label(bytes), g.index, bytes_label(free_b >> 20 << 20)));
  }
}

void GpuSource::enable_peers(int a, int b) {
  // Managed memory standing on the host side has device -1.
  if (a < 0 || b < 0 || a == b) return;
  const auto pair = std::make_pair(std::min(a, b), std::max(a, b));
  if (peers_.insert(pair).second) enable_peer_access(pair.first, pair.second);
}

ScenarioSamples GpuSource::run(const Scenario& scenario, const SampleMetric& metric) {
  for (const Transfer& t : scenario.transfers)
    if (!t.src.on_host() && !t.dst.on_host()) enable_peers(t.src.device, t.dst.device);
  return measurer_->run(scenario, metric);
}

LatencySamples GpuSource::latency(int gpu, const Location& target, ChaseKind kind) {
  if (!target.on_host()) enable_peers(target.device, gpu);
  return measure_latency(*measurer_, gpu, target, kind);
}

LoadedLatencySamples GpuSource::loaded_latency(int gpu, const Location& target, const std::vector<Transfer>& load) {
  if (!target.on_host()) enable_peers(target.device, gpu);
  for (const Transfer& t : load)
    if (!t.src.on_host() && !t.dst.on_host()) enable_peers(t.src.device, t.dst.device);
  return measure_loaded_latency(*measurer_, gpu, target, load);
}

MigrationSamples GpuSource::migration(int gpu, MigrationDirection dir, std::uint64_t bytes) {
  return measure_migration(*measurer_, gpu, dir, bytes);
}

void GpuSource::start_memory_accounting(const MemoryAmount& budget, bool fixed) {
  measurer_->pool().set_budget(budget, fixed);
  // Started after the Measurer, so a rise of used memory leaves out its contexts.
  probe_ = std::make_unique<MemoryProbe>(system());
  measurer_->set_memory_probe(probe_.get());
}

void GpuSource::memory_cost(MemoryCost& cost) {
  if (probe_) {
    probe_->sample();
    cost.gpus = probe_->gpu_peaks();
  }
  cost.host_peak_rss_bytes = peak_rss_bytes();
  cost.pool = measurer_->pool().stats();
}

std::string GpuSource::unusable_reason() {
  // A sticky error (illegal address, launch failure) is returned by every
  // later call on that device; a plain one was cleared when it was thrown.
  (void)cudaGetLastError();
  for (const auto& g : system().gpus) {
    cudaError_t err = cudaSetDevice(g.index);
    if (err == cudaSuccess) err = cudaDeviceSynchronize();
    if (err != cudaSuccess) return fmt::format("gpu{}: {} ({})", g.index, cudaGetErrorName(err), cudaGetErrorString(err));
  }
  return "";
}

std::unique_ptr<SampleSource> open_gpu_source(const MeasureOptions& opts) {
  return std::make_unique<GpuSource>(opts);
}

}  // namespace xb
