#include <algorithm>

#include <fmt/format.h>

#include "machine/cuda_check.hpp"
#include "base/error.hpp"
#include "kernels/kernels.hpp"
#include "base/pattern.hpp"

namespace xb {
namespace {

__global__ void tma_chase_kernel(const void* start, std::uint64_t steps, unsigned long long* sink, int active_block) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  __shared__ __align__(16) std::uint64_t landing[2];
  __shared__ __align__(8) std::uint64_t bar;
  auto smem_addr = [](const void* p) { return static_cast<std::uint32_t>(__cvta_generic_to_shared(p)); };
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
    std::uint32_t done = 0;
    while (!done) {
      asm volatile(
          "{ .reg .pred q; mbarrier.try_wait.parity.shared::cta.b64 q, [%1], %2; selp.u32 %0, 1, 0, q; }"
          : "=r"(done)
          : "r"(smem_addr(&bar)), "r"(static_cast<std::uint32_t>(s & 1))
          : "memory");
    }
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

template <int U, bool Check>
__global__ void __launch_bounds__(1024) read_only_kernel(const uint4* __restrict__ src, std::uint64_t nvec,
                                                         std::uint64_t bytes, unsigned long long* out,
                                                         unsigned long long sentinel, std::uint32_t reps) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  const std::uint64_t first = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  uint4 acc = make_uint4(0, 0, 0, 0);
  for (std::uint32_t r = 0; r < reps; ++r) {
    std::uint64_t i = first;
    for (; i + (U - 1) * stride < nvec; i += U * stride) {
      uint4 v[U];
#pragma unroll
      for (int u = 0; u < U; ++u) v[u] = src[i + u * stride];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        acc.x ^= v[u].x;
        acc.y ^= v[u].y;
        acc.z ^= v[u].z;
        acc.w ^= v[u].w;
      }
    }
    for (; i < nvec; i += stride) {
      const uint4 v = src[i];
      acc.x ^= v.x;
      acc.y ^= v.y;
      acc.z ^= v.z;
      acc.w ^= v.w;
    }
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
__global__ void __launch_bounds__(1024) write_only_kernel(uint4* __restrict__ dst, std::uint64_t nvec,
                                                          std::uint64_t bytes, std::uint32_t base, std::uint32_t reps) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  const std::uint64_t first = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
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

// Grid of a vector kernel: cfg's blocks per SM (one when SMs are exclusive)
// over sm_count SMs, no more blocks than there is work for.
struct Shape {
  int blocks = 1, threads = 512, unroll = 4, smem = 0;
};

Shape vector_shape(const SmCopyConfig& cfg, int sm_count, std::uint64_t nvec) {
  Shape s;
  s.threads = cfg.threads > 0 ? cfg.threads : 512;
  s.unroll = cfg.unroll > 0 ? cfg.unroll : 4;
  const int per_sm = cfg.one_block_per_sm ? 1 : (cfg.blocks_per_sm > 0 ? cfg.blocks_per_sm : 4);
  const std::uint64_t needed = std::max<std::uint64_t>(1, (nvec + s.threads - 1) / s.threads);
  s.blocks = static_cast<int>(std::min<std::uint64_t>(needed, static_cast<std::uint64_t>(sm_count) * per_sm));
  s.smem = cfg.one_block_per_sm ? exclusive_sm_smem_bytes() : 0;
  return s;
}

template <typename Kernel>
void allow_smem(Kernel k, int smem) {
  if (smem > 0) XB_CUDA_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
}

template <int U, bool Check>
void launch_read_variant(const Shape& s, cudaStream_t stream, const uint4* src, std::uint64_t nvec,
                         std::uint64_t bytes, unsigned long long* out, unsigned long long sentinel, std::uint32_t reps) {
  allow_smem(read_only_kernel<U, Check>, s.smem);
  read_only_kernel<U, Check><<<s.blocks, s.threads, s.smem, stream>>>(src, nvec, bytes, out, sentinel, reps);
}

template <bool Check>
void launch_read_unroll(const Shape& s, cudaStream_t stream, const uint4* src, std::uint64_t nvec,
                        std::uint64_t bytes, unsigned long long* out, unsigned long long sentinel, std::uint32_t reps) {
  switch (s.unroll) {
    case 1: launch_read_variant<1, Check>(s, stream, src, nvec, bytes, out, sentinel, reps); break;
    case 2: launch_read_variant<2, Check>(s, stream, src, nvec, bytes, out, sentinel, reps); break;
    case 4: launch_read_variant<4, Check>(s, stream, src, nvec, bytes, out, sentinel, reps); break;
    case 8: launch_read_variant<8, Check>(s, stream, src, nvec, bytes, out, sentinel, reps); break;
    case 16: launch_read_variant<16, Check>(s, stream, src, nvec, bytes, out, sentinel, reps); break;
    default: fail(ErrorKind::usage, "read-only kernel unroll must be 1, 2, 4, 8 or 16");
  }
}

template <int U>
void launch_write_variant(const Shape& s, cudaStream_t stream, uint4* dst, std::uint64_t nvec, std::uint64_t bytes,
                          std::uint32_t base, std::uint32_t reps) {
  allow_smem(write_only_kernel<U>, s.smem);
  write_only_kernel<U><<<s.blocks, s.threads, s.smem, stream>>>(dst, nvec, bytes, base, reps);
}

constexpr int kCheckThreads = 512;

int check_blocks() { return device_attr(cudaDevAttrMultiProcessorCount) * 4; }

void check_aligned(const void* p, const char* what) {
  if (reinterpret_cast<std::uintptr_t>(p) % 16 != 0)
    fail(ErrorKind::internal, fmt::format("{} needs a 16-byte aligned buffer", what));
}

}  // namespace

bool tma_supported() { return device_attr(cudaDevAttrComputeCapabilityMajor) >= 9; }

int exclusive_sm_smem_bytes() {
  const int per_sm = device_attr(cudaDevAttrMaxSharedMemoryPerMultiprocessor);
  const int per_block = device_attr(cudaDevAttrMaxSharedMemoryPerBlockOptin);
  return std::min(per_block, per_sm / 2 + 1024);
}

void launch_tma_copy(void* dst, const void* src, std::uint64_t bytes, const SmCopyConfig& cfg, int sm_count,
                     cudaStream_t stream, int reps) {
  if (cfg.method != SmCopyConfig::Method::bulk) fail(ErrorKind::internal, "a TMA copy needs a bulk configuration");
  if (!tma_supported())
    fail(ErrorKind::usage, fmt::format("gpu{} has no Tensor Memory Accelerator (compute capability 9.0 or later needed)",
                                       current_device()));
  launch_sm_copy(dst, src, bytes, cfg, sm_count, stream, reps);
}

void launch_tma_chase(const void* buf, std::uint64_t steps, unsigned long long* sink, int blocks, int active_block,
                      cudaStream_t stream) {
  if (!tma_supported())
    fail(ErrorKind::usage, fmt::format("gpu{} has no Tensor Memory Accelerator (compute capability 9.0 or later needed)",
                                       current_device()));
  check_aligned(buf, "the TMA pointer chase");
  tma_chase_kernel<<<blocks, 1, 0, stream>>>(buf, steps, sink, active_block);
  XB_CUDA_CHECK(cudaGetLastError());
}

void launch_read_only(const void* src, std::uint64_t bytes, const SmCopyConfig& cfg, int sm_count, bool check,
                      unsigned long long* out, unsigned long long sentinel, cudaStream_t stream, int reps) {
  if (reps < 1) fail(ErrorKind::internal, "read-only kernel repetitions must be at least 1");
  check_aligned(src, "the read-only kernel");
  const std::uint64_t nvec = bytes / 16;
  const Shape s = vector_shape(cfg, sm_count, nvec);
  const auto* v = static_cast<const uint4*>(src);
  const auto passes = static_cast<std::uint32_t>(reps);
  if (check) {
    launch_read_unroll<true>(s, stream, v, nvec, bytes, out, sentinel, passes);
  } else {
    launch_read_unroll<false>(s, stream, v, nvec, bytes, out, sentinel, passes);
  }
  XB_CUDA_CHECK(cudaGetLastError());
}

void launch_pattern_checksum(std::uint64_t bytes, std::uint64_t seed, unsigned long long* out, cudaStream_t stream) {
  pattern_checksum_kernel<<<check_blocks(), kCheckThreads, 0, stream>>>(bytes, seed, out);
  XB_CUDA_CHECK(cudaGetLastError());
}

void launch_write_only(void* dst, std::uint64_t bytes, std::uint32_t base, const SmCopyConfig& cfg, int sm_count,
                       cudaStream_t stream, int reps) {
  if (reps < 1) fail(ErrorKind::internal, "write-only kernel repetitions must be at least 1");
  check_aligned(dst, "the write-only kernel");
  const std::uint64_t nvec = bytes / 16;
  const Shape s = vector_shape(cfg, sm_count, nvec);
  auto* v = static_cast<uint4*>(dst);
  const auto passes = static_cast<std::uint32_t>(reps);
  switch (s.unroll) {
    case 1: launch_write_variant<1>(s, stream, v, nvec, bytes, base, passes); break;
    case 2: launch_write_variant<2>(s, stream, v, nvec, bytes, base, passes); break;
    case 4: launch_write_variant<4>(s, stream, v, nvec, bytes, base, passes); break;
    case 8: launch_write_variant<8>(s, stream, v, nvec, bytes, base, passes); break;
    case 16: launch_write_variant<16>(s, stream, v, nvec, bytes, base, passes); break;
    default: fail(ErrorKind::usage, "write-only kernel unroll must be 1, 2, 4, 8 or 16");
  }
  XB_CUDA_CHECK(cudaGetLastError());
}

void launch_verify_written(const void* dst, std::uint64_t bytes, std::uint32_t base, unsigned long long* first_bad,
                           cudaStream_t stream) {
  verify_written_kernel<<<check_blocks(), kCheckThreads, 0, stream>>>(static_cast<const std::uint32_t*>(dst), bytes,
                                                                      base, first_bad);
  XB_CUDA_CHECK(cudaGetLastError());
}

void preload_tma_kernels() {
  load_kernels(tma_chase_kernel, read_only_kernel<4, false>, read_only_kernel<4, true>, write_only_kernel<4>,
               pattern_checksum_kernel, verify_written_kernel);
}

}  // namespace xb
