// Which SM copy kernel, and which launch shape, a transfer gets when the
// user did not choose one (--sm-config). Pure function; no CUDA.
#pragma once

#include "kernels/sm_copy_config.hpp"

namespace xb {

struct SmCopySite {
  bool nvlink_peer = false;          // device memory of one GPU <-> device memory of another, over NVLink
  int cc_major = 0;                  // of the executing GPU
  int shared_memory_per_sm_kib = 0;  // of the executing GPU; 0: unknown
  int sm_copies_on_gpu = 1;          // SM copy kernels of the same scenario on the executing GPU
  bool migrating = false;            // managed or pageable memory on a side: pages move on demand
  bool to_host = false;              // GPU memory -> host memory
  bool nvbandwidth_kernel = false;   // measured nvbandwidth's way with its kernel (Transfer::nvbandwidth_kernel)
};

// Defaults, from the H200 sweeps in bench/results/:
//  - on sm_90 and later, unless a side's pages migrate: the bulk
//    asynchronous copy (TMA), 3 stages, if every SM copy sharing the GPU
//    fits an SM's shared memory (each block also takes 1 KiB the driver
//    reserves), so concurrent copies really run together. GPU <-> GPU over
//    NVLink: one block per SM, the largest chunk of 64, 32 or 16 KiB that
//    fits (H200, 228 KiB: 64 alone, 32 for two, 16 for three or four).
//    Other links: two blocks per SM of 32 KiB; one H200 SM moves 42 GB/s
//    host -> GPU where the vector kernel moves 15, and 64 SMs copy local
//    memory at 95% of all SMs, the vector kernel at 76%
//    (bench/results/2026-11-25-h200-sm-pinning). GPU -> host: two blocks
//    per SM of 4 x 16 KiB, 5% more from one SM than 3 x 32 KiB in each of
//    three rounds (bench/results/2026-11-25-h200-limits);
//  - otherwise the vector kernel, one 512-thread block per SM, 4 loads in
//    flight per thread, no cache hints.
// A site measured nvbandwidth's way with its kernel gets that kernel
// (nvbandwidth_sm_config) unless the user chose one.
SmCopyConfig choose_sm_config(const SmCopyConfig& user, const SmCopySite& site);

// nvbandwidth v0.8's striding copy kernel: one block of 512 threads per
// SM, each thread 12 16-byte vectors in flight.
SmCopyConfig nvbandwidth_sm_config();

// True when the user set any field of `c` (a default-constructed config
// means "choose").
bool sm_config_given(const SmCopyConfig& c) noexcept;

}  // namespace xb
