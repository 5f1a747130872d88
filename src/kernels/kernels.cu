#include "kernels/kernels.hpp"

#include <algorithm>

#include "machine/cuda_check.hpp"
#include "base/error.hpp"
#include "base/pattern.hpp"

namespace xb {
namespace {

// Cache hints of the vector kernel: 0 none, 1 evict-first (streaming),
// 2 ask L2 to fetch 256-byte blocks (larger link read requests), 3 cache
// in L2 only (.cg).
template <int Hint>
__device__ __forceinline__ uint4 load16(const uint4* p) {
  if constexpr (Hint == 1) return __ldcs(p);
  if constexpr (Hint == 3) return __ldcg(p);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (Hint == 2) {
    uint4 v;
    asm volatile("ld.global.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
    return v;
  }
#endif
  return *p;
}

template <int Hint>
__device__ __forceinline__ void store16(uint4* p, const uint4& v) {
  if constexpr (Hint == 1) {
    __stcs(p, v);
  } else if constexpr (Hint == 3) {
    __stcg(p, v);
  } else {
    *p = v;
  }
}

// Grid-stride copy of 16-byte vectors: consecutive threads touch consecutive
// vectors (coalesced), and each thread keeps U independent loads in flight
// before its first store so that long-latency links (PCIe, NVLink) stay busy.
// The whole copy is done `reps` times in one launch: a thread starts its next
// pass as soon as its own part of the last one is stored, so the link never
// drains between copies the way it does between kernel launches.
template <int U, int Hint>
__global__ void __launch_bounds__(1024) sm_copy_kernel(uint4* __restrict__ dst, const uint4* __restrict__ src,
                                                       std::uint64_t nvec, unsigned char* __restrict__ dst_tail,
                                                       const unsigned char* __restrict__ src_tail, int tail,
                                                       std::uint32_t reps) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  const std::uint64_t first = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (std::uint32_t r = 0; r < reps; ++r) {
    std::uint64_t i = first;
    for (; i + (U - 1) * stride < nvec; i += U * stride) {
      uint4 v[U];
#pragma unroll
      for (int u = 0; u < U; ++u) v[u] = load16<Hint>(src + i + u * stride);
#pragma unroll
      for (int u = 0; u < U; ++u) store16<Hint>(dst + i + u * stride, v[u]);
    }
    for (; i < nvec; i += stride) store16<Hint>(dst + i, load16<Hint>(src + i));
    if (blockIdx.x == 0 && static_cast<int>(threadIdx.x) < tail) dst_tail[threadIdx.x] = src_tail[threadIdx.x];
  }
}

// Bulk copy: thread 0 of each block streams chunks global -> shared -> global
// with cp.async.bulk, `Stages` chunks in flight, completion of each load
// tracked by an mbarrier (transaction bytes). Chunks are dealt round-robin
// over blocks; `reps` passes over the buffer run as one pipelined sequence
// (chunk k of the sequence is chunk k mod mine of this block). Needs sm_90;
// elsewhere it traps (the host never launches it there: launch_sm_copy
// falls back to the vector kernel).
template <int Stages>
__global__ void __launch_bounds__(32) bulk_copy_kernel(char* dst, const char* src, std::uint64_t nchunks,
                                                       std::uint32_t chunk, std::uint32_t reps) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  extern __shared__ __align__(128) unsigned char stage_mem[];
  __shared__ __align__(8) std::uint64_t bars[Stages];
  auto smem_addr = [](const void* p) { return static_cast<std::uint32_t>(__cvta_generic_to_shared(p)); };
  if (threadIdx.x != 0) return;
  for (int s = 0; s < Stages; ++s)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&bars[s])));
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  const std::uint64_t first = blockIdx.x, stride = gridDim.x;
  const std::uint64_t mine = first < nchunks ? (nchunks - first + stride - 1) / stride : 0;
  const std::uint64_t total = mine * reps;
  auto offset = [&](std::uint64_t k) { return (first + (k % mine) * stride) * chunk; };
  auto load = [&](std::uint64_t k) {
    const int s = static_cast<int>(k % Stages);
    const std::uint32_t bar = smem_addr(&bars[s]);
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(chunk) : "memory");
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
            smem_addr(stage_mem + static_cast<std::size_t>(s) * chunk)),
        "l"(src + offset(k)), "r"(chunk), "r"(bar)
        : "memory");
  };
  for (std::uint64_t k = 0; k < total && k < Stages; ++k) load(k);
  for (std::uint64_t k = 0; k < total; ++k) {
    const int s = static_cast<int>(k % Stages);
    const std::uint32_t parity = static_cast<std::uint32_t>((k / Stages) & 1);
    std::uint32_t done = 0;
    while (!done) {
      asm volatile(
          "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
          : "=r"(done)
          : "r"(smem_addr(&bars[s])), "r"(parity)
          : "memory");
    }
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst + offset(k)),
                 "r"(smem_addr(stage_mem + static_cast<std::size_t>(s) * chunk)), "r"(chunk)
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    if (k + Stages < total) {
      // The store must have read this stage before the next load fills it.
      asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
      load(k + Stages);
    }
  }
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
#else
  __trap();
