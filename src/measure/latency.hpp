// Latency by a dependent pointer chase: one GPU thread follows a ring of
// 8-byte pointers, one per 128-byte cache line, so every access waits for
// the previous one. Reported as nanoseconds per access, never derived from
// bytes / bandwidth.
//
// Rings in host or peer memory are 2 MiB with hops to the next line (those
// accesses are not kept in this GPU's caches). A ring in the GPU's own memory
// would sit in its L2, so it is kLocalChaseBytes with hops scattered over it
// (kernels.hpp launch_build_scattered_ring), and each chase continues where
// the last one stopped: every hop misses the L2 and reads device memory.
//
// A loaded latency measures the same chase twice: alone, then while copies
// (the load) keep the same link busy the whole time, and records what the
// load moved meanwhile, so a weak load cannot pass for a small slowdown.
#pragma once

#include <cstdint>
#include <vector>

#include "base/model.hpp"
#include "records/measure_options.hpp"

namespace xb {

class Measurer;

// Bytes of one pointer-chase ring in host or peer memory.
constexpr std::uint64_t kChaseBytes = 2ull << 20;
// Bytes of the ring in a GPU's own memory: at least four times the L2 of
// every GPU modelled (H100 50 MiB, H200 60 MiB, B200 126 MiB); rings of
// 64 MiB and more read device memory on H200 (bench/probes/local_latency_rings.cu).
constexpr std::uint64_t kLocalChaseBytes = 512ull << 20;

// Whether a chase by `gpu` through `target` walks the GPU's own memory
// (the large scattered ring).
inline bool is_local_chase(const Location& target, int gpu) { return !target.on_host() && target.device == gpu; }

// The ring a chase by `gpu` through `target` needs.
inline std::uint64_t chase_bytes(const Location& target, int gpu) {
  return is_local_chase(target, gpu) ? kLocalChaseBytes : kChaseBytes;
}

struct LatencySamples {
  std::vector<double> ns_per_access;  // one value per sample
  std::uint64_t accesses_per_sample = 0;
  std::uint64_t buffer_bytes = 0;
  std::uint64_t host_page_bytes = 0;  // the ring's page size when on huge pages, else 0
};

// How each hop reads its pointer: a plain dependent load, or a 16-byte
// bulk copy into shared memory through the Tensor Memory Accelerator
// (launch_tma_chase: the latency of one small TMA transfer, issue to
// arrival, as a chain where each copy's source comes from the last one).
enum class ChaseKind { load, tma };

// GPU `gpu` chases pointers that live at `target` (host memory, another
// GPU's memory or its own). Sampling follows the measurer's options
// (min/max samples, relative-error target, budget).
LatencySamples measure_latency(Measurer& measurer, int gpu, const Location& target, ChaseKind kind = ChaseKind::load);

struct LoadedLatencySamples {
  LatencySamples idle, loaded;
  // Per loaded sample: GB/s the load moved (all its copies together) over
  // the copies that ran while the chase did.
  std::vector<double> load_gbps;
  // Per load transfer: its data checked after the last sample.
  std::vector<Verification> load_verification;
  int load_copies = 0;  // copies queued per load transfer in the last sample
};

// The chase of measure_latency alone, then under `load`: copy-engine copies
// (Transfer::engine copy_engine), each on its own stream, repeated so that
// they run from before the chase starts until after it ends (checked on
// every sample from the events; a sample the load did not cover is taken
// again with more copies). Throws Error(usage) for a load that is not a
// copy-engine copy.
LoadedLatencySamples measure_loaded_latency(Measurer& measurer, int gpu, const Location& target,
                                            const std::vector<Transfer>& load);

}  // namespace xb
