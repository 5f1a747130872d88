// Does device_local_latency_sm read device memory, not the L2? One thread
// chases the same scattered ring as xferbench's local chase (line i points
// to line (a*i + c) mod lines, a = 1 mod 4, c odd: one cycle through every
// line) over rings from 1 MiB to 2 GiB, continuing from where the last
// launch stopped, and prints ns per hop per ring size. Rings that fit the
// L2 (50 MiB on H100/H200) should be clearly faster than the 512 MiB ring
// xferbench uses, and the curve should be flat beyond a few times the L2.
// Build: nvcc -O2 -arch=sm_90 -o local_latency_rings bench/probes/local_latency_rings.cu
// Usage: local_latency_rings [hops]  (default 200000)
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#define CHECK(x)                                                                 \
  do {                                                                           \
    cudaError_t e = (x);                                                         \
    if (e != cudaSuccess) {                                                      \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e));               \
      std::exit(1);                                                              \
    }                                                                            \
  } while (0)

constexpr std::uint64_t kLine = 128;

__global__ void build(std::uint64_t* ring, std::uint64_t lines) {
  const std::uint64_t a = 0x9E3779B97F4A7C15ull, c = 0x632BE59BD9B4E019ull;
  const auto base = reinterpret_cast<std::uint64_t>(ring);
  for (std::uint64_t i = blockIdx.x * 256ull + threadIdx.x; i < lines; i += gridDim.x * 256ull)
    ring[i * (kLine / 8)] = base + ((a * i + c) & (lines - 1)) * kLine;
}

__global__ void chase(const void* start, std::uint64_t hops, unsigned long long* cursor) {
  const void* p = *cursor ? reinterpret_cast<const void*>(*cursor) : start;
  for (std::uint64_t s = 0; s < hops; ++s) p = *reinterpret_cast<const void* const*>(p);
  *cursor = reinterpret_cast<unsigned long long>(p);
}

int main(int argc, char** argv) {
  const std::uint64_t hops = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 200000;
  int l2 = 0;
  CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  std::printf("# L2 %d MiB; %llu hops per size, after a warm-up of the same length\n", l2 >> 20,
              static_cast<unsigned long long>(hops));
  std::printf("# ring_mib ns_per_hop\n");
  unsigned long long* cursor = nullptr;
  CHECK(cudaMalloc(&cursor, sizeof(*cursor)));
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (std::uint64_t mib = 1; mib <= 2048; mib *= 2) {
    void* ring = nullptr;
    CHECK(cudaMalloc(&ring, mib << 20));
    build<<<1024, 256>>>(static_cast<std::uint64_t*>(ring), (mib << 20) / kLine);
    CHECK(cudaMemset(cursor, 0, sizeof(*cursor)));
    chase<<<1, 1>>>(ring, hops, cursor);  // warm-up: TLB, and small rings into the L2
    CHECK(cudaEventRecord(a));
    chase<<<1, 1>>>(ring, hops, cursor);
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    std::printf("%8llu %8.1f\n", static_cast<unsigned long long>(mib), ms * 1e6 / static_cast<double>(hops));
    CHECK(cudaFree(ring));
  }
  return 0;
}
