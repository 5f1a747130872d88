// Host-side launchers for every kernel xferbench runs. Only kernels.cu is
// compiled by nvcc; everything else calls these functions.
#pragma once

#include <cstdint>
#include <initializer_list>

#include <cuda_runtime_api.h>

#include "kernels/sm_copy_config.hpp"
#include "machine/cuda_check.hpp"

namespace xb {

// Copies `bytes` from src to dst with the SMs of the current device; both
// pointers must be device-accessible and 16-byte aligned. Tail bytes that do
// not fill a 16-byte vector are copied too. The copy is done `reps` times by
// one kernel launch (reps launches would add a launch gap and a drain of the
// link per copy).
void launch_sm_copy(void* dst, const void* src, std::uint64_t bytes, const SmCopyConfig& cfg, int sm_count,
                    cudaStream_t stream, int reps = 1);

// Split-warp bidirectional copy between two device-accessible buffers of
// `bytes` (a multiple of kSplitChunk): even 512-byte chunks go a -> b, odd
// chunks b -> a, in one kernel on the current device.
constexpr std::uint64_t kSplitChunk = 512;
// Launch shape from cfg (blocks_per_sm, threads, unroll = chunk pairs per
// warp in flight); zero fields choose 16 x 128 threads per SM, unroll 1.
// `reps` passes in one launch, as launch_sm_copy.
void launch_split_copy(void* a, void* b, std::uint64_t bytes, const SmCopyConfig& cfg, int sm_count,
                       cudaStream_t stream, int reps = 1);
// The same split (even 512-byte chunks a -> b, odd chunks b -> a) in
// nvbandwidth's order: every 16-byte vector is copied `reps` times before
// the next part of the buffer is touched, instead of `reps` whole-buffer
// passes. It measures the link with a small working set on each side.
void launch_split_copy_in_place(void* a, void* b, std::uint64_t bytes, cudaStream_t stream, int reps = 1);
// Overwrites the chunks of one parity (0 even, 1 odd) with 0xff bytes, so a
// split-warp copy must restore them.
void launch_poison_chunks(void* buf, std::uint64_t bytes, int parity, cudaStream_t stream);

// Reads one 16-byte vector every `stride` bytes of `buf` (16: every byte)
// from all SMs at once; the values are folded into *sink so the loads stay.
void launch_touch(const void* buf, std::uint64_t bytes, std::uint64_t stride, unsigned long long* sink,
                  cudaStream_t stream);

// Fills a device-accessible buffer with pattern(seed).
void launch_fill_pattern(void* buf, std::uint64_t bytes, std::uint64_t seed, cudaStream_t stream);

// Compares a device-accessible buffer with pattern(seed); *first_bad (device-
// accessible, preset to UINT64_MAX by the caller) receives the lowest byte
// offset that differs.
void launch_verify_pattern(const void* buf, std::uint64_t bytes, std::uint64_t seed,
                           unsigned long long* first_bad, cudaStream_t stream);

// The gate: a one-thread kernel that holds `stream` until *release becomes
// non-zero (host-mapped memory written by the host once every copy of a
// sample is queued), so enqueue overhead never lands inside the timed region.
// It gives up after timeout_ns (read from %globaltimer) and then sets
// *timed_out = 1, which the caller reports as an error: a sample whose copies
// started before everything was queued is never reported as valid.
void launch_gate(const volatile int* release, int* timed_out, std::uint64_t timeout_ns, cudaStream_t stream);

// One thread follows a ring of pointers (each 8-byte slot holds the address
// of the next slot) for `steps` dependent loads; the final pointer is stored
// in *sink so the chain cannot be optimised away. `blocks` one-thread blocks
// are launched (one per SM) and only `active_block` works: stepping it over
// every SM averages out each SM's distance to the link.
// With `resume`, the chase starts where the last one stopped (*sink, when
// not 0), so a ring far larger than the caches is walked without revisiting
// lines between launches.
void launch_chase(const void* buf, std::uint64_t steps, unsigned long long* sink, int blocks, int active_block,
                  cudaStream_t stream, bool resume = false);

// Bytes between the slots of a scattered ring: one 128-byte cache line each.
inline constexpr std::uint64_t kRingLineBytes = 128;
// Writes a ring for launch_chase over `lines` cache lines of device memory
// (a power of two): each line's first slot points to a line far away, and
// the hops visit every line once per turn, so no cache or DRAM page
// locality helps a chase through more lines than the L2 holds.
void launch_build_scattered_ring(void* buf, std::uint64_t lines, cudaStream_t stream);

// Forces module loading for the current device so that lazy loading never
// happens inside a timed region or while another device waits on a gate.
void preload_kernels();

// SM pinning, the SM budget of `sweep --sms`. The SM copy, TMA copy,
// read-only and write-only kernels below (sm_kernels.cu), given an sm_count
// below the GPU's SM count, run their usual blocks per SM on exactly
// sm_count SMs spread evenly over the GPU's SM ids: the launch is
// cooperative, with shared memory sized so that exactly that many blocks
// fit on every SM; each block reads its SM's id (%smid), and the blocks of
// the SMs not chosen return at once. prepare_sm_pinning(n) must have run on
// the current device first (it launches a census kernel and copies, so
// never call it inside a timed region). One pinned kernel at a time per GPU.
void prepare_sm_pinning(int sm_count);

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
// (vector fields; zero: 4 blocks of 512 threads per SM, unroll 4). A bulk
// cfg reads without check through the TMA instead: whole chunks land in
// shared memory (nothing to fold), the rest goes through the vector kernel.
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

// Loads the kernels of sm_kernels.cu on the current device (see preload_kernels).
void preload_sm_kernels();

// What the two preload functions do for each of their kernels: asking for
// its attributes loads its module on the current device.
template <class... Kernel>
void load_kernels(Kernel*... kernels) {
  cudaFuncAttributes attr{};
  for (const void* k : {reinterpret_cast<const void*>(kernels)...}) XB_CUDA_CHECK(cudaFuncGetAttributes(&attr, k));
}

}  // namespace xb
