// Host-side launchers for every kernel xferbench runs. Only kernels.cu is
// compiled by nvcc; everything else calls these functions.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

namespace xb {

// Launch shape of the SM copy kernel. Zero fields mean "choose".
//  - vector: every thread moves 16-byte vectors, `unroll` loads in flight;
//  - bulk (Hopper and later): one thread per block drives the SM's bulk
//    asynchronous copy unit (cp.async.bulk) through `stages` shared-memory
//    buffers of `chunk_kib` KiB each: global -> shared -> global.
struct SmCopyConfig {
  enum class Method { vector, bulk };
  Method method = Method::vector;
  int blocks_per_sm = 0;
  int threads = 0;   // per block (vector)
  int unroll = 0;    // 16-byte vectors in flight per thread: 1, 2, 4, 8 or 16 (vector)
  bool streaming = false;  // evict-first cache hints on loads and stores (vector)
  bool l2_256b = false;    // loads ask L2 for 256-byte blocks (vector)
  bool l2_only = false;    // loads and stores cached in L2 only, .cg (vector)
  int chunk_kib = 0;  // bulk
  int stages = 0;     // bulk: 2, 3 or 4
  // Each block reserves more than half an SM's shared memory, so no two
  // blocks share an SM and `sm_count` blocks run on that many SMs (the SM
  // budget of `sweep --sms`); implies one block per SM.
  bool one_block_per_sm = false;
};

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
void launch_chase(const void* buf, std::uint64_t steps, unsigned long long* sink, int blocks, int active_block,
                  cudaStream_t stream);

// Forces module loading for the current device so that lazy loading never
// happens inside a timed region or while another device waits on a gate.
void preload_kernels();

}  // namespace xb
