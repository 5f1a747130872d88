// Plain memory amounts shared by the pool, the planner, the probe and the
// result records: bytes per budget group (each GPU, the host).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/model.hpp"

namespace xb {

// Budget groups: device memory and managed memory placed on a GPU count
// against that GPU; every kind of host memory (and unplaced managed memory)
// against the host.
constexpr int kHostGroup = -1;
int memory_group(const Location& loc) noexcept;

// What an allocation of `bytes` really takes: cudaMalloc hands out 2 MiB
// units, huge-page host buffers whole 2 MiB pages, other host allocations
// whole 4 KiB pages.
std::uint64_t footprint_bytes(const Location& loc, std::uint64_t bytes) noexcept;

// Bytes per budget group.
struct MemoryAmount {
  std::vector<std::uint64_t> gpu;  // index = GPU
  std::uint64_t host = 0;
  std::uint64_t host_locked = 0;   // page-locked part of `host`
  std::uint64_t host_hugepages = 0;  // part of `host` on 2 MiB pages of the hugetlb pool

  std::uint64_t get(int group) const noexcept;
  void add(int group, std::uint64_t bytes);
};

// The larger of the two in every group.
MemoryAmount max_of(const MemoryAmount& a, const MemoryAmount& b);

// Memory a cell may use now: free GPU memory and MemAvailable plus what the
// pool holds (it frees those buffers first), and the locked-memory limit.
// Huge pages come from the hugetlb pool, which MemAvailable leaves out.
struct MemoryAvailable {
  MemoryAmount free;
  std::uint64_t locked_limit = UINT64_MAX;  // RLIMIT_MEMLOCK; max when unlimited or CAP_IPC_LOCK
  long hugepages_total = -1;                // 2 MiB pool: pages reserved; -1: unknown (not checked)
  long hugepages_free = -1;                 // free pages plus those the buffer pool holds
};

// What the buffer pool did over a run: allocations and frees, and the
// seconds they took (page-locking host memory is the expensive part).
struct PoolStats {
  std::uint64_t host_allocations = 0, gpu_allocations = 0, evictions = 0;
  double host_allocation_seconds = 0, gpu_allocation_seconds = 0, eviction_seconds = 0;
};

// --max-memory GPU,HOST: the most the buffer pool may hold on each GPU and
// on the host.
struct MemoryLimit {
  std::uint64_t gpu = 0;
  std::uint64_t host = 0;
};

// A measured peak of one GPU (memory_probe.hpp says how).
struct GpuMemoryPeak {
  int gpu = 0;
  std::uint64_t peak_bytes = 0;
  std::string source;  // "nvml_process" or "cuda_used_rise"
};

}  // namespace xb
