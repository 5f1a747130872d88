#include "measure/measure.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <thread>

#include <fmt/format.h>

#include "machine/cuda_check.hpp"
#include "machine/cuda_raii.hpp"
#include "measure/dedicated_engines.hpp"
#include "base/error.hpp"
#include "memory/memory_plan.hpp"
#include "memory/memory_probe.hpp"
#include "machine/numa.hpp"
#include "kernels/sm_shape.hpp"
#include "base/stats.hpp"
#include "base/stop.hpp"
#include "base/time_budget.hpp"
#include "base/units.hpp"

namespace xb {

using Clock = std::chrono::steady_clock;

std::vector<double> sample_until_stable(const MeasureOptions& opts, const std::function<double()>& sample) {
  std::vector<double> values;
  const auto t0 = Clock::now();
  for (int n = 1; n <= std::max(opts.min_samples, opts.max_samples); ++n) {
    throw_if_stopped();  // a stop request (signal, time limit) abandons the cell between samples
    values.push_back(sample());
    if (n < opts.min_samples) continue;
    if (n >= opts.max_samples || seconds_since(t0) > opts.budget_s) break;
    if (median_relative_error(summarize(values)) <= opts.target_rel_error) break;
  }
  return values;
}

struct Measurer::Plan {
  const Scenario* scenario = nullptr;
  std::vector<Buffer*> src, dst;
  std::vector<int> stream_of;  // transfer -> stream index
  std::vector<Stream> streams;
  std::vector<Event> gate_end;          // per stream
  std::vector<Event> start, end;        // per transfer
  Event total_end;
  std::vector<SmCopyConfig> sm;
  std::vector<Buffer*> managed;  // placed at their start location before every sample
  std::vector<std::unique_ptr<DeviceValue<unsigned long long>>> sink;  // per transfer; read-only kernels only
  std::uint64_t host_page_bytes = 0;
  int copies = 1;
  bool gated = true;

