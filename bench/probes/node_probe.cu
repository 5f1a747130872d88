// An independent probe of a whole node's shared-link figures, written
// without any of xferbench's code, to hold xferbench's own cells against.
//
//   node_probe fan MIB COPIES
//     For every GPU g and each of the four fan shapes (all peers read from g,
//     g writes to all peers, all peers write to g, g reads from all peers):
//     one stream per copy, each held by a spin kernel until every copy is
//     queued, then released together. Prints the total bytes over the time
//     from the release to the last copy's end (GB/s).
//   node_probe hostbidir MIB COPIES
//     Every GPU at once copies between its own memory and pinned host memory
//     both ways with one SM kernel (odd warps host -> GPU, even warps
//     GPU -> host), each pass walking the whole buffer; all GPUs released
//     together. Prints per GPU the per-direction GB/s (half the bytes over
//     its own time), and the same with one GPU alone.
//   node_probe flag A B ITERS
//     One thread on GPU A and one on GPU B ping-pong a sequence number:
//     each stores into a flag in the other's memory and polls its own.
//     Prints the one-way time (round trip / 2) for several variants of
//     what a transport does besides the store and the poll.
//   node_probe flagbits A B ITERS
//     Variant 1 with, one at a time and all together, the pieces a
//     transport's loop adds (flag_bits below): where the time goes.
//   node_probe flagpoll A B ITERS
//     The 8-byte flag with other shapes of the poll and the answer (flag_poll
//     below): other load kinds, loads in flight, several pollers.
//   node_probe flagipc A B ITERS
//     The same 16-byte word-pair ping-pong, but between two processes (a
//     fork before CUDA starts), each with one GPU, the peer's flag mapped
//     over CUDA IPC: what a transport between two ranks starts from.
//   node_probe flagplace A B ITERS
//     The 8-byte flag run by one thread on a chosen SM of each GPU, with
//     the flag at a chosen offset in a 4 MiB buffer (flag_place below):
//     whether the one-way time depends on where the poller runs and where
//     its flag lives, beside each poller's own load latency of its flag.
//   node_probe hostwrite MIB PASSES
//     Every GPU at once, then each alone, writes its memory to a pinned host
//     buffer with one SM kernel (16-byte stores, every SM), PASSES walks of
//     MIB, for three kinds of host buffer: cudaHostAlloc (the driver's
//     pages), and mmap + cudaHostRegister with transparent huge pages
//     refused (MADV_NOHUGEPAGE) or asked for (MADV_HUGEPAGE). Prints per GPU
//     GB/s and the huge pages in the mappings that hold the mmap'd buffers
//     (AnonHugePages of /proc/self/smaps, each mapping once).
//   node_probe localce MIB
//     Whether a same-GPU cudaMemcpyAsync runs on the copy engine: every SM
//     is held by a spinning kernel while the copy is queued on another
//     stream; a copy that ends while the SMs are held did not need them.
#include <cuda_runtime.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CK(x)                                                                                      \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));      \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

__global__ void spin(volatile int* flag) {
  while (*flag == 0) __nanosleep(100);
}

__global__ void fill(uint4* p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = make_uint4(unsigned(i) ^ seed, unsigned(i >> 32) + seed, seed * 3u, unsigned(i) * 7u);
}

__global__ void count_bad(const uint4* p, size_t n, unsigned seed, unsigned long long* bad) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const uint4 v = p[i];
    if (v.x != (unsigned(i) ^ seed) || v.y != unsigned(i >> 32) + seed || v.z != seed * 3u || v.w != unsigned(i) * 7u)
      atomicAdd(bad, 1ull);
  }
}

static int gpu_count() {
  int n = 0;
  CK(cudaGetDeviceCount(&n));
  return n;
}

static void enable_peers(int n) {
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      if (a == b) continue;
      CK(cudaSetDevice(a));
      const cudaError_t e = cudaDeviceEnablePeerAccess(b, 0);
      if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled) CK(e);
      cudaGetLastError();
    }
}

static unsigned long long check(int dev, const void* p, size_t bytes, unsigned seed) {
  CK(cudaSetDevice(dev));
  unsigned long long* bad = nullptr;
  CK(cudaMallocManaged(&bad, sizeof *bad));
  *bad = 0;
  count_bad<<<1024, 256>>>(static_cast<const uint4*>(p), bytes / 16, seed, bad);
  CK(cudaDeviceSynchronize());
  const unsigned long long b = *bad;
  CK(cudaFree(bad));
  return b;
}

// One copy of the fan: dst <- src, issued by `exec`.
struct Copy {
  int exec;
  void* dst;
  const void* src;
  int src_dev, dst_dev;
};

