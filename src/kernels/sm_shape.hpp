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
};

// Defaults, from the H200 sweeps in bench/results/:
//  - GPU <-> GPU over NVLink on sm_90 and later: the bulk asynchronous copy,
//    3 stages, one block per SM, with the largest chunk of 64, 32 or 16 KiB
//    at which one block of every SM copy sharing the GPU fits in an SM's
//    shared memory (each block also takes 1 KiB the driver reserves), so
//    concurrent copies really run together. On an H200 (228 KiB): 64 KiB
//    alone, 32 for two, 16 for three or four. When not even 16 KiB fits,
//    the vector kernel.
//  - everything else (PCIe, local memory): the vector kernel, one 512-thread
//    block per SM, 4 loads in flight per thread, no cache hints (one block
//    per SM leaves room for a second copy kernel on the same GPU).
// A bulk configuration from the user is taken as given; vector fields the
// user set override the vector default and select the vector kernel.
SmCopyConfig choose_sm_config(const SmCopyConfig& user, const SmCopySite& site);

// True when the user set any field of `c` (a default-constructed config
// means "choose").
bool sm_config_given(const SmCopyConfig& c) noexcept;

}  // namespace xb
