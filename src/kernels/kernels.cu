#include "kernels/kernels.hpp"

#include <algorithm>

#include "machine/cuda_check.hpp"
#include "base/error.hpp"
#include "base/pattern.hpp"

namespace xb {
namespace {

// Split-warp bidirectional copy (nvbandwidth's SM bidirectional host
// cases): 512-byte chunks alternate direction by warp parity, so one kernel
// moves half the bytes a -> b and half b -> a at the same time. Each warp
// loads U chunks before storing them, to keep both link directions busy.
// `reps` passes in one launch, as in sm_copy_kernel.
template <int U>
__global__ void __launch_bounds__(1024) split_copy_kernel(uint4* __restrict__ a, uint4* __restrict__ b,
                                                          std::uint64_t nchunks, std::uint32_t reps) {
  const unsigned lane = threadIdx.x % 32;
  const std::uint64_t warps = static_cast<std::uint64_t>(gridDim.x) * blockDim.x / 32;
  const std::uint64_t warp = (static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  // Pairs of chunks (2w, 2w+1) keep every warp moving both directions.
  for (std::uint32_t r = 0; r < reps; ++r) {
    for (std::uint64_t base = warp * 2 * U; base < nchunks; base += warps * 2 * U) {
      uint4 v[2 * U];
#pragma unroll
      for (int u = 0; u < 2 * U; ++u) {
        const std::uint64_t c = base + u;
        if (c < nchunks) v[u] = (c & 1) ? b[c * 32 + lane] : a[c * 32 + lane];
      }
#pragma unroll
      for (int u = 0; u < 2 * U; ++u) {
        const std::uint64_t c = base + u;
        if (c < nchunks) ((c & 1) ? a : b)[c * 32 + lane] = v[u];
      }
    }
  }
}

// The same split-warp copy in nvbandwidth's order: each thread owns one
// 16-byte vector and copies it `reps` times before its block ends, so at any
// moment only the resident blocks' few MiB of the buffers are touched and
// re-touched. On host buffers this keeps the host side's working set small
// (bench/probes/split_order_probe.cu: 42.4 GB/s per direction on each of two H200s
// at once, where whole-buffer passes give 36-37). Warp parity sets the
// direction, as in split_copy_kernel's 512-byte chunks.
__global__ void __launch_bounds__(1024) split_copy_in_place_kernel(uint4* __restrict__ a, uint4* __restrict__ b,
                                                                   std::uint64_t nvec, std::uint32_t reps) {
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= nvec) return;
  const bool a_to_b = ((i / 32) & 1) == 0;
  const uint4* src = a_to_b ? a : b;
  uint4* dst = a_to_b ? b : a;
  for (std::uint32_t r = 0; r < reps; ++r) __stcg(dst + i, __ldcg(src + i));
}

// Reads one 16-byte vector every `stride` bytes (stride 16: every byte) and
// folds what it read into *sink, so the loads cannot be dropped. Used to
// make managed pages migrate to the GPU on demand.
__global__ void touch_kernel(const uint4* buf, std::uint64_t count, std::uint64_t stride_vec,
                             unsigned long long* sink) {
  const std::uint64_t step = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  unsigned long long acc = 0;
  for (std::uint64_t k = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < count; k += step) {
    const uint4 v = buf[k * stride_vec];
    acc += static_cast<unsigned long long>(v.x ^ v.y) + (v.z ^ v.w);
  }
  if (acc == 0x5eed5eed5eedull) atomicXor(sink, acc);
}

// Overwrites every 512-byte chunk of the given parity with 0xff bytes.
__global__ void poison_chunks_kernel(uint4* buf, std::uint64_t nchunks, int parity) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < nchunks * 32;
       i += stride)
    if (static_cast<int>((i / 32) & 1) == parity) buf[i] = make_uint4(~0u, ~0u, ~0u, ~0u);
}

__global__ void fill_kernel(std::uint32_t* buf, std::uint64_t words, std::uint64_t bytes, std::uint64_t seed) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < words; i += stride)
    buf[i] = pattern_word(seed, i);
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    auto* bytes_ptr = reinterpret_cast<unsigned char*>(buf);
    for (std::uint64_t o = words * 4; o < bytes; ++o) bytes_ptr[o] = pattern_byte(seed, o);
  }
}

