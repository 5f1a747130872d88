// Probe for the GPU paths at the hardware limit: how much of each SM an SM copy kernel shape uses.
//
// For five transfers (HBM read, HBM write, HBM copy on one GPU, host->GPU
// and GPU->host through pinned host memory), many kernel shapes and a list
// of SM counts, it times 5 launches over one buffer (after one warm-up) and
// prints one CSV row per (op, shape, SMs) with the median GB/s. A copy counts
// its bytes once, as nvbandwidth's memcpy figures do.
//
// Shapes:
//   xb         xferbench's kernel loop as `sweep --sms` runs it (main at
//              3acd43e): 512 threads, 4 vectors in flight, one block per SM,
//              launch bounds (1024, 1), loads through ld.global.nc (what
//              nvcc makes of xferbench's const __restrict__ source); the
//              write loop checks every element against the end as
//              write_only_kernel does.
//   xb_named   read and write only, one row: the named case's launch (4
//              blocks of 512 per SM, no SM pinning). For the copies the named
//              case is xb's `plain` row.
//   grid_uU    grid-stride over 16-byte vectors, U independent loads per
//              thread before the stores; suffixes: _nc (ld.global.nc),
//              _nc256 (.nc, no L1 allocation, L2 256-byte prefetch), _cs
//              (evict-first loads and stores, __ldcs/__stcs).
//   chunk_uU   each block owns one contiguous slice of the buffer and walks
//              it with all its threads, U loads in flight per thread.
//   bulk_sS_cC the bulk asynchronous copy (TMA, cp.async.bulk): thread 0 of a
//              32-thread block keeps S chunks of C KiB in flight through
//              shared memory, chunks dealt round-robin over blocks (the
//              pipeline of xferbench's bulk_copy_kernel; bulk_s3_c64 with one
//              block per SM is its TMA shape). The read variant only loads
//              into shared memory (nothing to sum, so not verified).
//   mixV_sS_cC read through the bulk copy unit (S chunks of C KiB, thread 0)
//              and vector loads (warps 1-15) at once, V of every 8 chunks
//              by the vector warps.
//   bulkpfA_sS_cC  bulk, and each chunk load first asks for the chunk A
//              chunks later to be prefetched from HBM into L2
//              (cp.async.bulk.prefetch.L2), so more of the block's bytes
//              are on their way than its shared memory holds (read, copy).
//
// SM pinning (launch=pinned): dynamic shared memory is sized so that exactly
// blocks_per_sm blocks fit on an SM (checked with the occupancy API), and a
// cooperative launch puts that many on every SM. Each block then claims its
// SM by %smid: the first `sms` SMs to arrive do the work, B blocks each, and
// the blocks on the other SMs exit at once. So `sms` is the number of SMs
// that move bytes, whatever order the block scheduler uses. A shape whose
// registers do not let B blocks share an SM gets a NOFIT row.
// launch=plain: one row at all SMs, an ordinary launch of SMs x B blocks
// without the shared-memory reservation (what a named case does).
// --pick: which SMs work in a pinned row: `arrival` (default) the first
// SMs to start a block; `low` the lowest %smid; `spread` SM ids spread
// evenly over the sorted ids (a census kernel, one block per SM, finds them).
//   bulkw_sS_cC (write only): the block's 32 threads compute each chunk of
//              the write pattern in shared memory and thread 0 stores it with
//              cp.async.bulk (shared -> global), S chunks in flight.
//
// Verification after the timed launches: copies and writes check every
// word of the destination on the GPU (the destination is poisoned before
// each row, and each write row writes a new pattern); vector reads check the
// sum of the per-block results against the sum of the source's words
// computed on the CPU. verified: ok, FAIL, na (bulk read), NOFIT.
//
// --passes N: each launch walks the buffer N times (N x the bytes), so the
// launch's own cost weighs less where a pass is short (all SMs on HBM).
//
// Build: nvcc -O3 -arch=sm_90 -std=c++17 bench/probes/sm_kernel_shapes.cu -o sm_kernel_shapes
// Usage: sm_kernel_shapes [--mib 512] [--ops h2d,d2h,read,write,copy]
//          [--sms 1,2,4,8,16,32,64,96,all] [--only SUBSTRING] [--budget-s 170]
//          [--passes 1] [--pick arrival|low|spread] [--list]
// CSV on stdout (op,shape,threads,blocks_per_sm,sms,gbps,verified,launch),
// progress and warnings on stderr.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CK(x)                                                                                             \
  do {                                                                                                    \
    cudaError_t e_ = (x);                                                                                 \
    if (e_ != cudaSuccess) {                                                                              \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));             \
      std::exit(1);                                                                                       \
    }                                                                                                     \
  } while (0)

