// The kernels whose SM count is a budget (SM and bulk copies, read-only and
// write-only kernels), their checks, the TMA pointer chase (it shares the
// bulk copy's mbarrier wait), and SM pinning (kernels.hpp says how it works).
#include <algorithm>
#include <map>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/pattern.hpp"
#include "kernels/kernels.hpp"
#include "machine/cuda_check.hpp"

namespace xb {
namespace {

constexpr std::uint32_t kMaxSmIds = 1024;  // bound on %smid

// Where the blocks of one launch work; rank null: the plain grid.
struct Pin {
  const std::int32_t* rank = nullptr;  // per %smid: the SM's rank among the chosen ones, -1 not chosen
  std::uint32_t* started = nullptr;    // per %smid: blocks ever started there
  std::uint32_t per_sm = 1;
  std::uint32_t blocks = 0;  // logical blocks: chosen SMs x per_sm
};

// This block's logical index and the logical grid size; false: the block's
// SM is not chosen, so the block returns. Every thread of the block calls it.
__device__ __forceinline__ bool place(const Pin& p, std::uint64_t& block, std::uint64_t& blocks) {
  if (p.rank == nullptr) {
    block = blockIdx.x;
    blocks = gridDim.x;
    return true;
  }
  __shared__ std::uint32_t mine;
  if (threadIdx.x == 0) {
    std::uint32_t smid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    smid %= kMaxSmIds;  // the census checked that every id is below
    // A pinned launch starts exactly per_sm blocks on every SM, so the
    // counter's values of one launch are distinct modulo per_sm.
    const std::uint32_t local = atomicAdd(&p.started[smid], 1u) % p.per_sm;
    const std::int32_t rank = p.rank[smid];
    mine = rank < 0 ? ~0u : static_cast<std::uint32_t>(rank) * p.per_sm + local;
  }
  __syncthreads();
  block = mine;
  blocks = p.blocks;
  return mine != ~0u;
}

__global__ void census_kernel(std::uint32_t* smids) {
  std::uint32_t smid;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  if (threadIdx.x == 0) smids[blockIdx.x] = smid;
}

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
__global__ void __launch_bounds__(1024) sm_copy_kernel(Pin pin, uint4* __restrict__ dst, const uint4* __restrict__ src,
                                                       std::uint64_t nvec, unsigned char* __restrict__ dst_tail,
                                                       const unsigned char* __restrict__ src_tail, int tail,
                                                       std::uint32_t reps) {
  std::uint64_t block = 0, blocks = 0;
  if (!place(pin, block, blocks)) return;
  const std::uint64_t stride = blocks * blockDim.x;
  const std::uint64_t first = block * blockDim.x + threadIdx.x;
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
    if (block == 0 && static_cast<int>(threadIdx.x) < tail) dst_tail[threadIdx.x] = src_tail[threadIdx.x];
  }
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900  // the TMA's helpers
__device__ __forceinline__ std::uint32_t smem_addr(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// Spins until phase `parity` of the shared-memory mbarrier at `bar` completes.
__device__ __forceinline__ void wait_parity(std::uint32_t bar, std::uint32_t parity) {
  std::uint32_t done = 0;
  while (!done) {
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done)
                 : "r"(bar), "r"(parity)
                 : "memory");
  }
}
#endif

// Bulk copy: thread 0 of each block streams chunks global -> shared (->
// global when Store) with cp.async.bulk, `Stages` chunks in flight,
// completion of each load tracked by an mbarrier (transaction bytes). Chunks
// are dealt round-robin over blocks; `reps` passes over the buffer run as one
// pipelined sequence (chunk k of the sequence is chunk k mod mine of this
// block). Without Store it is the read-only kernel's bulk form: every chunk
// lands in shared memory, and nothing is written. Needs sm_90; elsewhere it
// traps (the host never launches it there).
template <int Stages, bool Store>
__global__ void __launch_bounds__(32) bulk_kernel(Pin pin, char* dst, const char* src, std::uint64_t nchunks,
                                                  std::uint32_t chunk, std::uint32_t reps) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  extern __shared__ __align__(128) unsigned char stage_mem[];
  __shared__ __align__(8) std::uint64_t bars[Stages];
  std::uint64_t first = 0, stride = 0;
  if (!place(pin, first, stride) || threadIdx.x != 0) return;
  for (int s = 0; s < Stages; ++s)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&bars[s])));
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
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
    wait_parity(smem_addr(&bars[s]), static_cast<std::uint32_t>((k / Stages) & 1));
    if constexpr (Store) {
      asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst + offset(k)),
                   "r"(smem_addr(stage_mem + static_cast<std::size_t>(s) * chunk)), "r"(chunk)
                   : "memory");
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      // The store must have read this stage before the next load fills it.
      if (k + Stages < total) asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    }
    if (k + Stages < total) load(k + Stages);
  }
  if constexpr (Store) asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
