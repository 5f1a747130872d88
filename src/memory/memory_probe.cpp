#include "memory/memory_probe.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include <cuda_runtime_api.h>

#include "machine/cuda_check.hpp"
#include "base/error.hpp"
#include "machine/hugepages.hpp"
#include "memory/memory_plan.hpp"
#include "machine/nvml.hpp"

namespace xb {
namespace {

std::string read_text(const char* path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Used memory of the GPU as the runtime sees it (all processes).
bool device_used(int gpu, std::uint64_t& used) noexcept {
  std::size_t free_b = 0, total_b = 0;
  if (cudaSetDevice(gpu) != cudaSuccess || cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  used = total_b - free_b;
  return true;
}

std::uint64_t locked_memory_limit() {
  if (parse_cap_ipc_lock(read_text("/proc/self/status"))) return UINT64_MAX;
  rlimit lim{};
  if (getrlimit(RLIMIT_MEMLOCK, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY) return UINT64_MAX;
  return lim.rlim_cur;
}

}  // namespace

MemoryProbe::MemoryProbe(const System& sys) {
  try {
    nvml_ = Nvml::load();
  } catch (const Error&) {
    nvml_.reset();
  }
  const auto pid = static_cast<unsigned>(getpid());
  for (const GpuInfo& g : sys.gpus) {
    bus_ids_.push_back(g.pci_bus_id);
    per_process_.push_back(nvml_ && nvml_->process_memory(g.pci_bus_id, pid).has_value());
    std::uint64_t used = 0;
    baseline_.push_back(!per_process_.back() && device_used(g.index, used) ? used : 0);
    peak_.push_back(0);
  }
  sample();
}

MemoryProbe::~MemoryProbe() = default;

void MemoryProbe::sample() noexcept {
  const auto pid = static_cast<unsigned>(getpid());
  int current = -1;
  (void)cudaGetDevice(&current);
  for (std::size_t g = 0; g < bus_ids_.size(); ++g) {
    std::uint64_t used = 0;
    if (per_process_[g]) {
      const auto mine = nvml_->process_memory(bus_ids_[g], pid);
      if (!mine) continue;
      used = *mine;
    } else if (device_used(static_cast<int>(g), used)) {
      used = used > baseline_[g] ? used - baseline_[g] : 0;
    } else {
      continue;
    }
    peak_[g] = std::max(peak_[g], used);
  }
  if (current >= 0) (void)cudaSetDevice(current);
  ++samples_;
}

std::vector<GpuMemoryPeak> MemoryProbe::gpu_peaks() const {
  std::vector<GpuMemoryPeak> out;
  for (std::size_t g = 0; g < peak_.size(); ++g)
    out.push_back({static_cast<int>(g), peak_[g], per_process_[g] ? "nvml_process" : "cuda_used_rise"});
  return out;
}

std::uint64_t peak_rss_bytes() noexcept {
  rusage ru{};
  if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
  return static_cast<std::uint64_t>(ru.ru_maxrss) * 1024;  // Linux reports KiB
}

MemoryAvailable query_memory_available(const MemoryAmount& need, const BufferPool& pool) {
  MemoryAvailable avail;
  for (std::size_t g = 0; g < need.gpu.size(); ++g) {
    if (need.gpu[g] == 0) continue;
    std::size_t free_b = 0, total_b = 0;
    XB_CUDA_CHECK(cudaSetDevice(static_cast<int>(g)));
    XB_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    avail.free.add(static_cast<int>(g), free_b + pool.held(static_cast<int>(g)));
  }
  const std::uint64_t held_huge = pool.held_kind(MemKind::hugepages);
  if (need.host > need.host_hugepages) {
    // Without /proc/meminfo nothing is known: do not refuse on a guess.
    const auto host = parse_mem_available(read_text("/proc/meminfo"));
    avail.free.host = host ? *host + pool.held(kHostGroup) - held_huge : UINT64_MAX;
  }
  if (need.host_hugepages > 0) {
    const HugePagePool hp = read_hugepage_pool();
    if (hp.known()) {
      avail.hugepages_total = hp.total;
      avail.hugepages_free = hp.free + static_cast<long>(held_huge / kHugePageBytes);
    }
  }
  if (need.host_locked > 0) avail.locked_limit = locked_memory_limit();
  return avail;
}

}  // namespace xb