namespace {

enum class Op { read, write, copy };     // what the kernel does
enum class Loop { grid, checked, chunk };  // how a block walks the buffer
enum class Ld { plain, nc, cs, nc256 };
enum class St { plain, cs };

constexpr std::uint32_t kMaxSmId = 1024;  // bound on %smid
constexpr std::uint32_t kSeed = 0x5eed1234u;
constexpr std::uint32_t kPoison = 0xa5a5a5a5u;
constexpr int kMaxOut = 4096;  // per-block read results

// Per-launch SM claims of the pinned mode; zeroed before every launch.
struct Claim {
  std::uint32_t next;                // SMs claimed so far
  std::uint32_t local[kMaxSmId];     // blocks seen on each SM
  std::uint32_t rank1[kMaxSmId];     // 1 + rank of each SM, 0 until known
  std::int32_t chosen[kMaxSmId];     // --pick low/spread: rank of each SM, -1 not chosen
};

struct Args {
  const uint4* src;
  uint4* dst;
  std::uint64_t nvec;  // 16-byte vectors to move
  std::uint32_t* out;  // read: one sum per logical block
  Claim* claim;
  std::uint32_t base;   // write: word i becomes base ^ i
  std::uint32_t chunk;  // bulk: bytes per chunk
  int sms;              // pinned: SMs that work
  int per_sm;           // pinned: blocks per SM
  int pinned;
  int pick;    // 0: the first SMs to arrive; 1: by the chosen[] table
  int passes;  // walks over the buffer per launch
};

__host__ __device__ inline std::uint32_t pattern(std::uint32_t seed, std::uint64_t i) {
  std::uint64_t x = i * 0x9E3779B97F4A7C15ull + seed;
  x ^= x >> 29;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 32;
  return static_cast<std::uint32_t>(x);
}

// Vector k of a buffer: words 4k..4k+3 of the seeded pattern, or
// (indexed) seed ^ word index.
__host__ __device__ inline uint4 expected(bool indexed, std::uint32_t seed, std::uint64_t k) {
  if (indexed) {
    const std::uint32_t w = seed ^ static_cast<std::uint32_t>(4 * k);
    return make_uint4(w, w ^ 1u, w ^ 2u, w ^ 3u);
  }
  return make_uint4(pattern(seed, 4 * k), pattern(seed, 4 * k + 1), pattern(seed, 4 * k + 2), pattern(seed, 4 * k + 3));
}

__device__ __forceinline__ std::uint32_t fold(const uint4& v) { return v.x + v.y + v.z + v.w; }

template <Ld L>
__device__ __forceinline__ uint4 load16(const uint4* p) {
  if constexpr (L == Ld::nc) {
    return __ldg(p);
  } else if constexpr (L == Ld::cs) {
    return __ldcs(p);
  } else if constexpr (L == Ld::nc256) {
    uint4 v;
    asm("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
        : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
        : "l"(p));
    return v;
  } else {
    return *p;
  }
}

template <St S>
__device__ __forceinline__ void store16(uint4* p, const uint4& v) {
  if constexpr (S == St::cs) {
    __stcs(p, v);
  } else {
    *p = v;
  }
}

// Which logical block this block is, of how many; false: this block's SM is
// not one of the `sms` that work (pinned mode), so the block exits.
__device__ __forceinline__ bool place(const Args& a, std::uint32_t& block, std::uint32_t& blocks) {
  if (!a.pinned) {
    block = blockIdx.x;
    blocks = gridDim.x;
    return true;
  }
  __shared__ std::uint32_t mine;
  if (threadIdx.x == 0) {
    std::uint32_t smid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    if (smid >= kMaxSmId) __trap();
    const std::uint32_t local = atomicAdd(&a.claim->local[smid], 1u);
    std::uint32_t rank;
    if (a.pick) {
      const std::int32_t r = a.claim->chosen[smid];
      rank = r < 0 ? ~0u : static_cast<std::uint32_t>(r);
    } else if (local == 0) {
      rank = atomicAdd(&a.claim->next, 1u);
      atomicExch(&a.claim->rank1[smid], rank + 1u);
    } else {
      // The SM's first block is resident (cooperative launch), so it publishes.
      while ((rank = atomicAdd(&a.claim->rank1[smid], 0u)) == 0u) __nanosleep(100);
      rank -= 1u;
    }
    const auto sms = static_cast<std::uint32_t>(a.sms), per_sm = static_cast<std::uint32_t>(a.per_sm);
    mine = rank < sms && local < per_sm ? rank * per_sm + local : ~0u;
  }
  __syncthreads();
  block = mine;
  blocks = static_cast<std::uint32_t>(a.sms * a.per_sm);
  return block != ~0u;
}

template <Op O, Ld L, St S>
__device__ __forceinline__ void one(const Args& a, std::uint64_t k, std::uint32_t& acc) {
  if constexpr (O == Op::read) {
    acc += fold(load16<L>(a.src + k));
  } else if constexpr (O == Op::write) {
    store16<S>(a.dst + k, expected(true, a.base, k));
  } else {
    store16<S>(a.dst + k, load16<L>(a.src + k));
  }
}

// Vectors i, i+step, ... below end, U at a time: all U loads are issued
// before any is used. The rest one at a time.
template <Op O, int U, Ld L, St S>
__device__ __forceinline__ void span(const Args& a, std::uint64_t i, std::uint64_t end, std::uint64_t step,
                                     std::uint32_t& acc) {
  for (; i + (U - 1) * step < end; i += U * step) {
    if constexpr (O == Op::write) {
#pragma unroll
      for (int u = 0; u < U; ++u) store16<S>(a.dst + i + u * step, expected(true, a.base, i + u * step));
    } else {
      uint4 v[U];
#pragma unroll
      for (int u = 0; u < U; ++u) v[u] = load16<L>(a.src + i + u * step);
#pragma unroll
      for (int u = 0; u < U; ++u) {
        if constexpr (O == Op::read) {
          acc += fold(v[u]);
        } else {
          store16<S>(a.dst + i + u * step, v[u]);
        }
      }
    }
  }
  for (; i < end; i += step) one<O, L, S>(a, i, acc);
}

// xferbench's write loop: U elements per step, each checked against the end.
template <Op O, int U, Ld L, St S>
__device__ __forceinline__ void span_checked(const Args& a, std::uint64_t first, std::uint64_t end, std::uint64_t step,
                                             std::uint32_t& acc) {
  for (std::uint64_t i = first; i < end; i += U * step) {
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const std::uint64_t k = i + u * step;
      if (k < end) one<O, L, S>(a, k, acc);
    }
  }
}

// Sum of the block's acc (mod 2^32) into *out.
__device__ void block_sum(std::uint32_t acc, std::uint32_t* out) {
  __shared__ std::uint32_t warps[32];
  for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) warps[warp] = acc;
  __syncthreads();
  if (warp != 0) return;
  acc = lane < (blockDim.x + 31) / 32 ? warps[lane] : 0u;
  for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
  if (lane == 0) *out = acc;
}