#else
  __trap();
#endif
}

__global__ void tma_chase_kernel(const void* start, std::uint64_t steps, unsigned long long* sink, int active_block) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  __shared__ __align__(16) std::uint64_t landing[2];
  __shared__ __align__(8) std::uint64_t bar;
  if (static_cast<int>(blockIdx.x) != active_block || threadIdx.x != 0) return;
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&bar)));
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  const char* p = static_cast<const char*>(start);
  for (std::uint64_t s = 0; s < steps; ++s) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 16;" ::"r"(smem_addr(&bar)) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 16, [%2];" ::"r"(
                     smem_addr(landing)),
                 "l"(p), "r"(smem_addr(&bar))
                 : "memory");
    // Phase s completes when the 16 bytes have landed; its parity is s & 1.
    wait_parity(smem_addr(&bar), static_cast<std::uint32_t>(s & 1));
    p = reinterpret_cast<const char*>(*reinterpret_cast<volatile std::uint64_t*>(landing));
  }
  *sink = reinterpret_cast<unsigned long long>(p);
#else
  __trap();
#endif
}

// Which half of the checksum word i of a buffer goes to: even words low,
// odd words high. A 16-byte vector holds words 4k..4k+3, so its x and z
// go low and y and w high.
__device__ __forceinline__ unsigned long long fold(const uint4& v) {
  return static_cast<unsigned long long>(v.x ^ v.z) | (static_cast<unsigned long long>(v.y ^ v.w) << 32);
}

__device__ __forceinline__ unsigned long long byte_term(std::uint64_t offset, std::uint8_t b) {
  const std::uint64_t word = offset / 4;
  return static_cast<unsigned long long>(b) << (8 * (offset % 4) + ((word & 1) ? 32 : 0));
}

__device__ __forceinline__ void xor_into(uint4& acc, const uint4& v) {
  acc.x ^= v.x;
  acc.y ^= v.y;
  acc.z ^= v.z;
  acc.w ^= v.w;
}

template <int U, bool Check>
__global__ void __launch_bounds__(1024) read_only_kernel(Pin pin, const uint4* __restrict__ src, std::uint64_t nvec,
                                                         std::uint64_t bytes, unsigned long long* out,
                                                         unsigned long long sentinel, std::uint32_t reps) {
  std::uint64_t block = 0, blocks = 0;
  if (!place(pin, block, blocks)) return;
  const std::uint64_t stride = blocks * blockDim.x;
  const std::uint64_t first = block * blockDim.x + threadIdx.x;
  uint4 acc = make_uint4(0, 0, 0, 0);
  for (std::uint32_t r = 0; r < reps; ++r) {
    std::uint64_t i = first;
    for (; i + (U - 1) * stride < nvec; i += U * stride) {
      uint4 v[U];
#pragma unroll
      for (int u = 0; u < U; ++u) v[u] = src[i + u * stride];
#pragma unroll
      for (int u = 0; u < U; ++u) xor_into(acc, v[u]);
    }
    for (; i < nvec; i += stride) xor_into(acc, src[i]);
  }
  unsigned long long sum = fold(acc);
  if (first == 0) {
    const auto* b = reinterpret_cast<const std::uint8_t*>(src);
    for (std::uint64_t o = nvec * 16; o < bytes; ++o) sum ^= byte_term(o, b[o]);
  }
  if constexpr (Check) {
    atomicXor(out, sum);
  } else if (sum == sentinel) {
    *out = sum;
  }
}