  const Transfer& t(std::size_t i) const { return scenario->transfers[i]; }
  std::size_t size() const { return scenario->transfers.size(); }
  const Stream& stream(std::size_t i) const { return streams[stream_of[i]]; }
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
  pool_.clear();
  XB_CUDA_CHECK_NOTHROW(cudaFreeHost(const_cast<int*>(release_)));
}

Location Measurer::resolve(const Location& loc, int gpu) const {
  Location out = loc;
  if (out.kind == MemKind::pinned) out.kind = opts_.host_kind;
  if (out.on_host() && out.numa == -1)
    out.numa = opts_.numa_affinity ? sys_.host_node_of(gpu) : kNoNumaPlacement;
  return out;
}

SmCopySite Measurer::sm_site(const Plan& plan, std::size_t i) const {
  const Transfer& t = plan.t(i);
  SmCopySite site;
  site.nvlink_peer = t.src.kind == MemKind::device && t.dst.kind == MemKind::device && t.src.device != t.dst.device &&
                     sys_.link(t.src.device, t.dst.device).kind == LinkKind::nvlink;
  site.to_host = t.src.kind == MemKind::device && t.dst.on_host();
  site.nvbandwidth_kernel = t.nvbandwidth_kernel;
  site.cc_major = sys_.gpus[t.exec_device].cc_major;
  site.shared_memory_per_sm_kib = sys_.gpus[t.exec_device].shared_memory_per_sm_kib;
  site.migrating = t.src.kind == MemKind::managed || t.dst.kind == MemKind::managed ||
                   t.src.kind == MemKind::pageable || t.dst.kind == MemKind::pageable;
  site.sm_copies_on_gpu = 0;
  for (std::size_t j = 0; j < plan.size(); ++j)
    if (plan.t(j).engine != Engine::copy_engine && plan.t(j).exec_device == t.exec_device) ++site.sm_copies_on_gpu;
  return site;
}

std::vector<Buffer*> Measurer::acquire(const std::vector<BufferRequest>& requests) {
  const std::uint64_t before = pool_.allocations();
  std::vector<Buffer*> out = pool_.acquire(requests);
  if (probe_ && pool_.allocations() != before) probe_->sample();
  return out;
}

std::optional<std::string> Measurer::preflight(const MemoryAmount& need) {
  if (pool_.fixed())
    if (auto why = budget_shortfall(need, pool_.budget())) return why;
  return memory_shortfall(need, query_memory_available(need, pool_));
}

void Measurer::prepare_buffers(Plan& plan) {
  const std::vector<Buffer*> buffers = acquire(
      scenario_requests(*plan.scenario, [this](const Location& loc, int gpu) { return resolve(loc, gpu); }));
  std::size_t next = 0;  // requests hold only the sides each engine uses
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const Transfer& t = plan.t(i);
    plan.src.push_back(uses_source(t.engine) ? buffers.at(next++) : nullptr);
    plan.dst.push_back(uses_destination(t.engine) ? buffers.at(next++) : nullptr);
    Buffer* src = plan.src.back();
    Buffer* dst = plan.dst.back();
    if (t.engine != Engine::copy_engine && ((src && !src->kernel_ptr()) || (dst && !dst->kernel_ptr())))
      fail(ErrorKind::usage, fmt::format("{}: the {} engine cannot reach pageable host memory; use the ce engine",
                                         t.label, to_string(t.engine)));
    for (const Buffer* b : {src, dst})
      if (b && b->page_bytes() > 0 && (plan.host_page_bytes == 0 || b->page_bytes() < plan.host_page_bytes))
        plan.host_page_bytes = b->page_bytes();
    if (src && src->content_seed() != src->seed()) fill_buffer(*src, src->bytes(), src->seed(), t.exec_device);
    if (t.engine == Engine::sm_split) {
      prepare_split(*src, *dst, t);
    } else if (is_dedicated_engine(t.engine)) {
      if (opts_.verify && dst) prepare_dedicated(t.engine, dst, t.exec_device);
      if (opts_.verify && src && dst && dst->content_seed() == src->seed())
        fill_buffer(*dst, dst->bytes(), dst->seed(), t.exec_device);
    } else if (opts_.verify && dst->content_seed() == src->seed()) {
      // The destination must not already hold what the copy will write.
      fill_buffer(*dst, dst->bytes(), dst->seed(), t.exec_device);
    }
    if (t.src.kind == MemKind::pageable || t.dst.kind == MemKind::pageable) plan.gated = false;
    for (Buffer* b : {src, dst})
      if (b && b->location().kind == MemKind::managed) plan.managed.push_back(b);
    plan.sm.push_back(kernel_config(plan, i));
    plan.sink.push_back(t.engine == Engine::sm_read ? std::make_unique<DeviceValue<unsigned long long>>(t.exec_device)
                                                    : nullptr);
  }
}

SmCopyConfig Measurer::kernel_config(const Plan& plan, std::size_t i) const {
  const Transfer& t = plan.t(i);
  return is_dedicated_engine(t.engine) ? dedicated_config(t.engine, opts_.sm, sm_site(plan, i))
                                      : choose_sm_config(opts_.sm, sm_site(plan, i));
}

void Measurer::set_sm_limit(int sms) {
  opts_.sm_limit = sms;
  for (const GpuInfo& g : sys_.gpus) {
    if (sms <= 0 || sms >= g.sm_count) continue;
    XB_CUDA_CHECK(cudaSetDevice(g.index));
    prepare_sm_pinning(sms);
  }
}

int Measurer::sm_budget(int device) const {
  const int all = sys_.gpus[device].sm_count;
  return opts_.sm_limit > 0 ? std::min(opts_.sm_limit, all) : all;
}

// Both buffers get the source pattern, then the chunks each direction must
// deliver are poisoned on the receiving side, so after the copy both buffers
// hold the whole pattern only if every chunk moved.
void Measurer::prepare_split(Buffer& src, Buffer& dst, const Transfer& t) {
  fill_buffer(dst, t.bytes, src.seed(), t.exec_device);
  XB_CUDA_CHECK(cudaSetDevice(t.exec_device));
  launch_poison_chunks(dst.kernel_ptr(), t.bytes, 0, nullptr);
  launch_poison_chunks(src.kernel_ptr(), t.bytes, 1, nullptr);
  XB_CUDA_CHECK(cudaStreamSynchronize(nullptr));
  src.set_content_seed(0);
  dst.set_content_seed(0);
}

