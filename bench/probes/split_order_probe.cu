// Probe: does the order in which a split-warp bidirectional host<->GPU copy
// walks its buffer change what it measures when several GPUs run at once?
//
//   chunk  each thread copies its own 16 bytes `loops` times before the
//          block ends, so at any moment only the resident blocks' few MiB
//          of host memory are touched (the order nvbandwidth's split-warp
//          kernel uses, per its source).
//   stream every pass walks the whole buffer before the next pass starts
//          (the order xferbench's split-warp kernel uses).
//
// Usage: split_order_probe MODE MIB LOOPS GPU [GPU...]
// All listed GPUs run their copy at the same time behind one gate; prints
// each GPU's per-direction GB/s (half the bytes moved over its own time)
// and start/end in ms after the first start.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); std::exit(1); } } while (0)

__global__ void gate(volatile int* flag) { while (*flag == 0) __nanosleep(200); }

__global__ void stamp(unsigned long long* at) {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  *at = t;
}

// Odd warps copy a -> b, even warps b -> a, 16 bytes per thread per loop.
__global__ void chunk_order(uint4* a, uint4* b, unsigned loops) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool odd = (i / 32) & 1;
  uint4* d = odd ? b : a;
  const uint4* s = odd ? a : b;
  for (unsigned l = 0; l < loops; ++l) __stcg(d + i, __ldcg(s + i));
}

__global__ void stream_order(uint4* a, uint4* b, size_t n, unsigned loops) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (unsigned l = 0; l < loops; ++l)
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
      const bool odd = (i / 32) & 1;
      uint4* d = odd ? b : a;
      const uint4* s = odd ? a : b;
      __stcg(d + i, __ldcg(s + i));
    }
}

int main(int argc, char** argv) {
  if (argc < 5) { std::fprintf(stderr, "usage: %s chunk|stream MIB LOOPS GPU...\n", argv[0]); return 2; }
  const bool chunk = std::strcmp(argv[1], "chunk") == 0;
  const size_t bytes = size_t(std::atol(argv[2])) << 20;
  const unsigned loops = unsigned(std::atoi(argv[3]));
  std::vector<int> gpus;
  for (int i = 4; i < argc; ++i) gpus.push_back(std::atoi(argv[i]));
  const size_t n = bytes / 16;
  int* flag = nullptr;
  CK(cudaHostAlloc(&flag, sizeof(int), cudaHostAllocMapped | cudaHostAllocPortable));
  struct G { int id; void* h; void* d; cudaStream_t s; cudaEvent_t e0, e1; int sms; unsigned long long* t; };
  std::vector<G> gs;
  for (int id : gpus) {
    G g{}; g.id = id;
    CK(cudaSetDevice(id));
    CK(cudaHostAlloc(&g.h, bytes, cudaHostAllocPortable | cudaHostAllocMapped));
    std::memset(g.h, 1, bytes);
    CK(cudaMalloc(&g.d, bytes));
    CK(cudaMemset(g.d, 2, bytes));
    CK(cudaStreamCreateWithFlags(&g.s, cudaStreamNonBlocking));
    CK(cudaEventCreate(&g.e0)); CK(cudaEventCreate(&g.e1));
    CK(cudaHostAlloc(&g.t, 2 * sizeof(unsigned long long), cudaHostAllocMapped | cudaHostAllocPortable));
    CK(cudaDeviceGetAttribute(&g.sms, cudaDevAttrMultiProcessorCount, id));
    gs.push_back(g);
  }
  for (int sample = 0; sample < 5; ++sample) {
    *(volatile int*)flag = 0;
    for (auto& g : gs) {
      CK(cudaSetDevice(g.id));
      gate<<<1, 1, 0, g.s>>>(flag);
      CK(cudaEventRecord(g.e0, g.s));
      stamp<<<1, 1, 0, g.s>>>(g.t);
      if (chunk) chunk_order<<<unsigned(n / 1024), 1024, 0, g.s>>>((uint4*)g.h, (uint4*)g.d, loops);
      else stream_order<<<g.sms * 16, 128, 0, g.s>>>((uint4*)g.h, (uint4*)g.d, n, loops);
      CK(cudaGetLastError());
      stamp<<<1, 1, 0, g.s>>>(g.t + 1);
      CK(cudaEventRecord(g.e1, g.s));
    }
    *(volatile int*)flag = 1;
    for (auto& g : gs) { CK(cudaSetDevice(g.id)); CK(cudaStreamSynchronize(g.s)); }
    std::printf("%s %zuMiB x%u gpus", argv[1], bytes >> 20, loops);
    for (int id : gpus) std::printf(" %d", id);
    std::printf(" sample %d:", sample);
    for (auto& g : gs) {
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, g.e0, g.e1));
      const double off = (double(g.t[0]) - double(gs[0].t[0])) * 1e-6, end = (double(g.t[1]) - double(gs[0].t[0])) * 1e-6;
      std::printf("  gpu%d %.2f GB/s/dir (%+.1f..%+.1f ms)", g.id,
                  double(bytes) * loops / 2 / (ms * 1e-3) / 1e9, off, end);
    }
    std::printf("\n");
  }
  return 0;
}