__global__ void pattern_checksum_kernel(std::uint64_t bytes, std::uint64_t seed, unsigned long long* out) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  const std::uint64_t words = bytes / 4;
  unsigned long long sum = 0;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < words; i += stride)
    sum ^= static_cast<unsigned long long>(pattern_word(seed, i)) << ((i & 1) ? 32 : 0);
  if (blockIdx.x == 0 && threadIdx.x == 0)
    for (std::uint64_t o = words * 4; o < bytes; ++o) sum ^= byte_term(o, pattern_byte(seed, o));
  atomicXor(out, sum);
}

__device__ __forceinline__ std::uint8_t written_byte(std::uint32_t base, std::uint64_t offset) {
  return static_cast<std::uint8_t>((base ^ static_cast<std::uint32_t>(offset / 4)) >> (8 * (offset % 4)));
}

template <int U>
__global__ void __launch_bounds__(1024) write_only_kernel(Pin pin, uint4* __restrict__ dst, std::uint64_t nvec,
                                                          std::uint64_t bytes, std::uint32_t base, std::uint32_t reps) {
  std::uint64_t block = 0, blocks = 0;
  if (!place(pin, block, blocks)) return;
  const std::uint64_t stride = blocks * blockDim.x;
  const std::uint64_t first = block * blockDim.x + threadIdx.x;
  for (std::uint32_t r = 0; r < reps; ++r) {
    for (std::uint64_t i = first; i < nvec; i += U * stride) {
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const std::uint64_t k = i + u * stride;
        const auto w = base ^ static_cast<std::uint32_t>(4 * k);
        if (k < nvec) dst[k] = make_uint4(w, w ^ 1u, w ^ 2u, w ^ 3u);
      }
    }
  }
  if (first == 0) {
    auto* b = reinterpret_cast<std::uint8_t*>(dst);
    for (std::uint64_t o = nvec * 16; o < bytes; ++o) b[o] = written_byte(base, o);
  }
}

__global__ void verify_written_kernel(const std::uint32_t* buf, std::uint64_t bytes, std::uint32_t base,
                                      unsigned long long* first_bad) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  const std::uint64_t words = bytes / 4;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < words; i += stride) {
    const std::uint32_t diff = buf[i] ^ (base ^ static_cast<std::uint32_t>(i));
    if (diff != 0) atomicMin(first_bad, static_cast<unsigned long long>(i * 4 + (__ffs(static_cast<int>(diff)) - 1) / 8));
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    const auto* b = reinterpret_cast<const std::uint8_t*>(buf);
    for (std::uint64_t o = words * 4; o < bytes; ++o)
      if (b[o] != written_byte(base, o)) {
        atomicMin(first_bad, static_cast<unsigned long long>(o));
        break;
      }
  }
}

int current_device() {
  int dev = 0;
  XB_CUDA_CHECK(cudaGetDevice(&dev));
  return dev;
}

int device_attr(cudaDeviceAttr a) {
  int v = 0;
  XB_CUDA_CHECK(cudaDeviceGetAttribute(&v, a, current_device()));
  return v;
}

// SM pinning state of one device; its device memory lives until the process ends.
struct PinState {
  std::vector<std::uint32_t> smids;   // %smid of every SM, sorted
  std::map<int, std::int32_t*> rank;  // per SM budget: Pin::rank (device memory)
  std::uint32_t* started = nullptr;   // Pin::started (device memory)
};

std::map<int, PinState>& pin_states() {
  static std::map<int, PinState> states;
  return states;
}