#endif
}

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
// (bench/split_order_probe.cu: 42.4 GB/s per direction on each of two H200s
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

__global__ void chase_kernel(const void* start, std::uint64_t steps, unsigned long long* sink, int active_block) {
  if (static_cast<int>(blockIdx.x) != active_block) return;
  const void* p = start;
  for (std::uint64_t s = 0; s < steps; ++s) {
    // A plain dependent load: host and peer memory are not kept in this
    // GPU's caches, so each hop pays the full link round trip.
    p = *reinterpret_cast<const void* const*>(p);
  }
  *sink = reinterpret_cast<unsigned long long>(p);
}

constexpr int kFillThreads = 512;

int fill_blocks(std::uint64_t words) {
  int dev = 0, sms = 0;
  XB_CUDA_CHECK(cudaGetDevice(&dev));
  XB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  const std::uint64_t needed = (words + kFillThreads - 1) / kFillThreads;
  return static_cast<int>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(needed, sms * 8ull)));
}

// Arguments of one vector-kernel launch.
struct VectorCopy {
  uint4* dst;
  const uint4* src;
  std::uint64_t nvec;
  unsigned char* dst_tail;
  const unsigned char* src_tail;
  int tail;
  std::uint32_t reps;
  int smem;  // dynamic shared memory per block: only to keep blocks on distinct SMs
};

template <int U, int S>
void launch_copy_variant(int blocks, int threads, cudaStream_t stream, const VectorCopy& a) {
  if (a.smem > 0)
    XB_CUDA_CHECK(cudaFuncSetAttribute(sm_copy_kernel<U, S>, cudaFuncAttributeMaxDynamicSharedMemorySize, a.smem));
  sm_copy_kernel<U, S><<<blocks, threads, a.smem, stream>>>(a.dst, a.src, a.nvec, a.dst_tail, a.src_tail, a.tail, a.reps);
}

template <int S>
void launch_copy_unroll(int unroll, int blocks, int threads, cudaStream_t stream, const VectorCopy& a) {
  switch (unroll) {
    case 1: launch_copy_variant<1, S>(blocks, threads, stream, a); break;
    case 2: launch_copy_variant<2, S>(blocks, threads, stream, a); break;
    case 4: launch_copy_variant<4, S>(blocks, threads, stream, a); break;
    case 8: launch_copy_variant<8, S>(blocks, threads, stream, a); break;
    case 16: launch_copy_variant<16, S>(blocks, threads, stream, a); break;
    default: fail(ErrorKind::usage, "sm copy unroll must be 1, 2, 4, 8 or 16");
  }
}

template <int S>
void launch_bulk_variant(int blocks, std::uint32_t chunk, cudaStream_t stream, char* dst, const char* src,
                         std::uint64_t nchunks, std::uint32_t reps, bool exclusive) {
  const std::size_t smem = std::max<std::size_t>(static_cast<std::size_t>(S) * chunk,
                                                 exclusive ? static_cast<std::size_t>(exclusive_sm_smem_bytes()) : 0);
  XB_CUDA_CHECK(cudaFuncSetAttribute(bulk_copy_kernel<S>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(smem)));
  bulk_copy_kernel<S><<<blocks, 32, smem, stream>>>(dst, src, nchunks, chunk, reps);
}

}  // namespace

