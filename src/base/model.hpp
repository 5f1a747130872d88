// The core vocabulary shared by every front-end: where bytes live
// (Location), who moves them (Engine), one Transfer, and a Scenario of
// transfers launched together. Plain data; no CUDA types here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace xb {

enum class MemKind {
  device,          // cudaMalloc on a GPU
  pinned,          // page-locked host memory on a NUMA node
  pageable,        // ordinary host memory
  write_combined,  // page-locked, write-combined host memory
  mapped,          // page-locked host memory mapped into the GPU address space
  managed,         // cudaMallocManaged
  hugepages,       // page-locked host memory on 2 MiB pages of the hugetlb pool
};

const char* to_string(MemKind kind) noexcept;
bool is_host(MemKind kind) noexcept;

// Location::numa values besides a node id.
constexpr int kGpuNumaNode = -1;      // host memory on the executing GPU's node (default)
constexpr int kNoNumaPlacement = -2;  // host memory not placed on any node

struct Location {
  MemKind kind = MemKind::device;
  int device = -1;  // GPU that owns device/managed memory; -1 for host memory
  int numa = -1;    // NUMA node for host memory; -1 = the executing GPU's node
  bool on_host() const noexcept { return is_host(kind); }
};

Location device_memory(int device);
Location host_memory(MemKind kind = MemKind::pinned, int numa = -1);

enum class Engine {
  copy_engine,  // cudaMemcpyAsync issued on the executing GPU's stream
  sm,           // a copy kernel running on the executing GPU's SMs
  sm_split,     // one SM kernel copying half the bytes each way (src <-> dst)
  cpu,          // a host thread touching the memory (managed-memory migration)
  tma,          // the SMs' Tensor Memory Accelerator (cp.async.bulk), sm_90 and later
  sm_read,      // SM kernel that only reads src (dst unused): memory read bandwidth
  sm_write,     // SM kernel that only writes dst (src unused): memory write bandwidth
};

const char* to_string(Engine engine) noexcept;
// Engines whose source (sm_write) or destination (sm_read) is not used: no
// buffer is allocated for that side.
inline bool uses_source(Engine e) noexcept { return e != Engine::sm_write; }
inline bool uses_destination(Engine e) noexcept { return e != Engine::sm_read; }

struct Transfer {
  Location src;
  Location dst;
  Engine engine = Engine::copy_engine;
  int exec_device = 0;       // GPU whose stream (and SMs for Engine::sm) does the work
  std::uint64_t bytes = 0;   // bytes per copy
  // sm_split only: repeat each part in place before moving on (nvbandwidth's
  // order) instead of walking the whole buffer once per copy.
  bool repeat_in_place = false;
  // Copies of this transfer per copy of the others: interfering copies that
  // must outlast the measured one run twice instead of being twice as large,
  // so they need no larger buffers.
  int repeat = 1;
  // Engine::sm only: nvbandwidth's kernel shape (one 512-thread block per
  // SM, 12 vectors deep) unless the user chose one (--sm-config).
  bool nvbandwidth_kernel = false;
  std::string label;         // e.g. "host->gpu0"; filled by the front-end
};

// How streams are assigned to the transfers of one scenario.
enum class StreamMode {
  per_transfer,  // one stream per transfer (default)
  per_device,    // transfers issued by the same GPU share a stream
  only_one,      // one stream for everything (on the first transfer's GPU)
};
const char* to_string(StreamMode mode) noexcept;  // "per-transfer", "per-device", "only-one"

// How a sample of a scenario is timed.
enum class Timing {
  // Every stream is held by the gate until all copies are queued, then
  // released at once; the total runs from the release to the last end.
  gate,
  // nvbandwidth v0.8's order (its memcpy.cpp): after the release each
  // stream runs kNvbandwidthWarmups copies of its own; stream 0 then
  // records the start, which every other stream waits for before its
  // timed copies; the total runs from that start to the last end, and a
  // sample holds kNvbandwidthLoopCount copies unless the user fixes it.
  // Needs one stream per transfer.
  nvbandwidth,
};
constexpr int kNvbandwidthWarmups = 4;
constexpr int kNvbandwidthLoopCount = 16;

struct Scenario {
  std::vector<Transfer> transfers;
  StreamMode streams = StreamMode::per_transfer;
  Timing timing = Timing::gate;
};

// Short label for a location: "host", "host(numa1)", "gpu0".
std::string location_label(const Location& loc);

}  // namespace xb