// The %smid of every SM: one block per SM (each takes more than half of an
// SM's shared memory), launched cooperatively so all run at once.
std::vector<std::uint32_t> sm_census(int sms) {
  const int smem = std::min(device_attr(cudaDevAttrMaxSharedMemoryPerBlockOptin),
                            device_attr(cudaDevAttrMaxSharedMemoryPerMultiprocessor) / 2 + 1024);
  XB_CUDA_CHECK(cudaFuncSetAttribute(census_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  std::uint32_t* ids = nullptr;
  XB_CUDA_CHECK(cudaMalloc(&ids, static_cast<std::size_t>(sms) * sizeof(std::uint32_t)));
  void* params[] = {&ids};
  XB_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(census_kernel), sms, 32, params,
                                            static_cast<std::size_t>(smem), nullptr));
  std::vector<std::uint32_t> out(static_cast<std::size_t>(sms));
  XB_CUDA_CHECK(cudaMemcpy(out.data(), ids, out.size() * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
  XB_CUDA_CHECK(cudaFree(ids));
  std::sort(out.begin(), out.end());
  if (std::adjacent_find(out.begin(), out.end()) != out.end() || out.back() >= kMaxSmIds)
    fail(ErrorKind::internal, fmt::format("gpu{}: the SM census did not find {} distinct SM ids below {}",
                                          current_device(), sms, kMaxSmIds));
  return out;
}

// One launch of a budgeted kernel: `per_sm` blocks of `threads` on each of
// `sm_count` SMs (at most `blocks` in all when every SM is used) and at
// least `smem` bytes of dynamic shared memory per block.
struct Launch {
  int blocks = 1, threads = 32, per_sm = 1, sm_count = 0, smem = 0;
};

// Makes `l` a pinned launch when it asks for fewer SMs than the GPU has:
// every SM gets exactly the blocks per SM that fit (at most l.per_sm), with
// shared memory sized so that no more fit, and `pin` names the chosen SMs.
bool pin_launch(const void* kernel, Launch& l, Pin& pin) {
  const int all = device_attr(cudaDevAttrMultiProcessorCount);
  const bool pinned = l.sm_count < all;
  XB_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                     pinned ? cudaSharedmemCarveoutMaxShared : cudaSharedmemCarveoutDefault));
  if (!pinned) return false;
  const int device = current_device();
  PinState& st = pin_states()[device];
  const auto table = st.rank.find(l.sm_count);
  if (table == st.rank.end())
    fail(ErrorKind::internal, fmt::format("gpu{}: SM pinning to {} SMs was not prepared", device, l.sm_count));
  cudaFuncAttributes at{};
  XB_CUDA_CHECK(cudaFuncGetAttributes(&at, kernel));
  int fit = 0;
  XB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, kernel, l.threads, l.smem));
  const int per_sm = std::max(1, std::min(l.per_sm, fit));
  const int fixed = static_cast<int>(at.sharedSizeBytes);
  int smem = std::min(device_attr(cudaDevAttrMaxSharedMemoryPerMultiprocessor) / per_sm -
                          device_attr(cudaDevAttrReservedSharedMemoryPerBlock) - fixed,
                      device_attr(cudaDevAttrMaxSharedMemoryPerBlockOptin) - fixed);
  for (; smem >= l.smem; smem -= 1024) {
    XB_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    XB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, kernel, l.threads, static_cast<std::size_t>(smem)));
    if (fit >= per_sm) break;
  }
  if (fit != per_sm || smem < l.smem)
    fail(ErrorKind::internal, fmt::format("gpu{}: cannot place exactly {} blocks of {} threads on an SM", device,
                                          per_sm, l.threads));
  pin = Pin{table->second, st.started, static_cast<std::uint32_t>(per_sm),
            static_cast<std::uint32_t>(l.sm_count * per_sm)};
  l.blocks = all * per_sm;
  l.smem = smem;
  return true;
}

// Launches kernel(pin, args...) as `l` says, pinned below all SMs
// (cooperatively: every block is resident, one wave). The arguments take
// the kernel's parameter types (common_type of one type: not deduced).
template <typename... P>
void launch_budgeted(void (*kernel)(Pin, P...), Launch l, cudaStream_t stream, std::common_type_t<P>... args) {
  const auto* k = reinterpret_cast<const void*>(kernel);
  if (l.smem > 0) XB_CUDA_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, l.smem));
  Pin pin;
  const bool pinned = pin_launch(k, l, pin);
  void* params[] = {&pin, &args...};
  const auto smem = static_cast<std::size_t>(l.smem);
  if (pinned) {
    XB_CUDA_CHECK(cudaLaunchCooperativeKernel(k, l.blocks, l.threads, params, smem, stream));
  } else {
    XB_CUDA_CHECK(cudaLaunchKernel(k, l.blocks, l.threads, params, smem, stream));
  }
}

