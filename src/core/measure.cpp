#include "core/measure.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include <fmt/format.h>

#include "core/cuda_check.hpp"
#include "core/error.hpp"
#include "core/numa.hpp"
#include "core/stats.hpp"
#include "core/units.hpp"

namespace xb {

const char* to_string(Verification::Status s) noexcept {
  switch (s) {
    case Verification::Status::passed: return "passed";
    case Verification::Status::failed: return "failed";
    case Verification::Status::skipped: return "skipped";
  }
  return "skipped";
}

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

float elapsed_ms(cudaEvent_t a, cudaEvent_t b) {
  float ms = 0;
  XB_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
  return ms;
}

// Launch shapes found best per kind of path on H100/H200 (bench/sm_tuning.sh
// re-measures them); any field the user set wins.
SmCopyConfig sm_config_for(const Transfer& t, const SmCopyConfig& user) {
  SmCopyConfig c;
  if (t.src.on_host() || t.dst.on_host()) {
    c = {4, 512, 4, false};
  } else if (t.src.device != t.dst.device) {
    c = {4, 512, 4, false};
  } else {
    c = {4, 512, 4, false};
  }
  if (user.blocks_per_sm > 0) c.blocks_per_sm = user.blocks_per_sm;
  if (user.threads > 0) c.threads = user.threads;
  if (user.unroll > 0) c.unroll = user.unroll;
  c.streaming = c.streaming || user.streaming;
  return c;
}

cudaEvent_t make_event(int device) {
  XB_CUDA_CHECK(cudaSetDevice(device));
  cudaEvent_t e = nullptr;
  XB_CUDA_CHECK(cudaEventCreate(&e));
  return e;
}

}  // namespace

struct Measurer::Plan {
  const Scenario* scenario = nullptr;
  std::vector<Buffer*> src, dst;
  std::vector<int> stream_of;      // transfer -> stream index
  std::vector<int> stream_device;  // stream -> GPU
  std::vector<cudaStream_t> streams;
  std::vector<cudaEvent_t> gate_end;    // per stream
  std::vector<cudaEvent_t> start, end;  // per transfer
  cudaEvent_t total_end = nullptr;
  std::vector<SmCopyConfig> sm;
  int copies = 1;
  bool gated = true;

  ~Plan() {
    for (auto e : gate_end) XB_CUDA_CHECK_NOTHROW(cudaEventDestroy(e));
    for (auto e : start) XB_CUDA_CHECK_NOTHROW(cudaEventDestroy(e));
    for (auto e : end) XB_CUDA_CHECK_NOTHROW(cudaEventDestroy(e));
    if (total_end) XB_CUDA_CHECK_NOTHROW(cudaEventDestroy(total_end));
    for (std::size_t s = 0; s < streams.size(); ++s) {
      XB_CUDA_CHECK_NOTHROW(cudaSetDevice(stream_device[s]));
      XB_CUDA_CHECK_NOTHROW(cudaStreamDestroy(streams[s]));
    }
  }

  const Transfer& t(std::size_t i) const { return scenario->transfers[i]; }
  std::size_t size() const { return scenario->transfers.size(); }
};

Measurer::Measurer(const System& sys, MeasureOptions opts) : sys_(sys), opts_(opts) {
  void* p = nullptr;
  XB_CUDA_CHECK(cudaHostAlloc(&p, 2 * sizeof(int), cudaHostAllocMapped | cudaHostAllocPortable));
  release_ = static_cast<volatile int*>(p);
  timed_out_ = static_cast<int*>(p) + 1;
  release_[0] = 0;
  timed_out_[0] = 0;
  for (int d = 0; d < sys.gpu_count(); ++d) {
    XB_CUDA_CHECK(cudaSetDevice(d));
    preload_kernels();
  }
}

Measurer::~Measurer() {
  cache_.clear();
  XB_CUDA_CHECK_NOTHROW(cudaFreeHost(const_cast<int*>(release_)));
}

Location Measurer::resolve(const Location& loc, int gpu) const {
  Location out = loc;
  if (out.on_host() && out.numa == -1)
    out.numa = opts_.numa_affinity ? sys_.host_node_of(gpu) : kNoNumaPlacement;
  return out;
}

