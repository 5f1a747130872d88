// Measured memory cost of a run, and the memory there is now.
//
// GPU: the process's own usage from NVML (nvmlDeviceGetComputeRunningProcesses,
// which includes the CUDA context) where NVML lists our pid; otherwise (no
// NVML, or a PID namespace hiding our pid) the rise of the GPU's used memory
// (cudaMemGetInfo) since the probe started, which leaves out the CUDA context
// and counts other processes' allocations. Sampled after every allocation,
// the only moments the footprint can grow. Host: the peak resident set size
// (getrusage ru_maxrss), kept by the kernel.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "memory/memory.hpp"
#include "base/memory_types.hpp"
#include "machine/topology.hpp"

namespace xb {

class Nvml;

class MemoryProbe {
 public:
  // Never throws: a GPU NVML cannot answer for falls back to cudaMemGetInfo.
  explicit MemoryProbe(const System& sys);
  ~MemoryProbe();
  MemoryProbe(const MemoryProbe&) = delete;
  MemoryProbe& operator=(const MemoryProbe&) = delete;

  void sample() noexcept;
  std::vector<GpuMemoryPeak> gpu_peaks() const;
  std::uint64_t samples() const noexcept { return samples_; }

 private:
  std::shared_ptr<Nvml> nvml_;
  std::vector<std::string> bus_ids_;
  std::vector<bool> per_process_;
  std::vector<std::uint64_t> baseline_, peak_;
  std::uint64_t samples_ = 0;
};

// Peak resident set size of this process so far (getrusage ru_maxrss).
std::uint64_t peak_rss_bytes() noexcept;

// Free memory of the GPUs `need` uses and MemAvailable, each plus what the
// pool holds there, and the locked-memory limit (max when unlimited or the
// process has CAP_IPC_LOCK). Throws Error(cuda) when a GPU cannot answer.
MemoryAvailable query_memory_available(const MemoryAmount& need, const BufferPool& pool);

}  // namespace xb
