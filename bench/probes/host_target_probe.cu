// Probe for the GPU paths at the hardware limit: why does the device transport's GPU -> host path
// (SM stores into a POSIX shared-memory segment registered with
// cudaHostRegister) reach 52 GB/s at 1 MiB but 39-43 GB/s from 8 MiB up?
// One kernel shape (one block of 512 threads per SM, 4 x 16-byte vectors in
// flight per thread, grid-stride) copies a message from GPU memory to host
// memory `--reps` times per launch, and the same reading host memory into
// GPU memory, for three kinds of host memory:
//   hostalloc  cudaHostAlloc (driver-pinned)
//   anon       mmap(MAP_PRIVATE|MAP_ANONYMOUS) + cudaHostRegister
//   shm        shm_open + ftruncate + mmap(MAP_SHARED) + cudaHostRegister
//              (what the device transport uses)
// at message sizes 1, 4, 16, 64 and 256 MiB; median of 5 launches, GB/s of
// the bytes moved. Every copy is checked once at the end of each row.
// Knobs that move the probe toward the device transport's kernel, one at a
// time (environment variables, unset = the probe's own choice):
//   SRC=pattern  the GPU source holds a varying pattern (default: one byte, 0x5a)
//   LOAD=plain   plain loads of the GPU source (default: .cv loads)
//   COOP=1       launched with cudaLaunchCooperativeKernel
//   FLAGS=shm    the part flags live in the host segment after the data (default: cudaHostAlloc)
//   POLL=query   the CPU waits by spinning on cudaStreamQuery, as the device
//                transport's wait_stream does (default: cudaEventSynchronize)
//   DIRS=to_host only the GPU -> host direction
//   BARRIER=host after raising its flag of copy r, each block waits until
//                every block's flag in host memory reaches r (ld.acquire.sys
//                polls over PCIe, as the device path's blocks wait for the
//                host's acknowledgement); BARRIER=dev: the same wait on a
//                copy of the flags in GPU memory. Both need COOP=1.
//   CHILD=map    a forked second process shares the segment and sleeps
//   CHILD=poll   ... and spins on the part flags there, as the host rank does
// Build: nvcc -O3 -arch=sm_90 -std=c++17 bench/probes/host_target_probe.cu -o host_target_probe
// CSV on stdout: kind,direction,mib,gbps,checked
#include <cuda_runtime.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CK(x)                                                                                          \
  do {                                                                                                 \
    cudaError_t e_ = (x);                                                                              \
    if (e_ != cudaSuccess) {                                                                           \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));          \
      std::exit(1);                                                                                    \
    }                                                                                                  \
  } while (0)

// The device transport's shape: block b copies one contiguous part of the
// message, then (flags != null) raises its part flag with st.release.sys.
template <bool Cv>
__global__ void parts_kernel(uint4* dst, const uint4* src, std::uint64_t nvec, int reps, std::uint64_t* flags,
                             std::uint64_t* wait) {
  const std::uint64_t per = (nvec + gridDim.x - 1) / gridDim.x;
  const std::uint64_t begin = blockIdx.x * per, end = begin + per < nvec ? begin + per : nvec;
  for (int r = 0; r < reps; ++r) {
    for (std::uint64_t i = begin + threadIdx.x; i < end; i += 4 * blockDim.x) {
      uint4 v[4];
#pragma unroll
      for (int k = 0; k < 4; ++k)
        if (i + k * blockDim.x < end) v[k] = Cv ? __ldcv(src + i + k * blockDim.x) : src[i + k * blockDim.x];
#pragma unroll
      for (int k = 0; k < 4; ++k)
        if (i + k * blockDim.x < end) dst[i + k * blockDim.x] = v[k];
    }
    __syncthreads();
    if (flags != nullptr && threadIdx.x == 0)
      asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(flags + blockIdx.x), "l"(static_cast<std::uint64_t>(r) + 1) : "memory");
    if (wait != nullptr && threadIdx.x == 0) {
      if (wait != flags) asm volatile("st.release.gpu.global.u64 [%0], %1;" ::"l"(wait + blockIdx.x), "l"(static_cast<std::uint64_t>(r) + 1) : "memory");
      for (unsigned b = 0; b < gridDim.x; ++b) {
        std::uint64_t v;
        unsigned polls = 0;
        while (true) {
          asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(wait + b) : "memory");
          if (v >= static_cast<std::uint64_t>(r) + 1) break;
          if (++polls >= 64) __nanosleep(128);
        }
      }
    }
    __syncthreads();
  }
}

