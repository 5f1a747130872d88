#include "firsttouch/host_analogue.hpp"

#include <chrono>
#include <cstdlib>

#include <fmt/format.h>

#include "machine/cuda_check.hpp"
#include "machine/cuda_raii.hpp"
#include "base/error.hpp"
#include "base/names.hpp"
#include "memory/memory.hpp"
#include "base/stop.hpp"
#include "base/time_budget.hpp"
#include "base/units.hpp"

namespace xb::firsttouch {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kDevice = 0;

// A fresh host buffer of one kind; frees it the way it was allocated.
class HostBuffer {
 public:
  HostBuffer(HostKind kind, std::uint64_t bytes, Phases& phases) : kind_(kind) {
    const auto t0 = Clock::now();
    if (kind == HostKind::pinned) {
      XB_CUDA_CHECK(cudaMallocHost(&data_, bytes));
    } else {
      data_ = std::malloc(bytes);
      if (data_ == nullptr) fail(ErrorKind::resources, fmt::format("cannot allocate {} bytes of host memory", bytes));
    }
    phases.alloc_sender_s = seconds_since(t0);
    if (kind == HostKind::registered) {
      const auto t1 = Clock::now();
      const cudaError_t st = cudaHostRegister(data_, bytes, cudaHostRegisterDefault);
      if (st != cudaSuccess) std::free(data_);
      XB_CUDA_CHECK(st);
      phases.register_s = seconds_since(t1);
    }
  }
  ~HostBuffer() {
    switch (kind_) {
      case HostKind::pinned: XB_CUDA_CHECK_NOTHROW(cudaFreeHost(data_)); break;
      case HostKind::registered: XB_CUDA_CHECK_NOTHROW(cudaHostUnregister(data_)); [[fallthrough]];
      case HostKind::pageable: std::free(data_); break;
    }
  }
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  const void* data() const noexcept { return data_; }

 private:
  HostKind kind_;
  void* data_ = nullptr;
};

// The GPU side, allocated once: only the host buffer is fresh.
struct Target {
  Target(std::uint64_t bytes, double timeout_s)
      : device(device_memory(kDevice), bytes), stream(kDevice), timeout(timeout_s) {}
  Buffer device;
  Stream stream;
  comm::Seconds timeout;
};

double timed_copy(Target& t, const void* src, std::size_t bytes) {
  const auto t0 = Clock::now();
  XB_CUDA_CHECK(cudaMemcpyAsync(t.device.ptr(), src, bytes, cudaMemcpyHostToDevice, t.stream.get()));
  wait_stream(t.stream.get(), t.timeout,
              fmt::format("a host -> gpu {} copy of {} bytes did not finish within {:g} s", kDevice, bytes,
                          t.timeout.count()));
  return seconds_since(t0);
}

void run_iteration(Target& t, HostKind kind, std::uint64_t alloc_bytes, const Options& o, VariantResult& out) {
  Phases phases;
  std::vector<double> times;
  HostBuffer buf(kind, alloc_bytes, phases);
  for (int sub = 0; sub < o.sub_iterations; ++sub) {
    const double s = timed_copy(t, buf.data(), o.p2p_bytes);
    record_copy(phases, sub, s);
    times.push_back(s);
  }
  out.times_s.push_back(std::move(times));
  out.phases.push_back(std::move(phases));
}

void check_environment(const Options& o, const Environment& env) {
  if (env.device_count() <= 0) {
    fail(ErrorKind::no_device, "--host copies to gpu 0, but this node has no usable GPU");
  }
  const std::uint64_t need = largest_allocation(o);
  const std::uint64_t free = env.free_bytes(-1);
  if (need > free) {
    fail(ErrorKind::resources, fmt::format("a host buffer of {} bytes does not fit: {} bytes ({}) of host memory "
                                           "are free",
                                           need, free, bytes_label(free)));
  }
}

void notify(const std::function<void(const Result&)>& fn, const Result& res) {
  if (fn) fn(res);
}

constexpr Named<HostKind> kHostKinds[] = {
    {HostKind::pageable, "pageable"}, {HostKind::pinned, "pinned"}, {HostKind::registered, "registered"}};

}  // namespace

const char* to_string(HostKind k) noexcept { return lookup_name(kHostKinds, k); }

Result run_host_analogue(const Options& o, const Environment& env, const Observer& obs) {
  validate(o);
  check_environment(o, env);
  Result res;
  res.mode = "host";
  res.transport = "cudaMemcpyAsync";
  res.receiver_gpu = kDevice;
  res.iterations = o.iterations;
  res.sub_iterations = o.sub_iterations;
  res.p2p_bytes = o.p2p_bytes;
  Target t(o.p2p_bytes, o.timeout_s);
  {
    // The warm-up ("[-1]"): context, stream and copy path, from a small pinned buffer.
    const auto t0 = Clock::now();
    VariantResult scratch;
    run_iteration(t, HostKind::pinned, o.p2p_bytes, o, scratch);
    res.warmup_s = seconds_since(t0);
  }
  std::size_t vi = 0;
  for (HostKind kind : {HostKind::pageable, HostKind::pinned, HostKind::registered}) {
    for (const auto& v : variants(o)) {
      res.variants.push_back(VariantResult{fmt::format("{}, {}", to_string(kind), variant_label(o, v)),
                                           to_string(kind), v.buffer_bytes, v.overalloc_bytes, {}, {}, {}});
      notify(obs.variant_started, res);
      for (int i = 0; i < o.iterations; ++i) {
        // A stop request (signal, --time-limit) keeps the iterations done.
        if (const StopReason stop = stop_requested(); stop != StopReason::none) {
          res.completion.stop = stop;
          res.completion.not_run.push_back(fmt::format("{}/{}", vi, i));
          continue;
        }
        run_iteration(t, kind, v.alloc_bytes(), o, res.variants.back());
        notify(obs.iteration_done, res);
      }
      notify(obs.variant_done, res);
      ++vi;
    }
  }
  settle(res.completion, "iteration");
  return res;
}

}  // namespace xb::firsttouch