// A vector kernel's launch: cfg's threads and blocks per SM (or the
// defaults) over sm_count SMs, no more blocks than there is work for.
Launch vector_launch(const SmCopyConfig& cfg, int sm_count, std::uint64_t nvec, int default_per_sm) {
  Launch l;
  l.threads = cfg.threads > 0 ? cfg.threads : 512;
  l.per_sm = cfg.blocks_per_sm > 0 ? cfg.blocks_per_sm : default_per_sm;
  l.sm_count = sm_count;
  const std::uint64_t needed = std::max<std::uint64_t>(1, (nvec + l.threads - 1) / l.threads);
  l.blocks = static_cast<int>(std::min<std::uint64_t>(needed, static_cast<std::uint64_t>(sm_count) * l.per_sm));
  return l;
}

// The bulk pipeline over the whole chunks of `bytes` (dst null: read only);
// returns the bytes it covers, the rest is the caller's.
template <bool Store>
std::uint64_t launch_bulk(char* dst, const char* src, std::uint64_t bytes, const SmCopyConfig& cfg, int sm_count,
                          cudaStream_t stream, std::uint32_t reps) {
  const auto chunk = static_cast<std::uint32_t>((cfg.chunk_kib > 0 ? cfg.chunk_kib : 32) * 1024);
  const std::uint64_t nchunks = bytes / chunk;
  if (nchunks == 0) return 0;
  Launch l;
  l.per_sm = cfg.blocks_per_sm > 0 ? cfg.blocks_per_sm : 1;
  l.sm_count = sm_count;
  l.blocks = static_cast<int>(std::min<std::uint64_t>(nchunks, static_cast<std::uint64_t>(sm_count) * l.per_sm));
  const int stages = cfg.stages > 0 ? cfg.stages : 3;
  l.smem = stages * static_cast<int>(chunk);
  switch (stages) {
    case 2: launch_budgeted(bulk_kernel<2, Store>, l, stream, dst, src, nchunks, chunk, reps); break;
    case 3: launch_budgeted(bulk_kernel<3, Store>, l, stream, dst, src, nchunks, chunk, reps); break;
    case 4: launch_budgeted(bulk_kernel<4, Store>, l, stream, dst, src, nchunks, chunk, reps); break;
    default: fail(ErrorKind::usage, "bulk copy stages must be 2, 3 or 4");
  }
  return nchunks * chunk;
}

// Calls fn(std::integral_constant<int, U>) for the unroll U of a vector
// kernel (loads in flight per thread); Error(usage) naming `what` otherwise.
template <typename Fn>
void with_unroll(int unroll, const char* what, Fn fn) {
  switch (unroll) {
    case 1: fn(std::integral_constant<int, 1>{}); break;
    case 2: fn(std::integral_constant<int, 2>{}); break;
    case 4: fn(std::integral_constant<int, 4>{}); break;
    case 8: fn(std::integral_constant<int, 8>{}); break;
    case 12: fn(std::integral_constant<int, 12>{}); break;  // nvbandwidth's striding kernel's depth
    case 16: fn(std::integral_constant<int, 16>{}); break;
    default: fail(ErrorKind::usage, fmt::format("{} unroll must be 1, 2, 4, 8, 12 or 16", what));
  }
}

// The vector copy with cache hint Hint: 16-byte vectors, then the tail bytes.
template <int Hint>
void launch_copy(int unroll, const Launch& l, cudaStream_t stream, char* dst, const char* src, std::uint64_t bytes,
                 std::uint32_t reps) {
  const std::uint64_t nvec = bytes / 16;
  with_unroll(unroll, "sm copy", [&](auto u) {
    launch_budgeted(sm_copy_kernel<decltype(u)::value, Hint>, l, stream, reinterpret_cast<uint4*>(dst),
                    reinterpret_cast<const uint4*>(src), nvec, reinterpret_cast<unsigned char*>(dst) + nvec * 16,
                    reinterpret_cast<const unsigned char*>(src) + nvec * 16, static_cast<int>(bytes % 16), reps);
  });
}

constexpr int kCheckThreads = 512;

int check_blocks() { return device_attr(cudaDevAttrMultiProcessorCount) * 4; }

void check_aligned(const void* p, const char* what) {
  if (reinterpret_cast<std::uintptr_t>(p) % 16 != 0)
    fail(ErrorKind::internal, fmt::format("{} needs a 16-byte aligned buffer", what));
}

void check_reps(int reps, const char* what) {
  if (reps < 1) fail(ErrorKind::internal, fmt::format("{} repetitions must be at least 1", what));
}

