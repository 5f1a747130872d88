// The engines measured by kernels of their own and verified their own way:
// the TMA copy (Engine::tma), the read-only and the write-only memory
// kernels (Engine::sm_read, Engine::sm_write). Kept apart from measure.cpp,
// which only dispatches here.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "kernels/kernels.hpp"
#include "records/measure_options.hpp"
#include "memory/memory.hpp"
#include "base/model.hpp"
#include "kernels/sm_shape.hpp"

namespace xb {

// Engines handled by enqueue_dedicated (verify_dedicated: the last two).
inline bool is_dedicated_engine(Engine e) noexcept {
  return e == Engine::tma || e == Engine::sm_read || e == Engine::sm_write;
}

// Kernel configuration of a transfer on one of these engines:
//  - tma: the user's bulk --sm-config, else sm_shape's bulk copy for the
//    link as on sm_90 (its NVLink shape when that does not fit); throws
//    Error(usage) when no chunk fits the SM's shared memory;
//  - sm_read / sm_write: the user's vector --sm-config (a bulk one does not
//    apply), else bulk reads where they fit (reads only: TMA stores gave one
//    H200 SM no more than vector stores), else 4 blocks of 512 threads per
//    SM, 4 vectors in flight per thread.
SmCopyConfig dedicated_config(Engine e, const SmCopyConfig& user, SmCopySite site);

// The word pattern base a write-only kernel stores into `dst`.
std::uint32_t write_base(const Buffer& dst) noexcept;

// Queues `reps` passes of the transfer's kernel on `stream` of the current
// device. `sink` (device memory) receives the read-only kernel's
// conditional store.
void enqueue_dedicated(Engine e, Buffer* src, Buffer* dst, std::uint64_t bytes, const SmCopyConfig& cfg, int sm_count,
                  cudaStream_t stream, int reps, unsigned long long* sink);

// Gets dst ready before the timed region: a write-only destination must
// not already hold what the kernel writes.
void prepare_dedicated(Engine e, Buffer* dst, int device);

// After the timed region: a read-only transfer passes when the kernel's
// checksum of src equals the checksum of the pattern src was filled with
// (first_bad_offset is then 0: a checksum cannot say where); a write-only
// one when every byte of dst holds what the kernel writes (a TMA copy is
// verified as any copy, by the Measurer). `sm_count`: all of the GPU's SMs
// (the check runs at full width whatever the timed budget was).
Verification verify_dedicated(Engine e, Buffer* src, Buffer* dst, std::uint64_t bytes, const SmCopyConfig& cfg,
                         int sm_count, int device);

}  // namespace xb