template <Op O, Loop P, int U, int MaxT, int MinB, Ld L, St S>
__global__ void __launch_bounds__(MaxT, MinB) vec_kernel(Args a) {
  std::uint32_t block = 0, blocks = 0;
  if (!place(a, block, blocks)) return;
  const std::uint64_t t = threadIdx.x, nt = blockDim.x;
  std::uint32_t acc = 0;
  for (int pass = 0; pass < a.passes; ++pass) {
    if constexpr (P == Loop::chunk) {
      // Slices start on 1 KiB boundaries; the last one takes the rest.
      const std::uint64_t units = a.nvec / 64;
      const std::uint64_t beg = units * block / blocks * 64;
      const std::uint64_t end = block + 1 == blocks ? a.nvec : units * (block + 1) / blocks * 64;
      span<O, U, L, S>(a, beg + t, end, nt, acc);
    } else if constexpr (P == Loop::checked) {
      span_checked<O, U, L, S>(a, block * nt + t, a.nvec, blocks * nt, acc);
    } else {
      span<O, U, L, S>(a, block * nt + t, a.nvec, blocks * nt, acc);
    }
  }
  if constexpr (O == Op::read) block_sum(acc, a.out + block);
}

__device__ __forceinline__ std::uint32_t smem_addr(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// Waits until the mbarrier at shared address `bar` completes phase `parity`.
__device__ __forceinline__ void wait_stage(std::uint32_t bar, std::uint32_t parity) {
  std::uint32_t done = 0;
  while (!done) {
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done)
                 : "r"(bar), "r"(parity)
                 : "memory");
  }
}

// Bulk asynchronous copy, xferbench's pipeline: thread 0 keeps Stages
// chunk loads in flight (global -> shared, each completing an mbarrier);
// a copy stores each landed chunk (shared -> global) and, before reloading
// that stage, waits until the store has read it. Chunk k of this block's
// sequence is chunk block + (k mod mine) * blocks of the buffer, so the
// passes run as one pipeline; the buffer's last chunk may be short.
template <Op O, int Stages, int Ahead = 0>
__global__ void __launch_bounds__(32, 1) bulk_kernel(Args a) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  extern __shared__ __align__(128) unsigned char stage_mem[];
  __shared__ __align__(8) std::uint64_t bars[Stages];
  std::uint32_t block = 0, blocks = 0;
  if (!place(a, block, blocks) || threadIdx.x != 0) return;
  const std::uint64_t bytes = a.nvec * 16, chunk = a.chunk;
  const std::uint64_t nchunks = (bytes + chunk - 1) / chunk;
  const std::uint64_t mine = block < nchunks ? (nchunks - block + blocks - 1) / blocks : 0;
  const std::uint64_t total = mine * static_cast<std::uint64_t>(a.passes);
  for (int s = 0; s < Stages; ++s) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&bars[s])));
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  auto offset = [&](std::uint64_t k) { return (block + k % mine * blocks) * chunk; };
  auto size = [&](std::uint64_t k) {
    const std::uint64_t left = bytes - offset(k);
    return static_cast<std::uint32_t>(left < chunk ? left : chunk);
  };
  auto stage = [&](std::uint64_t k) { return smem_addr(stage_mem) + static_cast<std::uint32_t>(k % Stages * chunk); };
  auto load = [&](std::uint64_t k) {
    if constexpr (Ahead > 0) {  // bulkpf: chunk k + Ahead starts its way from HBM into L2 now
      if (k + Ahead < total)
        asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(reinterpret_cast<const char*>(a.src) +
                                                                           offset(k + Ahead)),
                     "r"(size(k + Ahead))
                     : "memory");
    }
    const std::uint32_t bar = smem_addr(&bars[k % Stages]);
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(size(k)) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                     stage(k)),
                 "l"(reinterpret_cast<const char*>(a.src) + offset(k)), "r"(size(k)), "r"(bar)
                 : "memory");
  };
  for (std::uint64_t k = 0; k < total && k < Stages; ++k) load(k);
  for (std::uint64_t k = 0; k < total; ++k) {
    wait_stage(smem_addr(&bars[k % Stages]), static_cast<std::uint32_t>((k / Stages) & 1));
    if constexpr (O == Op::copy) {
      asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(
                       reinterpret_cast<char*>(a.dst) + offset(k)),
                   "r"(stage(k)), "r"(size(k))
                   : "memory");
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      if (k + Stages < total) asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    }
    if (k + Stages < total) load(k + Stages);
  }
  if constexpr (O == Op::copy) asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
#else
  __trap();
#endif
}

// HBM read through both of an SM's load paths at once: thread 0 keeps
// Stages 32 KiB chunks in flight through the bulk copy unit (as bulk_kernel),
// while warps 1-15 read other chunks with vector loads (each warp a whole
// chunk, 8 x 16 B in flight per lane). Of every 8 chunks of the block's
// sequence, the first V go to the vector warps. Not verified (read).
template <int Stages, int V>
__global__ void __launch_bounds__(512, 2) mixed_read_kernel(Args a) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  constexpr std::uint64_t kChunk = 32 << 10, kPer = kChunk / 16;
  extern __shared__ __align__(128) unsigned char stage_mem[];
  __shared__ __align__(8) std::uint64_t bars[Stages];
  std::uint32_t block = 0, blocks = 0;
  if (!place(a, block, blocks)) return;
  const std::uint64_t nchunks = a.nvec / kPer;
  const std::uint64_t mine = block < nchunks ? (nchunks - block + blocks - 1) / blocks : 0;
  const std::uint64_t total = mine * static_cast<std::uint64_t>(a.passes);
  auto offset = [&](std::uint64_t j) { return (block + j % mine * blocks) * kChunk; };
  if (threadIdx.x >= 32) {
    const std::uint64_t nv = total / 8 * V + (total % 8 < V ? total % 8 : V);
    const std::uint32_t warp = threadIdx.x / 32 - 1, warps = blockDim.x / 32 - 1, lane = threadIdx.x % 32;
    std::uint32_t acc = 0;
    for (std::uint64_t vc = warp; vc < nv; vc += warps) {
      const uint4* src = a.src + offset(vc / V * 8 + vc % V) / 16;
      for (std::uint64_t i = lane; i < kPer; i += 8 * 32) {
        uint4 v[8];
#pragma unroll
        for (int k = 0; k < 8; ++k) v[k] = __ldg(src + i + k * 32);
#pragma unroll
        for (int k = 0; k < 8; ++k) acc += v[k].x ^ v[k].y ^ v[k].z ^ v[k].w;
      }
    }
    if (acc == 0x9e3779b9u) a.out[block] = acc;  // keeps the loads; practically never stores
    return;
  }
  if (threadIdx.x != 0) return;
  const std::uint64_t tcount = total / 8 * (8 - V) + (total % 8 > V ? total % 8 - V : 0);
  auto j_of = [&](std::uint64_t k) { return k / (8 - V) * 8 + V + k % (8 - V); };
  for (int s = 0; s < Stages; ++s) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&bars[s])));
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  auto load = [&](std::uint64_t k) {
    const std::uint32_t bar = smem_addr(&bars[k % Stages]);
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(static_cast<std::uint32_t>(kChunk)) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                     smem_addr(stage_mem) + static_cast<std::uint32_t>(k % Stages * kChunk)),
                 "l"(reinterpret_cast<const char*>(a.src) + offset(j_of(k))), "r"(static_cast<std::uint32_t>(kChunk)), "r"(bar)
                 : "memory");
  };
  for (std::uint64_t k = 0; k < tcount && k < Stages; ++k) load(k);
  for (std::uint64_t k = 0; k < tcount; ++k) {
    wait_stage(smem_addr(&bars[k % Stages]), static_cast<std::uint32_t>((k / Stages) & 1));
    if (k + Stages < tcount) load(k + Stages);
  }