// All copies released together; returns total GB/s from the release to the last end.
static double run_gated(const std::vector<Copy>& copies, size_t bytes, int reps, int* flag) {
  const size_t n = copies.size();
  std::vector<cudaStream_t> s(n);
  std::vector<cudaEvent_t> released(n), done(n);
  for (size_t i = 0; i < n; ++i) {
    CK(cudaSetDevice(copies[i].exec));
    CK(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking));
    CK(cudaEventCreate(&released[i]));
    CK(cudaEventCreate(&done[i]));
  }
  *flag = 0;
  for (size_t i = 0; i < n; ++i) {
    CK(cudaSetDevice(copies[i].exec));
    spin<<<1, 1, 0, s[i]>>>(flag);
    CK(cudaEventRecord(released[i], s[i]));
    for (int r = 0; r < reps; ++r) CK(cudaMemcpyAsync(copies[i].dst, copies[i].src, bytes, cudaMemcpyDefault, s[i]));
    CK(cudaEventRecord(done[i], s[i]));
  }
  __sync_synchronize();
  *flag = 1;
  double longest_ms = 0;
  for (size_t i = 0; i < n; ++i) {
    CK(cudaSetDevice(copies[i].exec));
    CK(cudaEventSynchronize(done[i]));
  }
  // Every stream's release is the same host store; time from the earliest
  // release (stream 0's device clock) to each end, taken on that device.
  for (size_t i = 0; i < n; ++i) {
    float ms = 0;
    CK(cudaSetDevice(copies[i].exec));
    CK(cudaEventElapsedTime(&ms, released[i], done[i]));
    longest_ms = std::max(longest_ms, double(ms));
  }
  for (size_t i = 0; i < n; ++i) {
    CK(cudaSetDevice(copies[i].exec));
    CK(cudaStreamDestroy(s[i]));
    CK(cudaEventDestroy(released[i]));
    CK(cudaEventDestroy(done[i]));
  }
  return double(bytes) * reps * n / (longest_ms * 1e-3) / 1e9;
}

static int fan(size_t mib, int reps) {
  const int n = gpu_count();
  if (n < 2) {
    std::puts("fan: needs 2 GPUs");
    return 1;
  }
  enable_peers(n);
  const size_t bytes = mib << 20;
  std::vector<void*> a(n), b(n * n);
  for (int g = 0; g < n; ++g) {
    CK(cudaSetDevice(g));
    CK(cudaMalloc(&a[g], bytes));
    fill<<<1024, 256>>>(static_cast<uint4*>(a[g]), bytes / 16, 100 + g);
    for (int p = 0; p < n; ++p) CK(cudaMalloc(&b[g * n + p], bytes));  // b[g*n+p]: on g, for peer p
    CK(cudaDeviceSynchronize());
  }
  int* flag = nullptr;
  CK(cudaHostAlloc(&flag, sizeof(int), cudaHostAllocMapped | cudaHostAllocPortable));
  const char* names[4] = {"all_to_one_read (peers read from g)", "one_to_all_write (g writes to peers)",
                          "all_to_one_write (peers write to g)", "one_to_all_read (g reads from peers)"};
  int bad_total = 0;
  for (int shape = 0; shape < 4; ++shape) {
    std::printf("%-40s", names[shape]);
    for (int g = 0; g < n; ++g) {
      std::vector<Copy> copies;
      for (int p = 0; p < n; ++p) {
        if (p == g) continue;
        const bool out_of_g = shape < 2;                 // data leaves g
        const bool peer_issues = shape == 0 || shape == 2;
        const int src_dev = out_of_g ? g : p, dst_dev = out_of_g ? p : g;
        Copy c;
        c.exec = peer_issues ? p : g;
        c.src = a[src_dev];
        c.dst = b[dst_dev * n + (out_of_g ? g : p)];
        c.src_dev = src_dev;
        c.dst_dev = dst_dev;
        copies.push_back(c);
      }
      for (const Copy& c : copies) {
        CK(cudaSetDevice(c.dst_dev));
        CK(cudaMemset(c.dst, 0, bytes));
      }
      const double gbps = run_gated(copies, bytes, reps, flag);
      for (const Copy& c : copies) bad_total += check(c.dst_dev, c.dst, bytes, 100 + c.src_dev) != 0;
      std::printf(" gpu%d %7.1f", g, gbps);
    }
    std::printf("\n");
  }
  std::printf("verification: %s\n", bad_total ? "FAILED" : "passed");
  return bad_total ? 1 : 0;
}