__global__ void verify_kernel(const std::uint32_t* buf, std::uint64_t words, std::uint64_t bytes,
                              std::uint64_t seed, unsigned long long* first_bad) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < words; i += stride) {
    const std::uint32_t got = buf[i];
    const std::uint32_t want = pattern_word(seed, i);
    if (got != want) {
      // Lowest differing byte inside the word (little endian).
      const std::uint32_t diff = got ^ want;
      const unsigned byte = static_cast<unsigned>(__ffs(static_cast<int>(diff)) - 1) / 8;
      atomicMin(first_bad, static_cast<unsigned long long>(i * 4 + byte));
    }
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    const auto* bytes_ptr = reinterpret_cast<const unsigned char*>(buf);
    for (std::uint64_t o = words * 4; o < bytes; ++o) {
      if (bytes_ptr[o] != pattern_byte(seed, o)) {
        atomicMin(first_bad, static_cast<unsigned long long>(o));
        break;
      }
    }
  }
}

__device__ __forceinline__ std::uint64_t global_timer_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void gate_kernel(const volatile int* release, int* timed_out, std::uint64_t timeout_ns) {
  const std::uint64_t start = global_timer_ns();
  while (*release == 0) {
    if (global_timer_ns() - start > timeout_ns) {
      *timed_out = 1;
      return;
    }
    __nanosleep(200);
  }
}

__global__ void chase_kernel(const void* start, std::uint64_t steps, unsigned long long* sink, int active_block,
                             bool resume) {
  if (static_cast<int>(blockIdx.x) != active_block) return;
  const void* p = resume && *sink != 0 ? reinterpret_cast<const void*>(*sink) : start;
  for (std::uint64_t s = 0; s < steps; ++s) {
    // A plain dependent load: host and peer memory are not kept in this
    // GPU's caches, so each hop pays the full link round trip.
    p = *reinterpret_cast<const void* const*>(p);
  }
  *sink = reinterpret_cast<unsigned long long>(p);
}

// Line i of the ring points to line (a * i + c) mod lines: with lines a
// power of two, c odd and a = 1 mod 4 that map is one cycle through every
// line (Hull-Dobell), and neighbouring hops land far apart.
__global__ void scattered_ring_kernel(std::uint64_t* ring, std::uint64_t lines) {
  constexpr std::uint64_t a = 0x9E3779B97F4A7C15ull, c = 0x632BE59BD9B4E019ull;
  constexpr std::uint64_t words_per_line = kRingLineBytes / sizeof(std::uint64_t);
  const auto base = reinterpret_cast<std::uint64_t>(ring);
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < lines;
       i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x)
    ring[i * words_per_line] = base + ((a * i + c) & (lines - 1)) * kRingLineBytes;
}

constexpr int kFillThreads = 512;

int fill_blocks(std::uint64_t words) {
  int dev = 0, sms = 0;
  XB_CUDA_CHECK(cudaGetDevice(&dev));
  XB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  const std::uint64_t needed = (words + kFillThreads - 1) / kFillThreads;
  return static_cast<int>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(needed, sms * 8ull)));
}

}  // namespace

void launch_split_copy(void* a, void* b, std::uint64_t bytes, const SmCopyConfig& cfg, int sm_count,
                       cudaStream_t stream, int reps) {
  if (reps < 1) fail(ErrorKind::internal, "split copy repetitions must be at least 1");
  const auto passes = static_cast<std::uint32_t>(reps);
  if (bytes % kSplitChunk != 0) fail(ErrorKind::usage, "split-warp copies need a multiple of 512 bytes");
  const std::uint64_t nchunks = bytes / kSplitChunk;
  // Default shape: the best of a sweep on H200 (bench/results/2026-11-21-h200x2.md).
  const int threads = cfg.threads > 0 ? cfg.threads : 128;
  const int per_sm = cfg.blocks_per_sm > 0 ? cfg.blocks_per_sm : 16;
  const std::uint64_t warps_needed = std::max<std::uint64_t>(1, nchunks / 2);
  const int blocks = static_cast<int>(std::min<std::uint64_t>(
      std::max<std::uint64_t>(1, warps_needed * 32 / threads), static_cast<std::uint64_t>(sm_count) * per_sm));
  auto* pa = static_cast<uint4*>(a);
  auto* pb = static_cast<uint4*>(b);
  switch (cfg.unroll > 0 ? cfg.unroll : 1) {
    case 1: split_copy_kernel<1><<<blocks, threads, 0, stream>>>(pa, pb, nchunks, passes); break;
    case 2: split_copy_kernel<2><<<blocks, threads, 0, stream>>>(pa, pb, nchunks, passes); break;
    case 4: split_copy_kernel<4><<<blocks, threads, 0, stream>>>(pa, pb, nchunks, passes); break;
    default: split_copy_kernel<8><<<blocks, threads, 0, stream>>>(pa, pb, nchunks, passes); break;
  }
  XB_CUDA_CHECK(cudaGetLastError());
}