#else
  __trap();
#endif
}

// Write through the TMA: the block's 32 threads compute a chunk of the
// write pattern into a shared-memory stage, and thread 0 stores the stage
// with cp.async.bulk (shared -> global), Stages chunks in flight.
template <int Stages>
__global__ void __launch_bounds__(32, 1) bulk_write_kernel(Args a) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  extern __shared__ __align__(128) unsigned char stage_mem[];
  std::uint32_t block = 0, blocks = 0;
  if (!place(a, block, blocks)) return;
  const std::uint64_t bytes = a.nvec * 16, chunk = a.chunk;
  const std::uint64_t nchunks = (bytes + chunk - 1) / chunk;
  const std::uint64_t mine = block < nchunks ? (nchunks - block + blocks - 1) / blocks : 0;
  const std::uint64_t total = mine * static_cast<std::uint64_t>(a.passes);
  for (std::uint64_t k = 0; k < total; ++k) {
    const std::uint64_t off = (block + k % mine * blocks) * chunk;
    const std::uint64_t left = bytes - off;
    const auto size = static_cast<std::uint32_t>(left < chunk ? left : chunk);
    auto* st = reinterpret_cast<uint4*>(stage_mem + k % Stages * chunk);
    if (threadIdx.x == 0 && k >= Stages) asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(Stages - 1) : "memory");
    __syncwarp();
    for (std::uint32_t v = threadIdx.x; v < size / 16; v += 32) st[v] = expected(true, a.base, off / 16 + v);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncwarp();
    if (threadIdx.x == 0) {
      asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(reinterpret_cast<char*>(a.dst) +
                                                                                       off),
                   "r"(smem_addr(st)), "r"(size)
                   : "memory");
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    }
  }
  if (threadIdx.x == 0) asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
#else
  __trap();
#endif
}

__global__ void census_kernel(std::uint32_t* smids) {
  std::uint32_t smid;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  if (threadIdx.x == 0) smids[blockIdx.x] = smid;
}

__global__ void fill_kernel(uint4* buf, std::uint64_t nvec, bool indexed, std::uint32_t seed) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t k = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < nvec; k += stride)
    buf[k] = expected(indexed, seed, k);
}

__global__ void check_kernel(const uint4* buf, std::uint64_t nvec, bool indexed, std::uint32_t seed,
                             unsigned long long* bad) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  unsigned long long n = 0;
  for (std::uint64_t k = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < nvec; k += stride) {
    const uint4 v = buf[k], e = expected(indexed, seed, k);
    n += (v.x != e.x) + (v.y != e.y) + (v.z != e.z) + (v.w != e.w);
  }
  if (n != 0) atomicAdd(bad, n);
}

// ---------------------------------------------------------------- host side

using KernelFn = void (*)(Args);

struct Variant {
  std::string shape;
  KernelFn fn;
  int threads;
  int per_sm;
  int stages = 0;     // bulk only
  int chunk_kib = 0;  // bulk only
  bool pinned_rows = true;  // false: only the plain row at all SMs
};

template <Op O, Loop P, int U, int T, int B, Ld L = Ld::plain, St S = St::plain, int MaxT = T, int MinB = B>
Variant vec(const char* shape) {
  return Variant{shape, &vec_kernel<O, P, U, MaxT, MinB, L, S>, T, B};
}

template <Op O, int Stages, int Ahead = 0>
Variant bulk(int chunk_kib, int per_sm) {
  const std::string pf = Ahead > 0 ? "bulkpf" + std::to_string(Ahead) : "bulk";
  return Variant{pf + "_s" + std::to_string(Stages) + "_c" + std::to_string(chunk_kib), &bulk_kernel<O, Stages, Ahead>,
                 32, per_sm, Stages, chunk_kib};
}