__global__ void copy_kernel(uint4* dst, const uint4* src, std::uint64_t nvec, int reps) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (int r = 0; r < reps; ++r) {
    for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < nvec; i += 4 * stride) {
      uint4 v[4];
#pragma unroll
      for (int k = 0; k < 4; ++k)
        if (i + k * stride < nvec) v[k] = __ldcv(src + i + k * stride);
#pragma unroll
      for (int k = 0; k < 4; ++k)
        if (i + k * stride < nvec) dst[i + k * stride] = v[k];
    }
  }
}

struct Host {
  void* p = nullptr;
  std::size_t bytes = 0;
};

Host host_memory(const std::string& kind, std::size_t bytes) {
  Host h;
  h.bytes = bytes;
  if (kind == "hostalloc") {
    CK(cudaHostAlloc(&h.p, bytes, cudaHostAllocMapped | cudaHostAllocPortable));
    return h;
  }
  if (kind == "anon") {
    h.p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  } else {
    const std::string name = "/xb_probe_" + std::to_string(getpid());
    const int fd = shm_open(name.c_str(), O_CREAT | O_RDWR | O_EXCL, 0600);
    if (fd < 0 || ftruncate(fd, static_cast<off_t>(bytes)) != 0) std::exit(1);
    h.p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    shm_unlink(name.c_str());
  }
  if (h.p == MAP_FAILED) std::exit(1);
  std::memset(h.p, 0, bytes);
  CK(cudaHostRegister(h.p, bytes, cudaHostRegisterMapped | cudaHostRegisterPortable));
  return h;
}

bool knob(const char* name, const char* value) {
  const char* v = std::getenv(name);
  return v != nullptr && std::string(v) == value;
}

__global__ void pattern_kernel(unsigned* p, std::uint64_t words) {
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < words;
       i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x)
    p[i] = static_cast<unsigned>(i * 2654435761u) ^ 0x9e3779b9u;
}

// Waits for event b: cudaEventSynchronize, or (POLL=query) spinning on
// cudaStreamQuery with a yield, as the device transport's wait_stream does.
void wait_done(cudaEvent_t b) {
  if (!knob("POLL", "query")) {
    CK(cudaEventSynchronize(b));
    return;
  }
  cudaError_t e;
  while ((e = cudaStreamQuery(0)) == cudaErrorNotReady) sched_yield();
  CK(e);
}