void launch_sm_copy(void* dst, const void* src, std::uint64_t bytes, const SmCopyConfig& cfg, int sm_count,
                    cudaStream_t stream, int reps) {
  if (reps < 1) fail(ErrorKind::internal, "sm copy repetitions must be at least 1");
  const auto passes = static_cast<std::uint32_t>(reps);
  if (cfg.method == SmCopyConfig::Method::bulk && tma_supported()) {
    const std::uint32_t chunk = static_cast<std::uint32_t>((cfg.chunk_kib > 0 ? cfg.chunk_kib : 32) * 1024);
    const std::uint64_t nchunks = bytes / chunk;
    const int per_sm = cfg.one_block_per_sm ? 1 : (cfg.blocks_per_sm > 0 ? cfg.blocks_per_sm : 1);
    const int blocks = static_cast<int>(std::max<std::uint64_t>(
        1, std::min<std::uint64_t>(nchunks, static_cast<std::uint64_t>(sm_count) * per_sm)));
    auto* d = static_cast<char*>(dst);
    const auto* s = static_cast<const char*>(src);
    if (nchunks > 0) {
      switch (cfg.stages > 0 ? cfg.stages : 3) {
        case 2: launch_bulk_variant<2>(blocks, chunk, stream, d, s, nchunks, passes, cfg.one_block_per_sm); break;
        case 3: launch_bulk_variant<3>(blocks, chunk, stream, d, s, nchunks, passes, cfg.one_block_per_sm); break;
        case 4: launch_bulk_variant<4>(blocks, chunk, stream, d, s, nchunks, passes, cfg.one_block_per_sm); break;
        default: fail(ErrorKind::usage, "bulk copy stages must be 2, 3 or 4");
      }
      XB_CUDA_CHECK(cudaGetLastError());
    }
    const std::uint64_t done = nchunks * chunk;
    if (done == bytes) return;
    SmCopyConfig rest;  // the remainder that does not fill a chunk
    rest.one_block_per_sm = cfg.one_block_per_sm;
    launch_sm_copy(d + done, s + done, bytes - done, rest, sm_count, stream, reps);
    return;
  }
  if ((reinterpret_cast<std::uintptr_t>(dst) | reinterpret_cast<std::uintptr_t>(src)) % 16 != 0)
    fail(ErrorKind::internal, "sm copy needs 16-byte aligned buffers");
  const std::uint64_t nvec = bytes / 16;
  const int tail = static_cast<int>(bytes % 16);
  const int threads = cfg.threads > 0 ? cfg.threads : 512;
  const int unroll = cfg.unroll > 0 ? cfg.unroll : 4;
  const int per_sm = cfg.one_block_per_sm ? 1 : (cfg.blocks_per_sm > 0 ? cfg.blocks_per_sm : 2);
  const std::uint64_t needed = std::max<std::uint64_t>(1, (nvec + threads - 1) / threads);
  const int blocks = static_cast<int>(std::min<std::uint64_t>(needed, static_cast<std::uint64_t>(sm_count) * per_sm));
  const VectorCopy args{static_cast<uint4*>(dst), static_cast<const uint4*>(src), nvec,
                        static_cast<unsigned char*>(dst) + nvec * 16, static_cast<const unsigned char*>(src) + nvec * 16,
                        tail, passes, cfg.one_block_per_sm ? exclusive_sm_smem_bytes() : 0};
  if (cfg.l2_only) {
    launch_copy_unroll<3>(unroll, blocks, threads, stream, args);
  } else if (cfg.l2_256b) {
    launch_copy_unroll<2>(unroll, blocks, threads, stream, args);
  } else if (cfg.streaming) {
    launch_copy_unroll<1>(unroll, blocks, threads, stream, args);
  } else {
    launch_copy_unroll<0>(unroll, blocks, threads, stream, args);
  }
  XB_CUDA_CHECK(cudaGetLastError());
}

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
                  cudaStream_t stream) {
  chase_kernel<<<blocks, 1, 0, stream>>>(buf, steps, sink, active_block);
  XB_CUDA_CHECK(cudaGetLastError());
}

void preload_kernels() {
  load_kernels(fill_kernel, verify_kernel, gate_kernel, chase_kernel, sm_copy_kernel<1, 0>, sm_copy_kernel<2, 0>,
               sm_copy_kernel<4, 0>, sm_copy_kernel<8, 0>, sm_copy_kernel<4, 1>, sm_copy_kernel<4, 2>,
               sm_copy_kernel<4, 3>, split_copy_kernel<1>, split_copy_kernel<2>, split_copy_kernel<4>,
               split_copy_kernel<8>, split_copy_in_place_kernel, touch_kernel, poison_chunks_kernel,
               bulk_copy_kernel<2>, bulk_copy_kernel<3>, bulk_copy_kernel<4>);
  preload_tma_kernels();
}

}  // namespace xb