// Odd warps copy host -> device, even warps device -> host; every pass
// walks the whole buffer (grid-stride over warps' 512-byte pieces).
__global__ void split_stream(uint4* host, uint4* dev, size_t n, int passes) {
  const size_t lane = threadIdx.x & 31;
  const size_t warp = (size_t(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const size_t warps = (size_t(gridDim.x) * blockDim.x) >> 5;
  const bool odd = warp & 1;
  for (int p = 0; p < passes; ++p)
    for (size_t w = warp; w * 32 < n; w += warps) {
      const size_t i = w * 32 + lane;
      if (i >= n) break;
      if (odd)
        __stcg(dev + i, __ldcg(host + i));
      else
        __stcg(host + i, __ldcg(dev + i));
    }
}

// One stream per GPU, each held by a spin kernel on a host flag while a
// kernel is queued behind it, then all released at once. run(only, queue)
// queues `queue(g, stream)` on every GPU (or GPU `only`), releases them and
// returns each GPU's milliseconds from its release to its kernel's end (0
// for a GPU not run).
struct GatedGpus {
  int n;
  int* flag = nullptr;
  std::vector<cudaStream_t> s;
  std::vector<cudaEvent_t> e0, e1;
  explicit GatedGpus(int gpus) : n(gpus), s(gpus), e0(gpus), e1(gpus) {
    CK(cudaHostAlloc(&flag, sizeof(int), cudaHostAllocMapped | cudaHostAllocPortable));
    for (int g = 0; g < n; ++g) {
      CK(cudaSetDevice(g));
      CK(cudaStreamCreateWithFlags(&s[g], cudaStreamNonBlocking));
      CK(cudaEventCreate(&e0[g]));
      CK(cudaEventCreate(&e1[g]));
    }
  }
  template <class Queue>
  std::vector<double> run(int only, Queue queue) {
    std::vector<double> ms(n, 0.0);
    *flag = 0;
    for (int g = 0; g < n; ++g) {
      if (only >= 0 && g != only) continue;
      CK(cudaSetDevice(g));
      spin<<<1, 1, 0, s[g]>>>(flag);
      CK(cudaEventRecord(e0[g], s[g]));
      queue(g, s[g]);
      CK(cudaEventRecord(e1[g], s[g]));
    }
    __sync_synchronize();
    *flag = 1;
    for (int g = 0; g < n; ++g) {
      if (only >= 0 && g != only) continue;
      CK(cudaSetDevice(g));
      CK(cudaEventSynchronize(e1[g]));
      float t = 0;
      CK(cudaEventElapsedTime(&t, e0[g], e1[g]));
      ms[g] = t;
    }
    return ms;
  }
};

static int hostbidir(size_t mib, int passes) {
  const int n = gpu_count();
  const size_t bytes = mib << 20;
  std::vector<void*> h(n), d(n);
  for (int g = 0; g < n; ++g) {
    CK(cudaSetDevice(g));
    CK(cudaHostAlloc(&h[g], bytes, cudaHostAllocPortable));
    CK(cudaMalloc(&d[g], bytes));
  }
  GatedGpus gate(n);
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  auto run = [&](int only) {
    const auto ms = gate.run(only, [&](int g, cudaStream_t st) {
      split_stream<<<sms * 2, 1024, 0, st>>>(static_cast<uint4*>(h[g]), static_cast<uint4*>(d[g]), bytes / 16, passes);
    });
    for (int g = 0; g < n; ++g)
      if (ms[g] > 0) std::printf(" gpu%d %6.1f", g, double(bytes) * passes / 2 / (ms[g] * 1e-3) / 1e9);
  };
  for (int round = 0; round < 3; ++round) {
    std::printf("all GPUs at once, per direction GB/s:");
    run(-1);
    std::printf("\n");
  }
  std::printf("each GPU alone, per direction GB/s:   ");
  for (int g = 0; g < n; ++g) run(g);
  std::printf("\n");
  return 0;
}

__device__ __forceinline__ unsigned long long ld_flag(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.volatile.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void st_flag(unsigned long long* p, unsigned long long v) {
  asm volatile("st.volatile.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ void ld_pair(const unsigned long long* p, unsigned long long& a, unsigned long long& b) {
  asm volatile("ld.volatile.global.v2.u64 {%0, %1}, [%2];" : "=l"(a), "=l"(b) : "l"(p) : "memory");
}
__device__ __forceinline__ void st_pair(unsigned long long* p, unsigned long long a, unsigned long long b) {
  asm volatile("st.volatile.global.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(a), "l"(b) : "memory");
}

// Variant 0: 8-byte flag. 1: 16-byte word pair (data + sequence in each
// word). 2: as 1, plus the receiver stores the data to a local buffer and
// the responder re-reads it before answering (an echo), plus a block
// barrier after each receive. The initiator records globaltimer before
// and after `iters` round trips.
__global__ void flag_pingpong(unsigned long long* mine, unsigned long long* theirs, unsigned long long* scratch,
                              int initiator, int iters, int variant, unsigned long long* ns) {
  unsigned long long t0 = 0, t1 = 0;
  if (threadIdx.x == 0) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  for (int i = 1; i <= iters; ++i) {
    const unsigned long long seq = 2ull * i + (initiator ? 0 : 1);
    const unsigned long long want = 2ull * i + (initiator ? 1 : 0);
    auto send = [&]() {
      if (threadIdx.x != 0) return;
      unsigned long long data = variant == 2 ? scratch[0] : seq;
      if (variant == 0)
        st_flag(theirs, seq);
      else
        st_pair(theirs, (seq << 32) | (data & 0xffffffffu), (seq << 32) | (data >> 32));
    };
    auto receive = [&]() {
      if (threadIdx.x == 0) {
        if (variant == 0) {
          while (ld_flag(mine) < want) {
          }
        } else {
          unsigned long long lo, hi;
          do ld_pair(mine, lo, hi);
          while ((lo >> 32) < (want & 0xffffffffu) || (hi >> 32) < (want & 0xffffffffu));
          if (variant == 2) scratch[0] = (lo & 0xffffffffu) | (hi << 32);
        }
      }
      if (variant == 2) __syncthreads();
    };
    if (initiator) {
      send();
      receive();
    } else {
      receive();
      send();
    }
  }
  if (threadIdx.x == 0) {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
    *ns = t1 - t0;
  }
}

// What a transport's loop adds to variant 1, one piece per bit: 1 the
// receiver stores the data to a local buffer, 2 a block barrier with a
// vote after each receive, 4 a clock64 stamp per round trip into global
// memory, 8 the data sent is loaded from a global buffer each time, 16
// the poll counts its tries and naps 128 ns per try after 64.
__global__ void flag_bits(unsigned long long* mine, unsigned long long* theirs, unsigned long long* scratch,
                          int initiator, int iters, int bits, unsigned long long* ns) {
  unsigned long long t0 = 0, t1 = 0;
  if (threadIdx.x == 0) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  for (int i = 1; i <= iters; ++i) {
    const unsigned long long seq = 2ull * i + (initiator ? 0 : 1);
    const unsigned long long want = 2ull * i + (initiator ? 1 : 0);
    auto send = [&]() {
      if (threadIdx.x != 0) return;
      const unsigned long long data = (bits & 8) ? scratch[8] : seq;
      st_pair(theirs, (seq << 32) | (data & 0xffffffffu), (seq << 32) | (data >> 32));
    };
    auto receive = [&]() {
      bool ok = true;
      if (threadIdx.x == 0) {
        unsigned long long lo, hi;
        unsigned polls = 0;
        ld_pair(mine, lo, hi);
        while ((lo >> 32) < (want & 0xffffffffu) || (hi >> 32) < (want & 0xffffffffu)) {
          if ((bits & 16) && ++polls >= 64) __nanosleep(128);
          ld_pair(mine, lo, hi);
        }
        if (bits & 1) scratch[0] = (lo & 0xffffffffu) | (hi << 32);
        ok = lo != 0;
      }
      if (bits & 2) ok = __syncthreads_and(ok);
      if (!ok) scratch[1] = 1;
    };
    if (initiator) {
      send();
      receive();
      if ((bits & 4) && threadIdx.x == 0) scratch[16 + (i & 15)] = clock64();
    } else {
      receive();
      send();
    }
  }
  if (threadIdx.x == 0) {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
    *ns = t1 - t0;
  }
}

// How the poll and the answer are shaped, one variant per `shape`:
// 0 one thread, volatile load and store (variant 0 of flag_pingpong);
// 1 one thread, relaxed.sys load and store; 2 one thread, four volatile
// loads in flight per poll; 3 one thread, the answer sent with a remote
// red.max instead of a store; 4 every warp's lane 0 of the block polls and
// answers with red.max (a stale answer of a slower poller is a no-op); 5
// as 4 with one warp in each of the launch's blocks. Block 0's lane 0
// records globaltimer around the loop.
__device__ __forceinline__ unsigned long long ld_relaxed(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void st_relaxed(unsigned long long* p, unsigned long long v) {
  asm volatile("st.relaxed.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ void red_max(unsigned long long* p, unsigned long long v) {
  asm volatile("red.relaxed.sys.global.max.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__global__ void flag_poll(unsigned long long* mine, unsigned long long* theirs, int initiator, int iters, int shape,
                          unsigned long long* ns) {
  const bool poller = (threadIdx.x & 31) == 0 && (shape >= 4 || threadIdx.x == 0);
  const bool timer = blockIdx.x == 0 && threadIdx.x == 0;
  unsigned long long t0 = 0, t1 = 0, c0 = clock64();
  if (timer) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  if (poller) {
    for (int i = 1; i <= iters; ++i) {
      const unsigned long long seq = 2ull * i + (initiator ? 0 : 1);
      const unsigned long long want = 2ull * i + (initiator ? 1 : 0);
      auto send = [&]() {
        if (shape == 1) st_relaxed(theirs, seq);
        else if (shape >= 3) red_max(theirs, seq);
        else st_flag(theirs, seq);
      };
      auto receive = [&]() {
        if (shape == 1) {
          while (ld_relaxed(mine) < want) {
          }
        } else if (shape == 2) {
          unsigned long long v0, v1, v2, v3;
          do {
            v0 = ld_flag(mine);
            v1 = ld_flag(mine);
            v2 = ld_flag(mine);
            v3 = ld_flag(mine);
          } while (v0 < want && v1 < want && v2 < want && v3 < want);
        } else {
          while (ld_flag(mine) < want) {
          }
        }
      };
      if (initiator) {
        send();
        receive();
      } else {
        receive();
        send();
      }
    }
  }
  if (timer) {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
    *ns = t1 - t0;
    ns[2] = clock64() - c0;  // SM cycles over the same span: the SM clock
  }
}

// Flags and scratch on GPUs a and b (peers enabled), and the initiator's
// time. ping_pong(launch) clears them, starts the responder on b and the
// initiator on a through `launch(kernel side)`, waits for both and returns
// the one-way time in microseconds.
struct FlagPair {
  int a, b;
  unsigned long long *fa, *fb, *sa, *sb, *ns;
  FlagPair(int a_, int b_) : a(a_), b(b_) {
    enable_peers(gpu_count());
    CK(cudaSetDevice(a));
    CK(cudaMalloc(&fa, 256));
    CK(cudaMalloc(&sa, 1024));
    CK(cudaSetDevice(b));
    CK(cudaMalloc(&fb, 256));
    CK(cudaMalloc(&sb, 1024));
    CK(cudaHostAlloc(&ns, 4 * sizeof(unsigned long long), cudaHostAllocMapped | cudaHostAllocPortable));
  }
  template <class Launch>
  double ping_pong(int iters, Launch launch) {
    for (int d : {a, b}) {
      CK(cudaSetDevice(d));
      CK(cudaMemset(d == a ? fa : fb, 0, 256));
      CK(cudaMemset(d == a ? sa : sb, 0, 1024));
      CK(cudaDeviceSynchronize());
    }
    CK(cudaSetDevice(b));
    launch(fb, fa, sb, 0, ns + 1);
    CK(cudaSetDevice(a));
    launch(fa, fb, sa, 1, ns);
    CK(cudaDeviceSynchronize());
    CK(cudaSetDevice(b));
    CK(cudaDeviceSynchronize());
    return double(ns[0]) / iters / 2 / 1e3;
  }
};

static int flag_bits_run(int a, int b, int iters) {
  FlagPair pair(a, b);
  for (int bits : {0, 1, 2, 4, 8, 16, 31, 0}) {
    const double us = pair.ping_pong(iters, [&](auto mine, auto theirs, auto scratch, int initiator, auto ns) {
      flag_bits<<<1, 32>>>(mine, theirs, scratch, initiator, iters, bits, ns);
    });
    std::printf("flagbits gpu%d<->gpu%d bits %2d %7d round trips: one-way %.3f us\n", a, b, bits, iters, us);
  }
  return 0;
}

static int flag_poll_run(int a, int b, int iters) {
  FlagPair pair(a, b);
  struct Shape { int shape, blocks, threads; const char* what; };
  const Shape shapes[] = {{0, 1, 32, "one poller, volatile"},          {1, 1, 32, "one poller, relaxed.sys"},
                          {2, 1, 32, "one poller, 4 loads in flight"}, {3, 1, 32, "one poller, answer by red.max"},
                          {4, 1, 128, "4 warps poll, red.max"},         {4, 1, 512, "16 warps poll, red.max"},
                          {5, 4, 32, "4 blocks poll, red.max"},         {5, 16, 32, "16 blocks poll, red.max"},
                          {5, 132, 32, "132 blocks poll, red.max"},     {0, 1, 32, "one poller, volatile (again)"}};
  auto report = [&](const char* what, double us) {
    std::printf("flagpoll gpu%d<->gpu%d %-40s %7d round trips: one-way %.3f us, SM clock %.0f MHz\n", a, b, what,
                iters, us, 1e3 * double(pair.ns[2]) / double(pair.ns[0]));
  };
  for (const Shape& sh : shapes) {
    report(sh.what, pair.ping_pong(iters, [&](auto mine, auto theirs, auto, int initiator, auto ns) {
      flag_poll<<<sh.blocks, sh.threads>>>(mine, theirs, initiator, iters, sh.shape, ns);
    }));
  }
  // How the kernel is launched: cooperatively, and on a stream of its own
  // (non-blocking), as a transport's persistent kernel may be.
  cudaStream_t streams[2];
  for (int i = 0; i < 2; ++i) {
    CK(cudaSetDevice(i == 0 ? a : b));
    CK(cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking));
  }
  auto on_stream = [&](int device) { return streams[device == a ? 0 : 1]; };
  for (int coop : {1, 0}) {
    for (int shape : {0, 4}) {
      const unsigned threads = shape == 4 ? 128 : 32;
      report(coop ? (shape ? "4 warps red.max, cooperative, own stream" : "one poller, cooperative, own stream")
                  : (shape ? "4 warps red.max, own stream" : "one poller, own stream"),
             pair.ping_pong(iters, [&](auto mine, auto theirs, auto, int initiator, auto ns) {
               int dev = 0;
               CK(cudaGetDevice(&dev));
               int it = iters, sh = shape;
               void* args[] = {&mine, &theirs, &initiator, &it, &sh, &ns};
               if (coop) {
                 CK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(&flag_poll), dim3(1), dim3(threads), args, 0,
                                                on_stream(dev)));
               } else {
                 flag_poll<<<1, threads, 0, on_stream(dev)>>>(mine, theirs, initiator, iters, shape, ns);
               }
             }));
    }
  }
  return 0;
}

static int flag(int a, int b, int iters) {
  FlagPair pair(a, b);
  const char* what[3] = {"8-byte flag", "16-byte LL pair", "LL pair + local store, echo re-read, barrier"};
  for (int variant = 0; variant < 3; ++variant) {
    for (int n : {10, 100, iters}) {
      const double us = pair.ping_pong(n, [&](auto mine, auto theirs, auto scratch, int initiator, auto ns) {
        flag_pingpong<<<1, 32>>>(mine, theirs, scratch, initiator, n, variant, ns);
      });
      std::printf("flag gpu%d<->gpu%d %-46s %7d round trips: one-way %.3f us\n", a, b, what[variant], n, us);
    }
  }
  return 0;
}

// Two processes: the parent drives GPU A, the child GPU B; each sends the
// other the IPC handle of its flag through a pipe, maps the peer's, and both
// run variant 1 (the 16-byte word pair).
static int flagipc(int a, int b, int iters) {
  int to_child[2], to_parent[2];
  if (pipe(to_child) != 0 || pipe(to_parent) != 0) return 1;
  const pid_t pid = fork();
  const bool parent = pid != 0;
  CK(cudaSetDevice(parent ? a : b));
  unsigned long long *mine, *scratch, *ns;
  CK(cudaMalloc(&mine, 256));
  CK(cudaMalloc(&scratch, 256));
  CK(cudaMemset(mine, 0, 256));
  CK(cudaHostAlloc(&ns, sizeof(unsigned long long), cudaHostAllocMapped));
  cudaIpcMemHandle_t h, peer;
  CK(cudaIpcGetMemHandle(&h, mine));
  const int out = parent ? to_child[1] : to_parent[1], in = parent ? to_parent[0] : to_child[0];
  if (write(out, &h, sizeof h) != sizeof h || read(in, &peer, sizeof peer) != sizeof peer) return 1;
  void* theirs = nullptr;
  CK(cudaIpcOpenMemHandle(&theirs, peer, cudaIpcMemLazyEnablePeerAccess));
  CK(cudaDeviceSynchronize());
  char go = 1;  // both mapped before either starts
  if (write(out, &go, 1) != 1 || read(in, &go, 1) != 1) return 1;
  flag_pingpong<<<1, 32>>>(mine, static_cast<unsigned long long*>(theirs), scratch, parent, iters, 1, ns);
  CK(cudaDeviceSynchronize());
  if (parent) {
    int status = 0;
    waitpid(pid, &status, 0);
    std::printf("flagipc gpu%d<->gpu%d two processes, 16-byte LL pair %7d round trips: one-way %.3f us\n", a, b, iters,
                double(ns[0]) / iters / 2 / 1e3);
  }
  CK(cudaIpcCloseMemHandle(theirs));
  return 0;
}

__device__ __forceinline__ unsigned smid() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

// Launched with many blocks; the first block to land on SM `sm` runs the
// 8-byte flag ping-pong, the others return. Before it, that thread times 64
// dependent volatile loads of its own flag (its L2 hit latency, cycles:
// out[3]). A wait longer than a second gives up (out[4] = 1).
__global__ void flag_place(unsigned long long* mine, unsigned long long* theirs, int initiator, int iters, unsigned sm,
                           unsigned* claim, unsigned long long* out) {
  if (threadIdx.x != 0 || smid() != sm || atomicCAS(claim, 0u, 1u) != 0) return;
  unsigned long long v = 0;
  const unsigned long long c0 = clock64();
  for (int i = 0; i < 64; ++i) v = ld_flag(mine + (v >> 63));
  out[3] = (clock64() - c0) / 64;
  unsigned long long t0, t1;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  for (int i = 1; i <= iters; ++i) {
    const unsigned long long seq = 2ull * i + (initiator ? 0 : 1);
    const unsigned long long want = 2ull * i + (initiator ? 1 : 0);
    if (initiator) st_flag(theirs, seq);
    for (unsigned n = 1; ld_flag(mine) < want; ++n) {
      if ((n & 1023u) != 0) continue;
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
      if (t1 - t0 > 1000000000ull) {
        out[4] = 1;
        return;
      }
    }
    if (!initiator) st_flag(theirs, seq);
  }
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
  out[0] = t1 - t0;
}

static int flag_place_run(int a, int b, int iters) {
  enable_peers(gpu_count());
  const size_t span = 4u << 20;
  struct Side { int dev; unsigned char* buf; unsigned* claim; unsigned long long* out; int sms; };
  Side side[2] = {{a}, {b}};
  for (Side& s : side) {
    CK(cudaSetDevice(s.dev));
    CK(cudaMalloc(&s.buf, span));
    CK(cudaMalloc(&s.claim, sizeof(unsigned)));
    CK(cudaHostAlloc(&s.out, 8 * sizeof(unsigned long long), cudaHostAllocMapped | cudaHostAllocPortable));
    CK(cudaDeviceGetAttribute(&s.sms, cudaDevAttrMultiProcessorCount, s.dev));
  }
  auto run = [&](unsigned sm_a, unsigned sm_b, size_t off) {
    const unsigned sm[2] = {sm_a, sm_b};
    for (int i : {1, 0}) {  // the responder (b) first
      Side& s = side[i];
      CK(cudaSetDevice(s.dev));
      CK(cudaMemset(s.buf, 0, span));
      CK(cudaMemset(s.claim, 0, sizeof(unsigned)));
      std::memset(s.out, 0, 8 * sizeof(unsigned long long));
      CK(cudaDeviceSynchronize());
    }
    for (int i : {1, 0}) {
      Side& s = side[i];
      CK(cudaSetDevice(s.dev));
      auto* mine = reinterpret_cast<unsigned long long*>(s.buf + off);
      auto* theirs = reinterpret_cast<unsigned long long*>(side[1 - i].buf + off);
      flag_place<<<4 * s.sms, 32>>>(mine, theirs, i == 0, iters, sm[i], s.claim, s.out);
    }
    for (Side& s : side) {
      CK(cudaSetDevice(s.dev));
      CK(cudaDeviceSynchronize());
    }
    const bool failed = side[0].out[4] || side[1].out[4] || side[0].out[0] == 0;
    std::printf("flagplace gpu%d sm %3u <-> gpu%d sm %3u flag at +%8zu: one-way %s%.3f us, poll load %llu / %llu cycles\n",
                a, sm_a, b, sm_b, off, failed ? "FAILED " : "", double(side[0].out[0]) / iters / 2 / 1e3,
                side[0].out[3], side[1].out[3]);
  };
  const unsigned step = static_cast<unsigned>(std::max(1, side[0].sms / 12));
  for (unsigned sm = 0; sm < static_cast<unsigned>(side[0].sms); sm += step) run(sm, 0, 0);
  for (unsigned sm = 0; sm < static_cast<unsigned>(side[1].sms); sm += step) run(0, sm, 0);
  for (size_t k = 0; k < 16; ++k) run(0, 0, k * 4096 + k * 128);
  run(0, 0, 0);
  return 0;
}

__global__ void write_out(uint4* __restrict__ host, const uint4* __restrict__ dev, size_t n, int passes) {
  for (int p = 0; p < passes; ++p)
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
      __stcg(host + i, __ldcg(dev + i));
}

// kB of huge pages (AnonHugePages of /proc/self/smaps) in the mappings
// that hold the buffers `ps`, each mapping counted once: the kernel may
// merge adjacent anonymous mappings into one.
constexpr size_t kGuard = 4096;  // hostwrite's guard page on each side of a buffer

static long anon_huge_kb(const std::vector<void*>& ps) {
  FILE* f = std::fopen("/proc/self/smaps", "r");
  if (!f) return -1;
  char line[512];
  bool in = false;
  long total = 0, kb = 0;
  while (std::fgets(line, sizeof line, f)) {
    unsigned long lo = 0, hi = 0;
    if (std::sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && std::strchr(line, '-') < std::strchr(line, ' ')) {
      in = std::any_of(ps.begin(), ps.end(), [&](void* p) {
        const auto a = reinterpret_cast<unsigned long>(p);
        return a >= lo && a < hi;
      });
      continue;
    }
    if (in && std::sscanf(line, "AnonHugePages: %ld kB", &kb) == 1) total += kb;
  }
  std::fclose(f);
  return total;
}

static int hostwrite(size_t mib, int passes) {
  const int n = gpu_count();
  const size_t bytes = mib << 20;
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  std::vector<void*> d(n);
  for (int g = 0; g < n; ++g) {
    CK(cudaSetDevice(g));
    CK(cudaMalloc(&d[g], bytes));
    fill<<<1024, 256>>>(static_cast<uint4*>(d[g]), bytes / 16, 7u + g);
  }
  GatedGpus gate(n);
  const char* kinds[3] = {"cudaHostAlloc", "mmap+register, MADV_NOHUGEPAGE", "mmap+register, MADV_HUGEPAGE"};
  for (int kind = 0; kind < 3; ++kind) {
    std::vector<void*> h(n);
    for (int g = 0; g < n; ++g) {
      CK(cudaSetDevice(g));
      if (kind == 0) {
        CK(cudaHostAlloc(&h[g], bytes, cudaHostAllocPortable));
      } else {
        // A page of PROT_NONE on each side keeps the buffer a mapping of its
        // own, so smaps' AnonHugePages of that mapping is the buffer's alone
        // (merged with a neighbour, it counted the neighbour's pages too).
        void* base = mmap(nullptr, bytes + 2 * kGuard, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (base == MAP_FAILED) return 1;
        h[g] = static_cast<char*>(base) + kGuard;
        if (mprotect(h[g], bytes, PROT_READ | PROT_WRITE) != 0) return 1;
        madvise(h[g], bytes, kind == 1 ? MADV_NOHUGEPAGE : MADV_HUGEPAGE);
        std::memset(h[g], 0, bytes);
        CK(cudaHostRegister(h[g], bytes, cudaHostRegisterPortable | cudaHostRegisterMapped));
      }
    }
    const long huge_kb = kind == 0 ? 0 : anon_huge_kb(h);
    auto run = [&](int only) {
      const auto ms = gate.run(only, [&](int g, cudaStream_t st) {
        write_out<<<sms * 4, 512, 0, st>>>(static_cast<uint4*>(h[g]), static_cast<const uint4*>(d[g]), bytes / 16,
                                          passes);
      });
      for (int g = 0; g < n; ++g)
        if (ms[g] > 0) std::printf(" gpu%d %.2f", g, double(bytes) * passes / (ms[g] * 1e-3) / 1e9);
    };
    for (int round = 0; round < 2; ++round) {
      std::printf("hostwrite %-32s all GPUs at once, GB/s:", kinds[kind]);
      run(-1);
      std::printf("   each alone:");
      for (int g = 0; g < n; ++g) run(g);
      if (kind > 0) std::printf("   huge pages in their mappings %ld MiB (buffers %zu MiB)", huge_kb / 1024, mib * n);
      std::printf("\n");
    }
    for (int g = 0; g < n; ++g) {
      if (check(g, h[g], bytes, 7u + g) != 0) std::printf("hostwrite: gpu%d's host buffer does NOT hold its data\n", g);
      if (kind == 0) {
        CK(cudaFreeHost(h[g]));
      } else {
        CK(cudaHostUnregister(h[g]));
        munmap(static_cast<char*>(h[g]) - kGuard, bytes + 2 * kGuard);
      }
    }
  }
  return 0;
}

__global__ void hold_sms(volatile int* flag, unsigned long long* started) {
  if (threadIdx.x == 0) atomicAdd(started, 1ull);
  while (*flag == 0) __nanosleep(1000);
}

static int localce(size_t mib) {
  const size_t bytes = mib << 20;
  int sms = 0, per_sm_threads = 0;
  CK(cudaSetDevice(0));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaDeviceGetAttribute(&per_sm_threads, cudaDevAttrMaxThreadsPerMultiProcessor, 0));
  void *src, *dst;
  CK(cudaMalloc(&src, bytes));
  CK(cudaMalloc(&dst, bytes));
  int* flag;
  unsigned long long* started;
  CK(cudaHostAlloc(&flag, sizeof(int), cudaHostAllocMapped));
  CK(cudaHostAlloc(&started, sizeof *started, cudaHostAllocMapped));
  *flag = 0;
  *started = 0;
  cudaStream_t s1, s2;
  CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  const int blocks = sms * (per_sm_threads / 1024);
  hold_sms<<<blocks, 1024, 0, s1>>>(flag, started);
  while (*started < static_cast<unsigned long long>(blocks)) {
  }
  cudaEvent_t done;
  CK(cudaEventCreate(&done));
  CK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s2));
  CK(cudaEventRecord(done, s2));
  bool finished = false;
  for (int i = 0; i < 2000000 && !finished; ++i) finished = cudaEventQuery(done) == cudaSuccess;
  std::printf("localce: a %zu MiB same-GPU cudaMemcpyAsync %s while all %d SMs were held (%d blocks of 1024)\n", mib,
              finished ? "FINISHED (copy engine)" : "did NOT finish (needs SMs)", sms, blocks);
  *flag = 1;
  CK(cudaDeviceSynchronize());
  return 0;
}

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "fan" && argc == 4) return fan(std::strtoull(argv[2], nullptr, 10), std::atoi(argv[3]));
  if (mode == "hostbidir" && argc == 4) return hostbidir(std::strtoull(argv[2], nullptr, 10), std::atoi(argv[3]));
  if (mode == "flag" && argc == 5) return flag(std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]));
  if (mode == "flagbits" && argc == 5) return flag_bits_run(std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]));
  if (mode == "flagpoll" && argc == 5) return flag_poll_run(std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]));
  if (mode == "flagipc" && argc == 5) return flagipc(std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]));
  if (mode == "flagplace" && argc == 5) return flag_place_run(std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]));
  if (mode == "hostwrite" && argc == 4) return hostwrite(std::strtoull(argv[2], nullptr, 10), std::atoi(argv[3]));
  if (mode == "localce" && argc == 3) return localce(std::strtoull(argv[2], nullptr, 10));
  std::fprintf(stderr,
               "usage: node_probe fan MIB COPIES | hostbidir MIB PASSES | flag|flagbits|flagpoll|flagipc|flagplace A B ITERS | hostwrite MIB PASSES | localce MIB\n");
  return 2;
}
