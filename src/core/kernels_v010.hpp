// Launchers for the kernels of nvbandwidth v0.9/v0.10-style cases
// (kernels_tma.cu): the Tensor Memory Accelerator copy and pointer chase,
// and the read-only and write-only memory kernels. Host code calls only
// these functions; kernels.hpp holds the older copy kernels.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "core/kernels.hpp"

namespace xb {

// True when the current device has a Tensor Memory Accelerator (sm_90+).
bool tma_supported();

// Dynamic shared memory that keeps a second block of any kernel off an SM
// that already runs one (more than half of the SM's shared memory), so N
// blocks occupy N distinct SMs: the SM budget of `sweep --sms`.
int exclusive_sm_smem_bytes();

// A copy through the TMA: the bulk copy kernel of launch_sm_copy with its
// configuration (cfg.method must be bulk). Unlike launch_sm_copy it never
// falls back to another kernel: on a GPU without a TMA it throws
// Error(usage) (cases are waived before they get here).
void launch_tma_copy(void* dst, const void* src, std::uint64_t bytes, const SmCopyConfig& cfg, int sm_count,
                     cudaStream_t stream, int reps = 1);

// The TMA latency chain: one thread copies 16 bytes (the smallest bulk
// copy) from the ring slot it points at into shared memory with
// cp.async.bulk, waits for the copy's mbarrier, and takes the next address
// from what arrived, `steps` times; the last address goes to *sink. Blocks
// and active_block as launch_chase. Needs sm_90 (throws otherwise) and a
// ring whose slots are 16-byte aligned.
void launch_tma_chase(const void* buf, std::uint64_t steps, unsigned long long* sink, int blocks, int active_block,
                      cudaStream_t stream);

// Read-only kernel: every byte of src is loaded (16-byte vectors, `unroll`
// in flight per thread, grid-stride; the trailing bytes by one thread) and
// folded into a per-thread XOR checksum. With check = false a thread
// stores its checksum to *out only if it equals `sentinel` (a value the
// compiler cannot know), so no load can be optimised away and almost
// nothing is written; with check = true every thread XORs its checksum into
// *out (preset to 0), giving read_checksum of the buffer. Shape from cfg
// (vector fields; zero: 4 blocks of 512 threads per SM, unroll 4).
void launch_read_only(const void* src, std::uint64_t bytes, const SmCopyConfig& cfg, int sm_count, bool check,
                      unsigned long long* out, unsigned long long sentinel, cudaStream_t stream, int reps = 1);

// Checksum of pattern(seed) over `bytes`, computed from the pattern
// function without reading memory, into *out (preset to 0): what
// launch_read_only(check = true) must produce on a buffer filled with it.
// The checksum XORs word i (little endian, partial last word from its
// bytes) into the low 32 bits for even i and into the high 32 bits for odd i.
void launch_pattern_checksum(std::uint64_t bytes, std::uint64_t seed, unsigned long long* out, cudaStream_t stream);

// Write-only kernel: stores word i = base ^ i (32-bit) over `bytes`, the
// trailing partial word as its low bytes; no loads. Shape as launch_read_only.
void launch_write_only(void* dst, std::uint64_t bytes, std::uint32_t base, const SmCopyConfig& cfg, int sm_count,
                       cudaStream_t stream, int reps = 1);

// Lowest byte offset where dst differs from what launch_write_only(base)
// stores, into *first_bad (preset to UINT64_MAX).
void launch_verify_written(const void* dst, std::uint64_t bytes, std::uint32_t base, unsigned long long* first_bad,
                           cudaStream_t stream);

// Loads the kernels above on the current device (see preload_kernels).
void preload_v010_kernels();

}  // namespace xb