int main() {
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const std::size_t max = 256ull << 20;
  void* dev = nullptr;
  CK(cudaMalloc(&dev, max));
  const bool pattern = knob("SRC", "pattern"), cv = !knob("LOAD", "plain"), coop = knob("COOP", "1");
  auto fill_source = [&] {
    if (pattern) {
      pattern_kernel<<<sms, 512>>>(static_cast<unsigned*>(dev), max / 4);
      CK(cudaDeviceSynchronize());
    } else {
      CK(cudaMemset(dev, 0x5a, max));
    }
  };
  fill_source();
  std::printf("shape,kind,direction,mib,gbps,checked\n");
  std::uint64_t* flags = nullptr;
  CK(cudaHostAlloc(reinterpret_cast<void**>(&flags), 4096 * sizeof(std::uint64_t), cudaHostAllocMapped));
  std::uint64_t* dev_flags = nullptr;  // BARRIER=dev
  CK(cudaMalloc(&dev_flags, 4096 * sizeof(std::uint64_t)));
  const char* shape = std::getenv("SHAPE");  // unset: grid-stride; parts; parts_flags
  const std::string sh = shape ? shape : "grid";
  for (const std::string kind : {"hostalloc", "shm"}) {
    Host h = host_memory(kind, max + (1 << 20));  // the last MiB: FLAGS=shm
    // CHILD: a second process on the same pages (MAP_SHARED survives fork),
    // until the parent raises the stop word.
    volatile std::uint64_t* tail = reinterpret_cast<volatile std::uint64_t*>(static_cast<char*>(h.p) + max);
    pid_t child = -1;
    if (kind == "shm" && (knob("CHILD", "map") || knob("CHILD", "poll"))) {
      tail[4000] = 0;
      child = fork();
      if (child == 0) {
        const bool poll = knob("CHILD", "poll");
        std::uint64_t sum = 0;
        while (tail[4000] == 0) {
          if (poll) {
            for (int b = 0; b < sms; ++b) sum += tail[b];
          } else {
            usleep(1000);
          }
        }
        _exit(sum == 1 ? 3 : 0);
      }
    }
    void* hd = nullptr;
    CK(cudaHostGetDevicePointer(&hd, h.p, 0));
    std::uint64_t* kflags = knob("FLAGS", "shm") ? reinterpret_cast<std::uint64_t*>(static_cast<char*>(hd) + max) : flags;
    for (const std::size_t mib : {1, 4, 16, 64, 256}) {
      const std::size_t bytes = mib << 20;
      const int reps = static_cast<int>(std::max<std::size_t>(1, (1024ull << 20) / bytes));
      for (const bool to_host : {true, false}) {
        if (!to_host && knob("DIRS", "to_host")) continue;
        uint4* dst = static_cast<uint4*>(to_host ? hd : dev);
        const uint4* src = static_cast<const uint4*>(to_host ? dev : hd);
        if (!to_host) std::memset(h.p, 0x3c, bytes);
        std::vector<float> ms;
        cudaEvent_t a, b;
        CK(cudaEventCreate(&a));
        CK(cudaEventCreate(&b));
        for (int l = 0; l < 6; ++l) {
          std::uint64_t nvec = bytes / 16;
          std::uint64_t* f = sh == "parts_flags" ? kflags : nullptr;
          std::uint64_t* w = knob("BARRIER", "host") ? f : knob("BARRIER", "dev") ? dev_flags : nullptr;
          void* args[] = {&dst, &src, &nvec, const_cast<int*>(&reps), &f, &w};
          if (f != nullptr) CK(cudaMemset(f, 0, 4096));  // flags count copies of this launch from 1
          if (w != nullptr && w != f) CK(cudaMemset(w, 0, 4096));
          CK(cudaEventRecord(a));
          if (sh == "grid") {
            copy_kernel<<<sms, 512>>>(dst, src, nvec, reps);
          } else if (coop) {
            CK(cudaLaunchCooperativeKernel(cv ? reinterpret_cast<const void*>(&parts_kernel<true>)
                                              : reinterpret_cast<const void*>(&parts_kernel<false>),
                                           dim3(sms), dim3(512), args, 0, 0));
          } else if (cv) {
            parts_kernel<true><<<sms, 512>>>(dst, src, nvec, reps, f, nullptr);
          } else {
            parts_kernel<false><<<sms, 512>>>(dst, src, nvec, reps, f, nullptr);
          }
          CK(cudaEventRecord(b));
          wait_done(b);
          float t = 0;
          CK(cudaEventElapsedTime(&t, a, b));
          if (l > 0) ms.push_back(t);
        }
        std::sort(ms.begin(), ms.end());
        const double gbps = static_cast<double>(bytes) * reps / (ms[ms.size() / 2] * 1e6);
        std::vector<unsigned char> got(bytes), want(bytes);
        CK(cudaMemcpy(got.data(), to_host ? hd : dev, bytes, cudaMemcpyDefault));
        if (to_host) {
          CK(cudaMemcpy(want.data(), dev, bytes, cudaMemcpyDefault));
        } else {
          std::memset(want.data(), 0x3c, bytes);
        }
        const bool ok = got == want;
        std::printf("%s,%s,%s,%zu,%.1f,%s\n", sh.c_str(), kind.c_str(), to_host ? "gpu_to_host" : "host_to_gpu", mib, gbps,
                    ok ? "ok" : "FAIL");
        std::fflush(stdout);
        CK(cudaEventDestroy(a));
        CK(cudaEventDestroy(b));
        if (!to_host) fill_source();
      }
    }
    if (child > 0) {
      tail[4000] = 1;
      waitpid(child, nullptr, 0);
    }
  }
  return 0;
}