void Measurer::prepare_buffers(Plan& plan) {
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const Transfer& t = plan.t(i);
    const int slot = static_cast<int>(i);
    plan.src.push_back(&cache_.get(resolve(t.src, t.exec_device), t.bytes, 2 * slot));
    plan.dst.push_back(&cache_.get(resolve(t.dst, t.exec_device), t.bytes, 2 * slot + 1));
    if (t.engine == Engine::sm && (!plan.src.back()->kernel_ptr() || !plan.dst.back()->kernel_ptr()))
      fail(ErrorKind::usage, fmt::format("{}: the sm engine cannot reach pageable host memory; use the ce engine",
                                         t.label));
    Buffer& src = *plan.src.back();
    Buffer& dst = *plan.dst.back();
    if (src.content_seed() != src.seed()) fill_buffer(src, src.bytes(), src.seed(), t.exec_device);
    // The destination must not already hold what the copy will write.
    if (opts_.verify && dst.content_seed() == src.seed()) fill_buffer(dst, dst.bytes(), dst.seed(), t.exec_device);
    if (t.src.kind == MemKind::pageable || t.dst.kind == MemKind::pageable) plan.gated = false;
    plan.sm.push_back(sm_config_for(t, opts_.sm));
  }
}

void Measurer::warm_up(Plan& plan) {
  // Warm-up copies load code paths and TLBs, and their duration sizes the
  // samples: a sample lasts about target_sample_s.
  double slowest_copy_s = 0;
  for (int round = 0; round < std::max(1, opts_.warmup_copies); ++round) {
    for (std::size_t i = 0; i < plan.size(); ++i) {
      const Transfer& t = plan.t(i);
      cudaStream_t s = plan.streams[plan.stream_of[i]];
      XB_CUDA_CHECK(cudaSetDevice(plan.stream_device[plan.stream_of[i]]));
      XB_CUDA_CHECK(cudaEventRecord(plan.start[i], s));
      if (t.engine == Engine::copy_engine) {
        XB_CUDA_CHECK(cudaMemcpyAsync(plan.dst[i]->ptr(), plan.src[i]->ptr(), t.bytes, cudaMemcpyDefault, s));
      } else {
        launch_sm_copy(plan.dst[i]->kernel_ptr(), plan.src[i]->kernel_ptr(), t.bytes, plan.sm[i],
                       sys_.gpus[plan.stream_device[plan.stream_of[i]]].sm_count, s);
      }
      XB_CUDA_CHECK(cudaEventRecord(plan.end[i], s));
    }
    for (std::size_t i = 0; i < plan.size(); ++i) {
      XB_CUDA_CHECK(cudaEventSynchronize(plan.end[i]));
      slowest_copy_s = std::max(slowest_copy_s, elapsed_ms(plan.start[i], plan.end[i]) / 1e3);
    }
  }
  if (opts_.copies_per_sample > 0) {
    plan.copies = opts_.copies_per_sample;
  } else {
    const double n = slowest_copy_s > 0 ? std::ceil(opts_.target_sample_s / slowest_copy_s) : 1;
    plan.copies = static_cast<int>(std::clamp(n, 1.0, 1000.0));
  }
}

void Measurer::run_sample(Plan& plan, ScenarioSamples& out) {
  release_[0] = plan.gated ? 0 : 1;
  timed_out_[0] = 0;
  const auto timeout_ns = static_cast<std::uint64_t>(opts_.gate_timeout_s * 1e9);
  for (std::size_t s = 0; s < plan.streams.size(); ++s) {
    XB_CUDA_CHECK(cudaSetDevice(plan.stream_device[s]));
    if (plan.gated) launch_gate(release_, timed_out_, timeout_ns, plan.streams[s]);
    XB_CUDA_CHECK(cudaEventRecord(plan.gate_end[s], plan.streams[s]));
  }
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const Transfer& t = plan.t(i);
    const int si = plan.stream_of[i];
    cudaStream_t s = plan.streams[si];
    XB_CUDA_CHECK(cudaSetDevice(plan.stream_device[si]));
    XB_CUDA_CHECK(cudaEventRecord(plan.start[i], s));
    for (int c = 0; c < plan.copies; ++c) {
      if (t.engine == Engine::copy_engine) {
        XB_CUDA_CHECK(cudaMemcpyAsync(plan.dst[i]->ptr(), plan.src[i]->ptr(), t.bytes, cudaMemcpyDefault, s));
      } else {
        launch_sm_copy(plan.dst[i]->kernel_ptr(), plan.src[i]->kernel_ptr(), t.bytes, plan.sm[i],
                       sys_.gpus[plan.stream_device[si]].sm_count, s);
      }
    }
    XB_CUDA_CHECK(cudaEventRecord(plan.end[i], s));
  }
  // Stream 0 waits for every transfer, so total_end marks the last one done.
  XB_CUDA_CHECK(cudaSetDevice(plan.stream_device[0]));
  for (std::size_t i = 0; i < plan.size(); ++i) XB_CUDA_CHECK(cudaStreamWaitEvent(plan.streams[0], plan.end[i], 0));
  XB_CUDA_CHECK(cudaEventRecord(plan.total_end, plan.streams[0]));
  release_[0] = 1;

  // Wait with a deadline instead of blocking forever on a hung copy.
  const auto t0 = Clock::now();
  const double deadline_s = opts_.gate_timeout_s + 60.0;
  cudaError_t q;
  while ((q = cudaEventQuery(plan.total_end)) == cudaErrorNotReady) {
    if (seconds_since(t0) > deadline_s)
      fail(ErrorKind::timeout, fmt::format("transfers did not finish within {:.0f} s", deadline_s));
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  XB_CUDA_CHECK(q);
  if (timed_out_[0] != 0)
    fail(ErrorKind::timeout, fmt::format("gate timed out after {} s before all copies were queued; "
                                         "the sample is invalid (raise --gate-timeout)", opts_.gate_timeout_s));

  const float total_ms = elapsed_ms(plan.gate_end[0], plan.total_end);
  out.total_seconds.push_back(total_ms / 1e3);
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const cudaEvent_t ref = plan.gate_end[plan.stream_of[i]];
    auto& ts = out.transfers[i];
    ts.seconds.push_back(elapsed_ms(plan.start[i], plan.end[i]) / 1e3);
    ts.start_s.push_back(elapsed_ms(ref, plan.start[i]) / 1e3);
    ts.end_s.push_back(elapsed_ms(ref, plan.end[i]) / 1e3);
  }
}