// True when the current device has a Tensor Memory Accelerator (sm_90+).
bool tma_supported() { return device_attr(cudaDevAttrComputeCapabilityMajor) >= 9; }

void require_tma() {
  if (!tma_supported())
    fail(ErrorKind::usage, fmt::format("gpu{} has no Tensor Memory Accelerator (compute capability 9.0 or later needed)",
                                       current_device()));
}

}  // namespace

void prepare_sm_pinning(int sm_count) {
  const int all = device_attr(cudaDevAttrMultiProcessorCount);
  if (sm_count >= all) return;
  PinState& st = pin_states()[current_device()];
  if (st.rank.count(sm_count) != 0) return;
  if (st.smids.empty()) {
    st.smids = sm_census(all);
    XB_CUDA_CHECK(cudaMalloc(&st.started, kMaxSmIds * sizeof(std::uint32_t)));
    XB_CUDA_CHECK(cudaMemset(st.started, 0, kMaxSmIds * sizeof(std::uint32_t)));
  }
  // The chosen SMs are spread evenly over the sorted SM ids. The first SMs
  // to start a block share a few of the GPU's partitions: on an H200, 64 of
  // them read HBM at 2.9 TB/s where 64 spread ones read 4.6
  // (bench/results/2026-11-25-h200-sm-pinning).
  std::vector<std::int32_t> rank(kMaxSmIds, -1);
  for (int i = 0; i < sm_count; ++i)
    rank[st.smids[static_cast<std::size_t>(i) * st.smids.size() / static_cast<std::size_t>(sm_count)]] = i;
  std::int32_t* table = nullptr;
  XB_CUDA_CHECK(cudaMalloc(&table, kMaxSmIds * sizeof(std::int32_t)));
  XB_CUDA_CHECK(cudaMemcpy(table, rank.data(), kMaxSmIds * sizeof(std::int32_t), cudaMemcpyHostToDevice));
  st.rank[sm_count] = table;
}

void launch_sm_copy(void* dst, const void* src, std::uint64_t bytes, const SmCopyConfig& cfg, int sm_count,
                    cudaStream_t stream, int reps) {
  check_reps(reps, "sm copy");
  const auto passes = static_cast<std::uint32_t>(reps);
  auto* d = static_cast<char*>(dst);
  const auto* s = static_cast<const char*>(src);
  if (cfg.method == SmCopyConfig::Method::bulk && tma_supported()) {
    const std::uint64_t done = launch_bulk<true>(d, s, bytes, cfg, sm_count, stream, passes);
    XB_CUDA_CHECK(cudaGetLastError());
    // The remainder that does not fill a chunk.
    if (done < bytes) launch_sm_copy(d + done, s + done, bytes - done, SmCopyConfig{}, sm_count, stream, reps);
    return;
  }
  if ((reinterpret_cast<std::uintptr_t>(dst) | reinterpret_cast<std::uintptr_t>(src)) % 16 != 0)
    fail(ErrorKind::internal, "sm copy needs 16-byte aligned buffers");
  const Launch l = vector_launch(cfg, sm_count, bytes / 16, 2);
  const int unroll = cfg.unroll > 0 ? cfg.unroll : 4;
  if (cfg.l2_only) {
    launch_copy<3>(unroll, l, stream, d, s, bytes, passes);
  } else if (cfg.l2_256b) {
    launch_copy<2>(unroll, l, stream, d, s, bytes, passes);
  } else if (cfg.streaming) {
    launch_copy<1>(unroll, l, stream, d, s, bytes, passes);
  } else {
    launch_copy<0>(unroll, l, stream, d, s, bytes, passes);
  }
  XB_CUDA_CHECK(cudaGetLastError());
}

void launch_tma_copy(void* dst, const void* src, std::uint64_t bytes, const SmCopyConfig& cfg, int sm_count,
                     cudaStream_t stream, int reps) {
  if (cfg.method != SmCopyConfig::Method::bulk) fail(ErrorKind::internal, "a TMA copy needs a bulk configuration");
  require_tma();
  launch_sm_copy(dst, src, bytes, cfg, sm_count, stream, reps);
}