void Measurer::enqueue_copy(const Plan& plan, std::size_t i, int reps) {
  const Transfer& t = plan.t(i);
  const Stream& s = plan.stream(i);
  reps *= t.repeat;
  if (t.engine == Engine::copy_engine) {
    for (int r = 0; r < reps; ++r)
      XB_CUDA_CHECK(cudaMemcpyAsync(plan.dst[i]->ptr(), plan.src[i]->ptr(), t.bytes, cudaMemcpyDefault, s.get()));
  } else if (t.engine == Engine::sm_split && t.repeat_in_place) {
    launch_split_copy_in_place(plan.src[i]->kernel_ptr(), plan.dst[i]->kernel_ptr(), t.bytes, s.get(), reps);
  } else if (t.engine == Engine::sm_split) {
    // Only a vector --sm-config shapes the split-warp kernel.
    const SmCopyConfig split = opts_.sm.method == SmCopyConfig::Method::vector ? opts_.sm : SmCopyConfig{};
    launch_split_copy(plan.src[i]->kernel_ptr(), plan.dst[i]->kernel_ptr(), t.bytes, split, sm_budget(s.device()),
                      s.get(), reps);
  } else if (is_dedicated_engine(t.engine)) {
    enqueue_dedicated(t.engine, plan.src[i], plan.dst[i], t.bytes, plan.sm[i], sm_budget(s.device()), s.get(), reps,
                 plan.sink[i] ? plan.sink[i]->get() : nullptr);
  } else {
    launch_sm_copy(plan.dst[i]->kernel_ptr(), plan.src[i]->kernel_ptr(), t.bytes, plan.sm[i], sm_budget(s.device()),
                   s.get(), reps);
  }
}

// Managed pages move to whoever touched them last (the fill and verify
// kernels, an earlier copy). Each sample must start where the transfer says
// its bytes live, or a "host -> GPU" copy silently times a GPU-local one.
void Measurer::place_managed(const Plan& plan) {
  for (Buffer* b : plan.managed) {
    const Location& loc = b->location();
    XB_CUDA_CHECK(cudaSetDevice(loc.device >= 0 ? loc.device : plan.streams[0].device()));
    XB_CUDA_CHECK(cudaMemPrefetchAsync(b->ptr(), b->bytes(), prefetch_location(loc.device), 0, nullptr));
    XB_CUDA_CHECK(cudaStreamSynchronize(nullptr));
  }
}

void Measurer::warm_up(Plan& plan) {
  // Warm-up copies load code paths and TLBs, and their duration sizes the
  // samples: a sample lasts about target_sample_s.
  double slowest_copy_s = 0;
  for (int round = 0; round < std::max(1, opts_.warmup_copies); ++round) {
    throw_if_stopped();
    place_managed(plan);
    for (std::size_t i = 0; i < plan.size(); ++i) {
      XB_CUDA_CHECK(cudaSetDevice(plan.stream(i).device()));
      XB_CUDA_CHECK(cudaEventRecord(plan.start[i].get(), plan.stream(i).get()));
      enqueue_copy(plan, i);
      XB_CUDA_CHECK(cudaEventRecord(plan.end[i].get(), plan.stream(i).get()));
    }
    for (std::size_t i = 0; i < plan.size(); ++i) {
      XB_CUDA_CHECK(cudaEventSynchronize(plan.end[i].get()));
      slowest_copy_s = std::max(slowest_copy_s, elapsed_seconds(plan.start[i], plan.end[i]));
    }
  }
  if (!plan.managed.empty()) {
    // One copy per sample: a second copy would find the pages wherever the
    // first one (or its faults) left them.
    plan.copies = 1;
  } else if (opts_.copies_per_sample > 0) {
    plan.copies = opts_.copies_per_sample;
  } else if (plan.scenario->timing == Timing::nvbandwidth) {
    plan.copies = kNvbandwidthLoopCount;
  } else {
    const double n = slowest_copy_s > 0 ? std::ceil(opts_.target_sample_s / slowest_copy_s) : 1;
    // At most 1000 copies queued per stream behind the gate.
    int max_repeat = 1;
    for (std::size_t i = 0; i < plan.size(); ++i) max_repeat = std::max(max_repeat, plan.t(i).repeat);
    plan.copies = static_cast<int>(std::clamp(n, 1.0, 1000.0 / max_repeat));
  }
}