void launch_split_copy_in_place(void* a, void* b, std::uint64_t bytes, cudaStream_t stream, int reps) {
  if (reps < 1) fail(ErrorKind::internal, "split copy repetitions must be at least 1");
  if (bytes % kSplitChunk != 0) fail(ErrorKind::usage, "split-warp copies need a multiple of 512 bytes");
  constexpr int kThreads = 1024;
  const std::uint64_t nvec = bytes / 16;
  const std::uint64_t blocks = (nvec + kThreads - 1) / kThreads;
  if (blocks > 0x7fffffffull) fail(ErrorKind::usage, "split-warp copy too large for one launch");
  split_copy_in_place_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(
      static_cast<uint4*>(a), static_cast<uint4*>(b), nvec, static_cast<std::uint32_t>(reps));
  XB_CUDA_CHECK(cudaGetLastError());
}

void launch_touch(const void* buf, std::uint64_t bytes, std::uint64_t stride, unsigned long long* sink,
                  cudaStream_t stream) {
  if (stride < 16 || stride % 16 != 0) fail(ErrorKind::internal, "touch stride must be a multiple of 16 bytes");
  const std::uint64_t count = bytes / stride;
  if (count == 0) return;
  touch_kernel<<<fill_blocks(count), kFillThreads, 0, stream>>>(static_cast<const uint4*>(buf), count, stride / 16,
                                                                 sink);
  XB_CUDA_CHECK(cudaGetLastError());
}

void launch_poison_chunks(void* buf, std::uint64_t bytes, int parity, cudaStream_t stream) {
  const std::uint64_t nchunks = bytes / kSplitChunk;
  poison_chunks_kernel<<<fill_blocks(nchunks * 32), kFillThreads, 0, stream>>>(static_cast<uint4*>(buf), nchunks,
                                                                                 parity);
  XB_CUDA_CHECK(cudaGetLastError());
}

void launch_fill_pattern(void* buf, std::uint64_t bytes, std::uint64_t seed, cudaStream_t stream) {
  const std::uint64_t words = bytes / 4;
  fill_kernel<<<fill_blocks(words), kFillThreads, 0, stream>>>(static_cast<std::uint32_t*>(buf), words, bytes, seed);
  XB_CUDA_CHECK(cudaGetLastError());
}

void launch_verify_pattern(const void* buf, std::uint64_t bytes, std::uint64_t seed,
                           unsigned long long* first_bad, cudaStream_t stream) {
  const std::uint64_t words = bytes / 4;
  verify_kernel<<<fill_blocks(words), kFillThreads, 0, stream>>>(static_cast<const std::uint32_t*>(buf), words,
                                                                 bytes, seed, first_bad);
  XB_CUDA_CHECK(cudaGetLastError());
}

void launch_gate(const volatile int* release, int* timed_out, std::uint64_t timeout_ns, cudaStream_t stream) {
  gate_kernel<<<1, 1, 0, stream>>>(release, timed_out, timeout_ns);
  XB_CUDA_CHECK(cudaGetLastError());
}

void launch_chase(const void* buf, std::uint64_t steps, unsigned long long* sink, int blocks, int active_block,
                  cudaStream_t stream, bool resume) {
  chase_kernel<<<blocks, 1, 0, stream>>>(buf, steps, sink, active_block, resume);
  XB_CUDA_CHECK(cudaGetLastError());
}

void launch_build_scattered_ring(void* buf, std::uint64_t lines, cudaStream_t stream) {
  if (lines == 0 || (lines & (lines - 1)) != 0) fail(ErrorKind::internal, "a scattered ring needs a power-of-two line count");
  const auto blocks = static_cast<unsigned>(std::min<std::uint64_t>((lines + 255) / 256, 65535));
  scattered_ring_kernel<<<blocks, 256, 0, stream>>>(static_cast<std::uint64_t*>(buf), lines);
  XB_CUDA_CHECK(cudaGetLastError());
}

void preload_kernels() {
  load_kernels(fill_kernel, verify_kernel, gate_kernel, chase_kernel, scattered_ring_kernel, split_copy_kernel<1>,
               split_copy_kernel<2>, split_copy_kernel<4>, split_copy_kernel<8>, split_copy_in_place_kernel,
               touch_kernel, poison_chunks_kernel);
  preload_sm_kernels();
}

}  // namespace xb