// The shapes of one kernel operation, xferbench's first.
template <Op O>
std::vector<Variant> variants() {
  constexpr Loop kXbLoop = O == Op::write ? Loop::checked : Loop::grid;
  // xferbench's const __restrict__ source makes nvcc emit ld.global.nc.
  constexpr Ld kXbLoad = O == Op::write ? Ld::plain : Ld::nc;
  std::vector<Variant> v = {
      vec<O, kXbLoop, 4, 512, 1, kXbLoad, St::plain, 1024, 1>("xb"),
      // Grid-stride variants: 4 or 8 loads in flight, 256/512/1024 threads, 1 or 2 blocks per SM.
      vec<O, Loop::grid, 4, 256, 1>("grid_u4"), vec<O, Loop::grid, 4, 512, 1>("grid_u4"),
      vec<O, Loop::grid, 4, 1024, 1>("grid_u4"), vec<O, Loop::grid, 4, 256, 2>("grid_u4"),
      vec<O, Loop::grid, 4, 512, 2>("grid_u4"), vec<O, Loop::grid, 4, 1024, 2>("grid_u4"),
      vec<O, Loop::grid, 8, 256, 1>("grid_u8"), vec<O, Loop::grid, 8, 512, 1>("grid_u8"),
      vec<O, Loop::grid, 8, 1024, 1>("grid_u8"), vec<O, Loop::grid, 8, 256, 2>("grid_u8"),
      vec<O, Loop::grid, 8, 512, 2>("grid_u8"), vec<O, Loop::grid, 8, 1024, 2>("grid_u8"),
      // More in flight per thread, and contiguous slices per block.
      vec<O, Loop::grid, 16, 512, 1>("grid_u16"), vec<O, Loop::grid, 16, 256, 2>("grid_u16"),
      vec<O, Loop::chunk, 4, 1024, 1>("chunk_u4"), vec<O, Loop::chunk, 8, 1024, 1>("chunk_u8"),
      vec<O, Loop::chunk, 4, 1024, 2>("chunk_u4"), vec<O, Loop::chunk, 8, 512, 2>("chunk_u8"),
  };
  if constexpr (O == Op::write) {
    Variant named = vec<O, kXbLoop, 4, 512, 4, kXbLoad, St::plain, 1024, 1>("xb_named");
    named.pinned_rows = false;
    v.insert(v.begin() + 1, named);
    v.push_back(vec<O, Loop::grid, 8, 1024, 1, Ld::plain, St::cs>("grid_u8_cs"));
    v.push_back(vec<O, Loop::grid, 8, 512, 2, Ld::plain, St::cs>("grid_u8_cs"));
    v.push_back(Variant{"bulkw_s3_c32", &bulk_write_kernel<3>, 32, 2, 3, 32});
    v.push_back(Variant{"bulkw_s4_c16", &bulk_write_kernel<4>, 32, 2, 4, 16});
    v.push_back(Variant{"bulkw_s6_c16", &bulk_write_kernel<6>, 32, 1, 6, 16});
    v.push_back(Variant{"bulkw_s3_c64", &bulk_write_kernel<3>, 32, 1, 3, 64});
  } else {
    if constexpr (O == Op::read) {
      Variant named = vec<O, kXbLoop, 4, 512, 4, kXbLoad, St::plain, 1024, 1>("xb_named");
      named.pinned_rows = false;
      v.insert(v.begin() + 1, named);
    }
    v.push_back(vec<O, Loop::grid, 8, 1024, 1, Ld::nc>("grid_u8_nc"));
    v.push_back(vec<O, Loop::grid, 8, 512, 2, Ld::nc>("grid_u8_nc"));
    v.push_back(vec<O, Loop::grid, 8, 1024, 1, Ld::nc256>("grid_u8_nc256"));
    v.push_back(vec<O, Loop::grid, 8, 512, 2, Ld::nc256>("grid_u8_nc256"));
    v.push_back(vec<O, Loop::grid, 8, 1024, 1, Ld::cs, St::cs>("grid_u8_cs"));
    v.push_back(vec<O, Loop::grid, 8, 512, 2, Ld::cs, St::cs>("grid_u8_cs"));
    v.push_back(bulk<O, 3>(64, 1));
    v.push_back(bulk<O, 4>(48, 1));
    v.push_back(bulk<O, 7>(32, 1));
    v.push_back(bulk<O, 12>(16, 1));
    v.push_back(bulk<O, 3>(32, 2));
    v.push_back(bulk<O, 6>(16, 2));
    v.push_back(bulk<O, 4>(16, 2));
    v.push_back(bulk<O, 4>(24, 2));
    // L2 prefetch (cp.async.bulk.prefetch.L2) Ahead chunks before the bulk load.
    v.push_back(bulk<O, 3, 8>(32, 2));
    v.push_back(bulk<O, 3, 16>(32, 2));
    v.push_back(bulk<O, 3, 32>(32, 2));
    v.push_back(bulk<O, 3, 64>(32, 2));
    if constexpr (O == Op::read) {
      v.push_back(Variant{"mix1_s3_c32", &mixed_read_kernel<3, 1>, 512, 2, 3, 32});
      v.push_back(Variant{"mix2_s3_c32", &mixed_read_kernel<3, 2>, 512, 2, 3, 32});
      v.push_back(Variant{"mix3_s3_c32", &mixed_read_kernel<3, 3>, 512, 2, 3, 32});
      v.push_back(Variant{"mix2_s2_c32", &mixed_read_kernel<2, 2>, 512, 2, 2, 32});
      v.push_back(Variant{"mix2_s4_c32", &mixed_read_kernel<4, 2>, 512, 1, 4, 32});
      v.push_back(Variant{"mix3_s6_c32", &mixed_read_kernel<6, 3>, 512, 1, 6, 32});
    }
  }
  return v;
}

enum class Xfer { h2d, d2h, read, write, copy };

struct XferInfo {
  Xfer x;
  const char* name;
  Op op;
};

constexpr XferInfo kXfers[] = {{Xfer::h2d, "h2d", Op::copy},
                               {Xfer::d2h, "d2h", Op::copy},
                               {Xfer::read, "read", Op::read},
                               {Xfer::write, "write", Op::write},
                               {Xfer::copy, "copy", Op::copy}};

struct Options {
  std::uint64_t mib = 512;
  std::vector<std::string> ops = {"h2d", "d2h", "read", "write", "copy"};
  std::string sms = "1,2,4,8,16,32,64,96,all";
  std::string only;
  double budget_s = 170;
  int passes = 1;
  std::string pick = "arrival";  // which SMs work: arrival, low (lowest %smid), spread (evenly over %smid)
  bool list = false;  // print the shapes and exit (needs no GPU)
};

struct Device {
  int sms = 0;
  int smem_per_sm = 0;
  int smem_reserved = 0;
  int smem_optin = 0;
};