void Measurer::run_sample(Plan& plan, ScenarioSamples& out) {
  place_managed(plan);
  release_[0] = plan.gated ? 0 : 1;
  timed_out_[0] = 0;
  // If queuing throws after a gate is launched, open it on the way out, so
  // no gate spins until its timeout and the cleanup does not wait for it.
  struct GateRelease {
    volatile int* flag;
    ~GateRelease() { flag[0] = 1; }
  } open_gate_on_exit{release_};
  const auto timeout_ns = static_cast<std::uint64_t>(opts_.gate_timeout_s * 1e9);
  for (std::size_t s = 0; s < plan.streams.size(); ++s) {
    XB_CUDA_CHECK(cudaSetDevice(plan.streams[s].device()));
    if (plan.gated) launch_gate(release_, timed_out_, timeout_ns, plan.streams[s].get());
    XB_CUDA_CHECK(cudaEventRecord(plan.gate_end[s].get(), plan.streams[s].get()));
  }
  const bool nvb = plan.scenario->timing == Timing::nvbandwidth;
  if (nvb) queue_nvbandwidth_starts(plan);
  for (std::size_t i = 0; i < plan.size(); ++i) {
    XB_CUDA_CHECK(cudaSetDevice(plan.stream(i).device()));
    if (!nvb) XB_CUDA_CHECK(cudaEventRecord(plan.start[i].get(), plan.stream(i).get()));
    if (opts_.sm_repeat_in_kernel) {
      enqueue_copy(plan, i, plan.copies);  // copy-engine copies are queued one by one either way
    } else {
      for (int c = 0; c < plan.copies; ++c) enqueue_copy(plan, i);
    }
    XB_CUDA_CHECK(cudaEventRecord(plan.end[i].get(), plan.stream(i).get()));
  }
  // Stream 0 waits for every transfer, so total_end marks the last one done.
  const Stream& s0 = plan.streams[0];
  XB_CUDA_CHECK(cudaSetDevice(s0.device()));
  for (std::size_t i = 0; i < plan.size(); ++i) XB_CUDA_CHECK(cudaStreamWaitEvent(s0.get(), plan.end[i].get(), 0));
  XB_CUDA_CHECK(cudaEventRecord(plan.total_end.get(), s0.get()));
  release_[0] = 1;
  wait_for(plan.total_end);

  out.total_seconds.push_back(elapsed_seconds(nvb ? plan.start[0] : plan.gate_end[0], plan.total_end));
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const Event& ref = plan.gate_end[plan.stream_of[i]];
    auto& ts = out.transfers[i];
    ts.seconds.push_back(elapsed_seconds(plan.start[i], plan.end[i]));
    ts.start_s.push_back(elapsed_seconds(ref, plan.start[i]));
    ts.end_s.push_back(elapsed_seconds(ref, plan.end[i]));
  }
}

// nvbandwidth's order behind the gate: each stream's own warm-up copies,
// then stream 0's start, which the other streams' starts wait for.
void Measurer::queue_nvbandwidth_starts(const Plan& plan) {
  if (plan.scenario->streams != StreamMode::per_transfer)
    fail(ErrorKind::usage, "nvbandwidth's timing needs one stream per transfer");
  for (std::size_t i = 0; i < plan.size(); ++i) {
    XB_CUDA_CHECK(cudaSetDevice(plan.stream(i).device()));
    enqueue_copy(plan, i, kNvbandwidthWarmups);
  }
  XB_CUDA_CHECK(cudaSetDevice(plan.stream(0).device()));
  XB_CUDA_CHECK(cudaEventRecord(plan.start[0].get(), plan.stream(0).get()));
  for (std::size_t i = 1; i < plan.size(); ++i) {
    XB_CUDA_CHECK(cudaSetDevice(plan.stream(i).device()));
    XB_CUDA_CHECK(cudaStreamWaitEvent(plan.stream(i).get(), plan.start[0].get(), 0));
    XB_CUDA_CHECK(cudaEventRecord(plan.start[i].get(), plan.stream(i).get()));
  }
}