void Measurer::verify(Plan& plan, ScenarioSamples& out) {
  for (std::size_t i = 0; i < plan.size(); ++i) {
    auto& v = out.transfers[i].verification;
    if (!opts_.verify) {
      v.status = Verification::Status::skipped;
      continue;
    }
    Buffer& src = *plan.src[i];
    Buffer& dst = *plan.dst[i];
    const std::uint64_t bad = verify_buffer(dst, plan.t(i).bytes, src.seed(), plan.t(i).exec_device);
    v.status = bad == plan.t(i).bytes ? Verification::Status::passed : Verification::Status::failed;
    v.first_bad_offset = bad;
    dst.set_content_seed(v.status == Verification::Status::passed && dst.bytes() == plan.t(i).bytes ? src.seed() : 0);
  }
}

ScenarioSamples Measurer::run(const Scenario& scenario, const SampleMetric& metric) {
  if (scenario.transfers.empty()) fail(ErrorKind::usage, "scenario has no transfers");
  const auto t0 = Clock::now();
  Plan plan;
  plan.scenario = &scenario;
  const int first_gpu = scenario.transfers.front().exec_device;
  if (opts_.numa_affinity) bind_thread_to_node(sys_.host_node_of(first_gpu));

  // Streams by mode: one per transfer, one per issuing GPU, or only one.
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const int dev = scenario.streams == StreamMode::only_one ? first_gpu : plan.t(i).exec_device;
    int idx = -1;
    if (scenario.streams != StreamMode::per_transfer) {
      for (std::size_t s = 0; s < plan.stream_device.size(); ++s)
        if (plan.stream_device[s] == dev) idx = static_cast<int>(s);
    }
    if (idx < 0) {
      XB_CUDA_CHECK(cudaSetDevice(dev));
      cudaStream_t s = nullptr;
      XB_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
      plan.streams.push_back(s);
      plan.stream_device.push_back(dev);
      plan.gate_end.push_back(make_event(dev));
      idx = static_cast<int>(plan.streams.size()) - 1;
    }
    plan.stream_of.push_back(idx);
    plan.start.push_back(make_event(dev));
    plan.end.push_back(make_event(dev));
  }
  plan.total_end = make_event(plan.stream_device[0]);

  prepare_buffers(plan);
  warm_up(plan);

  ScenarioSamples out;
  out.copies_per_sample = plan.copies;
  out.gated = plan.gated;
  out.transfers.resize(plan.size());
  const auto sampling_start = Clock::now();
  std::vector<double> values;
  for (int n = 1; n <= std::max(opts_.min_samples, opts_.max_samples); ++n) {
    run_sample(plan, out);
    values.push_back(metric(out, static_cast<std::size_t>(n - 1)));
    if (n < opts_.min_samples) continue;
    if (n >= opts_.max_samples || seconds_since(sampling_start) > opts_.budget_s) break;
    if (median_relative_error(summarize(values)) <= opts_.target_rel_error) break;
  }
  verify(plan, out);
  if (opts_.numa_affinity) unbind_thread();
  out.wall_seconds = seconds_since(t0);
  return out;
}

}  // namespace xb