struct Buffers {
  std::uint64_t bytes = 0, nvec = 0;
  uint4* dev_src = nullptr;   // seeded pattern
  uint4* dev_dst = nullptr;
  uint4* host_src = nullptr;  // pinned, device pointer; seeded pattern
  uint4* host_dst = nullptr;  // pinned, device pointer
  std::uint32_t* out = nullptr;
  Claim* claim = nullptr;
  unsigned long long* bad = nullptr;
  std::uint32_t read_sum = 0;  // sum of every source word, mod 2^32
  std::vector<std::uint32_t> smids;  // every SM's %smid, sorted
  std::int32_t* claim_chosen_host = nullptr;  // pinned host staging of Claim::chosen
  std::string pick;
};

// One row's launch: grid, block, dynamic shared memory; ok false: no fit.
struct Fit {
  bool ok = false;
  int grid = 0;
  std::size_t smem = 0;
  int occupancy = 0;
};

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    const std::size_t end = std::min(s.find(',', start), s.size());
    if (end > start) out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--list") {
      o.list = true;
      continue;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "usage: %s [--mib N] [--ops LIST] [--sms LIST] [--only SUBSTRING] [--budget-s S] [--passes N] [--pick arrival|low|spread] "
                   "[--list]\n",
                   argv[0]);
      std::exit(2);
    }
    const std::string val = argv[++i];
    if (arg == "--mib") {
      o.mib = std::strtoull(val.c_str(), nullptr, 10);
    } else if (arg == "--ops") {
      o.ops = split(val);
    } else if (arg == "--sms") {
      o.sms = val;
    } else if (arg == "--only") {
      o.only = val;
    } else if (arg == "--budget-s") {
      o.budget_s = std::strtod(val.c_str(), nullptr);
    } else if (arg == "--pick") {
      o.pick = val;
    } else if (arg == "--passes") {
      o.passes = std::atoi(val.c_str());
    } else {
      std::fprintf(stderr, "unknown option %s\n", arg.c_str());
      std::exit(2);
    }
  }
  if (o.mib == 0 || o.passes < 1) {
    std::fprintf(stderr, "--mib and --passes must be at least 1\n");
    std::exit(2);
  }
  return o;
}