void launch_tma_chase(const void* buf, std::uint64_t steps, unsigned long long* sink, int blocks, int active_block,
                      cudaStream_t stream) {
  require_tma();
  check_aligned(buf, "the TMA pointer chase");
  tma_chase_kernel<<<blocks, 1, 0, stream>>>(buf, steps, sink, active_block);
  XB_CUDA_CHECK(cudaGetLastError());
}

void launch_read_only(const void* src, std::uint64_t bytes, const SmCopyConfig& cfg, int sm_count, bool check,
                      unsigned long long* out, unsigned long long sentinel, cudaStream_t stream, int reps) {
  check_reps(reps, "read-only kernel");
  check_aligned(src, "the read-only kernel");
  auto passes = static_cast<std::uint32_t>(reps);
  const auto* v = static_cast<const uint4*>(src);
  std::uint64_t done = 0;
  if (!check && cfg.method == SmCopyConfig::Method::bulk && tma_supported()) {
    done = launch_bulk<false>(nullptr, static_cast<const char*>(src), bytes, cfg, sm_count, stream, passes);
    if (done == bytes) {
      XB_CUDA_CHECK(cudaGetLastError());
      return;
    }
  }
  // The vector kernel: the whole buffer, or what the bulk chunks left.
  v += done / 16;
  bytes -= done;
  const std::uint64_t nvec = bytes / 16;
  const Launch l = vector_launch(cfg.method == SmCopyConfig::Method::bulk ? SmCopyConfig{} : cfg, sm_count, nvec, 4);
  with_unroll(cfg.unroll > 0 ? cfg.unroll : 4, "read-only kernel", [&](auto u) {
    constexpr int kUnroll = decltype(u)::value;
    if (check) {
      launch_budgeted(read_only_kernel<kUnroll, true>, l, stream, v, nvec, bytes, out, sentinel, passes);
    } else {
      launch_budgeted(read_only_kernel<kUnroll, false>, l, stream, v, nvec, bytes, out, sentinel, passes);
    }
  });
  XB_CUDA_CHECK(cudaGetLastError());
}

void launch_pattern_checksum(std::uint64_t bytes, std::uint64_t seed, unsigned long long* out, cudaStream_t stream) {
  pattern_checksum_kernel<<<check_blocks(), kCheckThreads, 0, stream>>>(bytes, seed, out);
  XB_CUDA_CHECK(cudaGetLastError());
}

void launch_write_only(void* dst, std::uint64_t bytes, std::uint32_t base, const SmCopyConfig& cfg, int sm_count,
                       cudaStream_t stream, int reps) {
  check_reps(reps, "write-only kernel");
  check_aligned(dst, "the write-only kernel");
  const std::uint64_t nvec = bytes / 16;
  const Launch l = vector_launch(cfg, sm_count, nvec, 4);
  auto* v = static_cast<uint4*>(dst);
  const auto passes = static_cast<std::uint32_t>(reps);
  with_unroll(cfg.unroll > 0 ? cfg.unroll : 4, "write-only kernel", [&](auto u) {
    launch_budgeted(write_only_kernel<decltype(u)::value>, l, stream, v, nvec, bytes, base, passes);
  });
  XB_CUDA_CHECK(cudaGetLastError());
}

void launch_verify_written(const void* dst, std::uint64_t bytes, std::uint32_t base, unsigned long long* first_bad,
                           cudaStream_t stream) {
  verify_written_kernel<<<check_blocks(), kCheckThreads, 0, stream>>>(static_cast<const std::uint32_t*>(dst), bytes,
                                                                      base, first_bad);
  XB_CUDA_CHECK(cudaGetLastError());
}

void preload_sm_kernels() {
  load_kernels(census_kernel, tma_chase_kernel, sm_copy_kernel<1, 0>, sm_copy_kernel<2, 0>, sm_copy_kernel<4, 0>,
               sm_copy_kernel<8, 0>, sm_copy_kernel<4, 1>, sm_copy_kernel<4, 2>, sm_copy_kernel<4, 3>,
               bulk_kernel<2, true>, bulk_kernel<3, true>, bulk_kernel<4, true>, bulk_kernel<3, false>,
               read_only_kernel<4, false>, read_only_kernel<4, true>, write_only_kernel<4>, pattern_checksum_kernel,
               verify_written_kernel);
}

}  // namespace xb