void Measurer::wait_for(const Event& done) {
  // Poll with a deadline instead of blocking forever on a hung copy.
  const auto t0 = Clock::now();
  const double deadline_s = opts_.gate_timeout_s + 60.0;
  cudaError_t q;
  while ((q = cudaEventQuery(done.get())) == cudaErrorNotReady) {
    throw_if_stopped();  // long samples (CUts: 100 x 1 GiB) are abandoned too; teardown waits for the queued copies
    if (seconds_since(t0) > deadline_s)
      fail(ErrorKind::timeout, fmt::format("transfers did not finish within {:.0f} s", deadline_s));
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  XB_CUDA_CHECK(q);
  if (timed_out_[0] != 0)
    fail(ErrorKind::timeout, fmt::format("gate timed out after {} s before all copies were queued; "
                                         "the sample is invalid (raise --gate-timeout)", opts_.gate_timeout_s));
}

void Measurer::verify(Plan& plan, ScenarioSamples& out) {
  for (std::size_t i = 0; i < plan.size(); ++i) {
    auto& v = out.transfers[i].verification;
    if (!opts_.verify) {
      v.status = Verification::Status::skipped;
      continue;
    }
    const Transfer& t = plan.t(i);
    if (t.engine == Engine::sm_read || t.engine == Engine::sm_write) {
      v = verify_dedicated(t.engine, plan.src[i], plan.dst[i], t.bytes, plan.sm[i], sys_.gpus[t.exec_device].sm_count,
                      t.exec_device);
      continue;
    }
    Buffer& src = *plan.src[i];
    Buffer& dst = *plan.dst[i];
    std::uint64_t bad = verify_buffer(dst, t.bytes, src.seed(), t.exec_device);
    if (t.engine == Engine::sm_split && bad == t.bytes) {
      // The other direction delivered into the source buffer.
      bad = verify_buffer(src, t.bytes, src.seed(), t.exec_device);
      src.set_content_seed(bad == t.bytes && src.bytes() == t.bytes ? src.seed() : 0);
    }
    v.status = bad == t.bytes ? Verification::Status::passed : Verification::Status::failed;
    v.first_bad_offset = bad;
    dst.set_content_seed(v.status == Verification::Status::passed && dst.bytes() == t.bytes ? src.seed() : 0);
  }
}

ScenarioSamples Measurer::run(const Scenario& scenario, const SampleMetric& metric) {
  if (scenario.transfers.empty()) fail(ErrorKind::usage, "scenario has no transfers");
  const auto t0 = Clock::now();
  Plan plan;
  plan.scenario = &scenario;
  const int first_gpu = scenario.transfers.front().exec_device;
  // Bound for this scenario only, also when it throws.
  struct NodeBinding {
    bool on;
    ~NodeBinding() {
      if (on) unbind_thread();
    }
  } binding{opts_.numa_affinity && bind_thread_to_node(sys_.host_node_of(first_gpu))};

  // Streams by mode: one per transfer, one per issuing GPU, or only one.
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const int dev = scenario.streams == StreamMode::only_one ? first_gpu : plan.t(i).exec_device;
    int idx = -1;
    if (scenario.streams != StreamMode::per_transfer) {
      for (std::size_t s = 0; s < plan.streams.size(); ++s)
        if (plan.streams[s].device() == dev) idx = static_cast<int>(s);
    }
    if (idx < 0) {
      plan.streams.emplace_back(dev);
      plan.gate_end.emplace_back(dev);
      idx = static_cast<int>(plan.streams.size()) - 1;
    }
    plan.stream_of.push_back(idx);
    plan.start.emplace_back(dev);
    plan.end.emplace_back(dev);
  }
  plan.total_end = Event(plan.streams[0].device());

  prepare_buffers(plan);
  warm_up(plan);

  ScenarioSamples out;
  out.copies_per_sample = plan.copies;
  out.gated = plan.gated;
  out.host_page_bytes = plan.host_page_bytes;
  out.transfers.resize(plan.size());
  sample_until_stable(opts_, [&] {
    run_sample(plan, out);
    return metric(out, out.total_seconds.size() - 1);
  });
  verify(plan, out);
  out.wall_seconds = seconds_since(t0);
  return out;
}

}  // namespace xb