std::vector<int> sm_counts(const std::string& text, int all) {
  std::vector<int> out;
  for (const std::string& item : split(text)) {
    const int n = item == "all" ? all : std::atoi(item.c_str());
    if (n >= 1 && n <= all) out.push_back(n);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Device query_device() {
  Device d;
  int dev = 0;
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&d.sms, cudaDevAttrMultiProcessorCount, dev));
  CK(cudaDeviceGetAttribute(&d.smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
  CK(cudaDeviceGetAttribute(&d.smem_reserved, cudaDevAttrReservedSharedMemoryPerBlock, dev));
  CK(cudaDeviceGetAttribute(&d.smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  int coop = 0;
  CK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
  if (!coop) {
    std::fprintf(stderr, "this GPU has no cooperative launch, which SM pinning needs\n");
    std::exit(1);
  }
  cudaDeviceProp p{};
  CK(cudaGetDeviceProperties(&p, dev));
  std::fprintf(stderr, "gpu%d %s, sm_%d%d, %d SMs, %d KiB shared memory per SM (%d B reserved per block)\n", dev,
               p.name, p.major, p.minor, d.sms, d.smem_per_sm / 1024, d.smem_reserved);
  return d;
}

int occupancy(const Variant& v, std::size_t smem) {
  int n = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, v.fn, v.threads, smem));
  return n;
}

void allow_smem(const Variant& v, std::size_t smem) {
  CK(cudaFuncSetAttribute(v.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
}

std::size_t needed_smem(const Variant& v) { return static_cast<std::size_t>(v.stages) * v.chunk_kib * 1024; }

// Pinned: the most dynamic shared memory at which exactly per_sm blocks
// fit an SM, so no SM can hold more and the grid fills every SM evenly.
Fit fit_pinned(const Variant& v, const Device& d) {
  cudaFuncAttributes at{};
  CK(cudaFuncGetAttributes(&at, v.fn));
  CK(cudaFuncSetAttribute(v.fn, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared));
  const long fixed = static_cast<long>(at.sharedSizeBytes);
  long smem = std::min<long>(d.smem_per_sm / v.per_sm - d.smem_reserved - fixed, d.smem_optin - fixed);
  Fit f;
  for (; smem >= static_cast<long>(needed_smem(v)); smem -= 1024) {
    allow_smem(v, static_cast<std::size_t>(smem));
    f.occupancy = occupancy(v, static_cast<std::size_t>(smem));
    if (f.occupancy >= v.per_sm) break;
  }
  if (f.occupancy != v.per_sm) {
    std::fprintf(stderr, "warning: %s t%d b%d: %d blocks fit per SM (registers %d/thread), not %d: NOFIT\n",
                 v.shape.c_str(), v.threads, v.per_sm, f.occupancy, at.numRegs, v.per_sm);
    return f;
  }
  if (at.localSizeBytes > 0)
    std::fprintf(stderr, "note: %s t%d b%d spills (%zu B local memory per thread, %d registers)\n", v.shape.c_str(),
                 v.threads, v.per_sm, static_cast<std::size_t>(at.localSizeBytes), at.numRegs);
  f.ok = true;
  f.grid = d.sms * v.per_sm;
  f.smem = static_cast<std::size_t>(smem);
  return f;
}

// Plain: an ordinary launch of SMs x per_sm blocks, no reservation.
Fit fit_plain(const Variant& v, const Device& d) {
  CK(cudaFuncSetAttribute(v.fn, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutDefault));
  Fit f;
  f.smem = needed_smem(v);
  if (f.smem > 0) allow_smem(v, f.smem);
  f.occupancy = occupancy(v, f.smem);
  if (f.occupancy < v.per_sm)
    std::fprintf(stderr, "warning: %s t%d b%d plain: only %d blocks fit per SM, the grid runs in waves\n",
                 v.shape.c_str(), v.threads, v.per_sm, f.occupancy);
  f.ok = f.occupancy > 0;
  f.grid = d.sms * v.per_sm;
  return f;
}

void fill(uint4* buf, std::uint64_t nvec, bool indexed, std::uint32_t seed, const Device& d, cudaStream_t s) {
  fill_kernel<<<d.sms * 4, 512, 0, s>>>(buf, nvec, indexed, seed);
  CK(cudaGetLastError());
}

unsigned long long count_bad(const uint4* buf, std::uint64_t nvec, bool indexed, std::uint32_t seed,
                             const Buffers& b, const Device& d, cudaStream_t s) {
  CK(cudaMemsetAsync(b.bad, 0, sizeof(unsigned long long), s));
  check_kernel<<<d.sms * 4, 512, 0, s>>>(buf, nvec, indexed, seed, b.bad);
  CK(cudaGetLastError());
  unsigned long long n = 0;
  CK(cudaMemcpyAsync(&n, b.bad, sizeof(n), cudaMemcpyDeviceToHost, s));
  CK(cudaStreamSynchronize(s));
  return n;
}

struct Row {
  double gbps = 0;
  std::string verified;
};

// The source and destination of a transfer (either may be null).
void endpoints(Xfer x, const Buffers& b, const uint4*& src, uint4*& dst) {
  src = nullptr;
  dst = nullptr;
  switch (x) {
    case Xfer::h2d: src = b.host_src; dst = b.dev_dst; break;
    case Xfer::d2h: src = b.dev_src; dst = b.host_dst; break;
    case Xfer::read: src = b.dev_src; break;
    case Xfer::write: dst = b.dev_dst; break;
    case Xfer::copy: src = b.dev_src; dst = b.dev_dst; break;
  }
}

std::string verify(const XferInfo& xi, const Variant& v, const Args& a, int blocks, const Buffers& b, const Device& d,
                   cudaStream_t s) {
  if (xi.op == Op::read) {
    if (v.stages > 0) return "na";
    std::vector<std::uint32_t> got(static_cast<std::size_t>(blocks));
    CK(cudaMemcpyAsync(got.data(), b.out, got.size() * sizeof(std::uint32_t), cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    std::uint32_t sum = 0;
    for (const std::uint32_t g : got) sum += g;
    const std::uint32_t want = b.read_sum * static_cast<std::uint32_t>(a.passes);
    if (sum != want) std::fprintf(stderr, "FAIL: read %s: sum %08x, want %08x\n", v.shape.c_str(), sum, want);
    return sum == want ? "ok" : "FAIL";
  }
  const bool indexed = xi.op == Op::write;
  const unsigned long long bad = count_bad(a.dst, b.nvec, indexed, indexed ? a.base : kSeed, b, d, s);
  if (bad != 0) std::fprintf(stderr, "FAIL: %s %s: %llu wrong words\n", xi.name, v.shape.c_str(), bad);
  return bad == 0 ? "ok" : "FAIL";
}

Row run_row(const XferInfo& xi, const Variant& v, const Fit& f, int sms, bool pinned, int passes, const Buffers& b,
            const Device& d, cudaStream_t s) {
  static std::uint32_t writes = 0;
  if (f.grid > kMaxOut) {
    std::fprintf(stderr, "grid of %d blocks: more than the %d read results kept\n", f.grid, kMaxOut);
    std::exit(1);
  }
  Args a{};
  endpoints(xi.x, b, a.src, a.dst);
  a.nvec = b.nvec;
  a.out = b.out;
  a.claim = b.claim;
  a.base = (0x9E3779B9u * ++writes) | 1u;
  a.chunk = static_cast<std::uint32_t>(v.chunk_kib) * 1024u;
  a.sms = sms;
  a.passes = passes;
  a.per_sm = v.per_sm;
  a.pinned = pinned ? 1 : 0;
  a.pick = pinned && b.pick != "arrival" ? 1 : 0;
  if (a.pick) {
    std::vector<std::int32_t> chosen(kMaxSmId, -1);
    const auto all = static_cast<int>(b.smids.size());
    for (int i = 0; i < sms; ++i)
      chosen[b.smids[static_cast<std::size_t>(b.pick == "low" ? i : static_cast<int>(static_cast<long>(i) * all / sms))]] = i;
    CK(cudaMemcpy(b.claim_chosen_host, chosen.data(), kMaxSmId * sizeof(std::int32_t), cudaMemcpyHostToHost));
  }
  if (a.dst) fill(a.dst, b.nvec, true, kPoison, d, s);
  if (xi.op == Op::read) CK(cudaMemsetAsync(b.out, 0, kMaxOut * sizeof(std::uint32_t), s));
  constexpr int kLaunches = 6;  // the first warms up
  cudaEvent_t ev[2 * kLaunches];
  for (cudaEvent_t& e : ev) CK(cudaEventCreate(&e));
  void* params[] = {&a};
  for (int r = 0; r < kLaunches; ++r) {
    if (pinned) CK(cudaMemsetAsync(b.claim, 0, offsetof(Claim, chosen), s));
    if (a.pick) CK(cudaMemcpyAsync(b.claim->chosen, b.claim_chosen_host, kMaxSmId * sizeof(std::int32_t), cudaMemcpyHostToDevice, s));
    CK(cudaEventRecord(ev[2 * r], s));
    if (pinned) {
      CK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(v.fn), f.grid, v.threads, params, f.smem, s));
    } else {
      CK(cudaLaunchKernel(reinterpret_cast<const void*>(v.fn), f.grid, v.threads, params, f.smem, s));
    }
    CK(cudaEventRecord(ev[2 * r + 1], s));
  }
  CK(cudaStreamSynchronize(s));
  std::vector<float> ms;
  for (int r = 1; r < kLaunches; ++r) {
    float t = 0;
    CK(cudaEventElapsedTime(&t, ev[2 * r], ev[2 * r + 1]));
    ms.push_back(t);
  }
  for (cudaEvent_t& e : ev) CK(cudaEventDestroy(e));
  std::sort(ms.begin(), ms.end());
  Row row;
  row.gbps = static_cast<double>(b.bytes) * passes / (static_cast<double>(ms[ms.size() / 2]) * 1e6);
  const int blocks = pinned ? sms * v.per_sm : f.grid;
  row.verified = verify(xi, v, a, blocks, b, d, s);
  return row;
}

void print_row(const XferInfo& xi, const Variant& v, int sms, const Row& r, const char* launch) {
  std::printf("%s,%s,%d,%d,%d,%.2f,%s,%s\n", xi.name, v.shape.c_str(), v.threads, v.per_sm, sms, r.gbps,
              r.verified.c_str(), launch);
  std::fflush(stdout);
}

Buffers allocate(std::uint64_t bytes, const Device& d, cudaStream_t s) {
  Buffers b;
  b.bytes = bytes;
  b.nvec = bytes / 16;
  void* h = nullptr;
  CK(cudaMalloc(&b.dev_src, bytes));
  CK(cudaMalloc(&b.dev_dst, bytes));
  CK(cudaHostAlloc(&h, bytes, cudaHostAllocMapped));
  CK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&b.host_src), h, 0));
  CK(cudaHostAlloc(&h, bytes, cudaHostAllocMapped));
  CK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&b.host_dst), h, 0));
  CK(cudaMalloc(&b.out, kMaxOut * sizeof(std::uint32_t)));
  CK(cudaMalloc(&b.claim, sizeof(Claim)));
  CK(cudaMalloc(&b.bad, sizeof(unsigned long long)));
  CK(cudaHostAlloc(&b.claim_chosen_host, kMaxSmId * sizeof(std::int32_t), 0));
  // Census: one block per SM (each takes more than half the shared memory), cooperative.
  {
    std::uint32_t* ids = nullptr;
    CK(cudaMalloc(&ids, d.sms * sizeof(std::uint32_t)));
    const int smem = d.smem_per_sm / 2 + 1024;
    CK(cudaFuncSetAttribute(census_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    void* params[] = {&ids};
    CK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(census_kernel), d.sms, 32, params, smem, s));
    b.smids.resize(static_cast<std::size_t>(d.sms));
    CK(cudaMemcpyAsync(b.smids.data(), ids, d.sms * sizeof(std::uint32_t), cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    std::sort(b.smids.begin(), b.smids.end());
    std::fprintf(stderr, "smids: %u..%u, %zu distinct\n", b.smids.front(), b.smids.back(),
                 static_cast<std::size_t>(std::unique(b.smids.begin(), b.smids.end()) - b.smids.begin()));
    CK(cudaFree(ids));
  }
  fill(b.dev_src, b.nvec, false, kSeed, d, s);
  fill(b.host_src, b.nvec, false, kSeed, d, s);
  CK(cudaStreamSynchronize(s));
  for (std::uint64_t i = 0; i < 4 * b.nvec; ++i) b.read_sum += pattern(kSeed, i);
  if (count_bad(b.dev_src, b.nvec, false, kSeed, b, d, s) + count_bad(b.host_src, b.nvec, false, kSeed, b, d, s)) {
    std::fprintf(stderr, "the source buffers do not hold their pattern\n");
    std::exit(1);
  }
  return b;
}

template <Op O>
const std::vector<Variant>& variants_of() {
  static const std::vector<Variant> v = variants<O>();
  return v;
}

const std::vector<Variant>& variants_for(Op op) {
  switch (op) {
    case Op::read: return variants_of<Op::read>();
    case Op::write: return variants_of<Op::write>();
    default: return variants_of<Op::copy>();
  }
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  if (o.list) {
    for (const XferInfo& xi : kXfers)
      for (const Variant& v : variants_for(xi.op))
        std::printf("%s,%s,%d,%d,%s\n", xi.name, v.shape.c_str(), v.threads, v.per_sm,
                    v.pinned_rows ? "pinned+plain" : "plain");
    return 0;
  }
  const Device d = query_device();
  const std::vector<int> counts = sm_counts(o.sms, d.sms);
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  Buffers b = allocate(o.mib << 20, d, s);
  b.pick = o.pick;
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  std::printf("op,shape,threads,blocks_per_sm,sms,gbps,verified,launch\n");
  int skipped = 0;
  for (const std::string& name : o.ops) {
    const XferInfo* xi = nullptr;
    for (const XferInfo& c : kXfers)
      if (name == c.name) xi = &c;
    if (!xi) {
      std::fprintf(stderr, "unknown op %s (h2d, d2h, read, write, copy)\n", name.c_str());
      return 2;
    }
    for (const Variant& v : variants_for(xi->op)) {
      if (!o.only.empty() && v.shape.find(o.only) == std::string::npos) continue;
      if (elapsed() > o.budget_s) {
        ++skipped;
        continue;
      }
      std::fprintf(stderr, "[%6.1f s] %s %s t%d b%d:", elapsed(), xi->name, v.shape.c_str(), v.threads, v.per_sm);
      if (v.pinned_rows) {
        const Fit f = fit_pinned(v, d);
        for (const int n : counts) {
          Row r;
          r.verified = "NOFIT";
          if (f.ok) r = run_row(*xi, v, f, n, true, o.passes, b, d, s);
          print_row(*xi, v, n, r, "pinned");
          std::fprintf(stderr, " %d:%.1f%s", n, r.gbps, r.verified == "ok" ? "" : r.verified.c_str());
        }
      }
      const Fit f = fit_plain(v, d);
      Row r;
      r.verified = "NOFIT";
      if (f.ok) r = run_row(*xi, v, f, d.sms, false, o.passes, b, d, s);
      print_row(*xi, v, d.sms, r, "plain");
      std::fprintf(stderr, " plain:%.1f%s\n", r.gbps, r.verified == "ok" ? "" : r.verified.c_str());
    }
  }
  if (skipped > 0)
    std::fprintf(stderr, "warning: time budget of %.0f s reached; %d shapes not measured\n", o.budget_s, skipped);
  std::fprintf(stderr, "done in %.1f s\n", elapsed());
  return 0;
}
