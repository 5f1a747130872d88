#include "measure/latency.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/stats.hpp"
#include "base/stop.hpp"
#include "base/time_budget.hpp"
#include "kernels/kernels.hpp"
#include "machine/cuda_check.hpp"
#include "machine/cuda_raii.hpp"
#include "machine/topology.hpp"
#include "measure/load_feed.hpp"
#include "measure/measure.hpp"

namespace xb {
namespace {

constexpr std::uint64_t kHopSlots = kRingLineBytes / sizeof(std::uint64_t);  // one cache line per hop
constexpr std::uint64_t kAccessesPerSm = 400;  // per SM per sample

// Writes a ring for `gpu`: slot i points to slot (i + 16) mod n, as device
// addresses; or, in the GPU's own memory, scattered lines (see latency.hpp).
void build_ring(Buffer& buf, bool scattered, cudaStream_t stream) {
  if (scattered) {
    launch_build_scattered_ring(buf.kernel_ptr(), buf.bytes() / kRingLineBytes, stream);
    XB_CUDA_CHECK(cudaStreamSynchronize(stream));
  } else {
    const std::uint64_t n = buf.bytes() / sizeof(std::uint64_t);
    const auto base = reinterpret_cast<std::uint64_t>(buf.kernel_ptr());
    std::vector<std::uint64_t> image(n);
    for (std::uint64_t i = 0; i < n; ++i) image[i] = base + ((i + kHopSlots) % n) * sizeof(std::uint64_t);
    XB_CUDA_CHECK(cudaMemcpy(buf.ptr(), image.data(), buf.bytes(), cudaMemcpyDefault));
  }
  buf.set_content_seed(0);
}

// One GPU's chase through a ring: one sample runs it on each SM in turn,
// back to back, between two events on `stream`.
class Chase {
 public:
  Chase(Measurer& m, int gpu, const Location& target, ChaseKind kind, Buffer& ring)
      : kind_(kind), ring_(ring), scattered_(is_local_chase(target, gpu)),
        stream_(Stream::highest_priority(gpu)), start_(gpu), stop_(gpu), sink_(gpu) {
    XB_CUDA_CHECK(cudaSetDevice(gpu));
    build_ring(ring, scattered_, stream_.get());
    XB_CUDA_CHECK(cudaMemsetAsync(sink_.get(), 0, sizeof(unsigned long long), stream_.get()));
    sms_ = m.system().gpus.at(gpu).sm_count;
    out_.accesses_per_sample = kAccessesPerSm * static_cast<std::uint64_t>(sms_);
    out_.buffer_bytes = ring.bytes();
    out_.host_page_bytes = ring.page_bytes();
  }
  // Queues one sample on the chase stream (the device's highest priority,
  // so a load that runs as kernels does not hold back the chase's blocks).
  void enqueue() {
    XB_CUDA_CHECK(cudaEventRecord(start_.get(), stream_.get()));
    for (int b = 0; b < sms_; ++b) {
      if (kind_ == ChaseKind::tma)
        launch_tma_chase(ring_.kernel_ptr(), kAccessesPerSm, sink_.get(), sms_, b, stream_.get());
      else
        launch_chase(ring_.kernel_ptr(), kAccessesPerSm, sink_.get(), sms_, b, stream_.get(), scattered_);
    }
    XB_CUDA_CHECK(cudaEventRecord(stop_.get(), stream_.get()));
  }
  bool done() const {
    const cudaError_t q = cudaEventQuery(stop_.get());
    if (q == cudaErrorNotReady) return false;
    XB_CUDA_CHECK(q);
    return true;
  }
  // The queued sample, once done: ns per access.
  double finish() {
    XB_CUDA_CHECK(cudaEventSynchronize(stop_.get()));
    return elapsed_seconds(start_, stop_) * 1e9 / static_cast<double>(out_.accesses_per_sample);
  }
  double run_once() {
    enqueue();
    return finish();
  }
  LatencySamples samples(const MeasureOptions& opts) {
    run_once();  // warm-up: TLB entries and code loading
    LatencySamples s = out_;
    s.ns_per_access = sample_until_stable(opts, [this] { return run_once(); });
    return s;
  }
  const Stream& stream() const { return stream_; }
  const Event& start() const { return start_; }
  const Event& stop() const { return stop_; }
  double accesses() const { return static_cast<double>(out_.accesses_per_sample); }

 private:
  ChaseKind kind_;
  Buffer& ring_;
  bool scattered_;
  Stream stream_;
  Event start_, stop_;
  DeviceValue<unsigned long long> sink_;
  int sms_ = 0;
  LatencySamples out_;
};

// One load transfer: its buffers, stream and an event after every copy.
struct LoadCopy {
  const Transfer* t = nullptr;
  Buffer* src = nullptr;
  Buffer* dst = nullptr;
  Stream stream;
  std::vector<Event> done;  // done[j]: copy j of this sample ended (kept for the next samples)
  std::size_t queued = 0, ended = 0;
};

// The load's GB/s over the chase: for each copy stream, the copies between
// the last one that ended before the chase started and the first one that
// ended after it stopped (a window just around the chase).
double load_rate(std::vector<LoadCopy>& loads, const Chase& chase) {
  double sum = 0;
  for (LoadCopy& l : loads) {
    const int copies = static_cast<int>(l.queued);
    int first = 0, last = copies - 1;
    for (int j = 0; j < copies; ++j)
      if (elapsed_seconds(l.done[static_cast<std::size_t>(j)], chase.start()) >= 0) first = j;
    for (int j = copies - 1; j >= 0; --j)
      if (elapsed_seconds(chase.stop(), l.done[static_cast<std::size_t>(j)]) >= 0) last = j;
    const double s = elapsed_seconds(l.done[static_cast<std::size_t>(first)], l.done[static_cast<std::size_t>(last)]);
    sum += gbps(static_cast<double>(l.t->bytes) * (last - first), s);
  }
  return sum;
}

// load_feed.hpp's driver on the GPUs: copy-engine copies on one stream per
// load, the chase on its own stream.
class GpuLoadDriver final : public LoadDriver {
 public:
  GpuLoadDriver(std::vector<LoadCopy>& loads, Chase& chase, int gpu) : loads_(loads), chase_(chase), gpu_(gpu) {}
  std::size_t loads() const override { return loads_.size(); }
  void begin_sample() override {
    t0_ = std::chrono::steady_clock::now();
    for (LoadCopy& l : loads_) l.queued = l.ended = 0;
  }
  void queue_copy(std::size_t i) override {
    LoadCopy& l = loads_[i];
    XB_CUDA_CHECK(cudaSetDevice(l.t->exec_device));
    if (l.done.size() <= l.queued) l.done.emplace_back(l.t->exec_device);
    XB_CUDA_CHECK(cudaMemcpyAsync(l.dst->ptr(), l.src->ptr(), l.t->bytes, cudaMemcpyDefault, l.stream.get()));
    XB_CUDA_CHECK(cudaEventRecord(l.done[l.queued].get(), l.stream.get()));
    ++l.queued;
  }
  std::size_t queued(std::size_t i) const override { return loads_[i].queued; }
  std::size_t ended(std::size_t i) override {
    LoadCopy& l = loads_[i];
    while (l.ended < l.queued) {
      const cudaError_t q = cudaEventQuery(l.done[l.ended].get());
      if (q == cudaErrorNotReady) break;
      XB_CUDA_CHECK(q);
      ++l.ended;
    }
    return l.ended;
  }
  void start_chase() override {
    XB_CUDA_CHECK(cudaSetDevice(gpu_));
    for (LoadCopy& l : loads_) XB_CUDA_CHECK(cudaStreamWaitEvent(chase_.stream().get(), l.done.front().get(), 0));
    chase_.enqueue();
  }
  bool chase_done() override { return chase_.done(); }
  void finish_copies() override {
    for (LoadCopy& l : loads_)
      if (l.queued > 0) XB_CUDA_CHECK(cudaEventSynchronize(l.done[l.queued - 1].get()));
  }
  bool covered() override {
    for (LoadCopy& l : loads_) {
      if (elapsed_seconds(l.done.front(), chase_.start()) < 0) return false;
      if (elapsed_seconds(chase_.stop(), l.done[l.queued - 1]) <= 0) return false;
    }
    return true;
  }
  double elapsed_s() override { return seconds_since(t0_); }
  void pause() override { std::this_thread::sleep_for(std::chrono::microseconds(20)); }

 private:
  std::vector<LoadCopy>& loads_;
  Chase& chase_;
  int gpu_;
  std::chrono::steady_clock::time_point t0_;
};

}  // namespace

LatencySamples measure_latency(Measurer& measurer, int gpu, const Location& target, ChaseKind kind) {
  Buffer& ring = *measurer.acquire({{measurer.resolve(target, gpu), chase_bytes(target, gpu), false}}).at(0);
  Chase chase(measurer, gpu, target, kind, ring);
  return chase.samples(measurer.options());
}

namespace {

// The chase's ring first, then each load copy's source and destination.
std::vector<BufferRequest> loaded_requests(Measurer& measurer, int gpu, const Location& target,
                                           const std::vector<Transfer>& load) {
  std::vector<BufferRequest> requests{{measurer.resolve(target, gpu), chase_bytes(target, gpu), false}};
  for (const Transfer& t : load) {
    if (t.engine != Engine::copy_engine) fail(ErrorKind::usage, fmt::format("{}: a load must be a copy-engine copy", t.label));
    requests.push_back({measurer.resolve(t.src, t.exec_device), t.bytes, true});
    requests.push_back({measurer.resolve(t.dst, t.exec_device), t.bytes, false});
  }
  return requests;
}

// The load copies over their buffers (after the ring in `buffers`), with
// the sources holding their pattern.
std::vector<LoadCopy> prepare_loads(const std::vector<Transfer>& load, const std::vector<Buffer*>& buffers,
                                    const MeasureOptions& opts) {
  std::vector<LoadCopy> loads(load.size());
  for (std::size_t i = 0; i < load.size(); ++i) {
    LoadCopy& l = loads[i];
    l.t = &load[i];
    l.src = buffers[1 + 2 * i];
    l.dst = buffers[2 + 2 * i];
    l.stream = Stream(l.t->exec_device);
    if (l.src->content_seed() != l.src->seed()) fill_buffer(*l.src, l.t->bytes, l.src->seed(), l.t->exec_device);
    // The destination must not already hold what the copies will write.
    if (opts.verify && l.dst->content_seed() == l.src->seed())
      fill_buffer(*l.dst, l.t->bytes, l.dst->seed(), l.t->exec_device);
  }
  return loads;
}

// One copy of each alone (warm-up), timed: the slowest sizes the copies
// kept in flight, about a millisecond of copies ahead of the chase.
std::size_t copies_ahead(GpuLoadDriver& driver, std::vector<LoadCopy>& loads) {
  double copy_s = 0;
  for (std::size_t i = 0; i < loads.size(); ++i) {
    LoadCopy& l = loads[i];
    driver.begin_sample();
    driver.queue_copy(i);
    driver.queue_copy(i);
    driver.finish_copies();
    copy_s = std::max(copy_s, elapsed_seconds(l.done[0], l.done[1]));
  }
  return static_cast<std::size_t>(std::clamp(std::ceil(1e-3 / std::max(copy_s, 1e-9)), 2.0, 64.0));
}

// The load copies' destinations checked against their sources' pattern.
std::vector<Verification> verify_loads(std::vector<LoadCopy>& loads, const MeasureOptions& opts) {
  std::vector<Verification> out;
  for (LoadCopy& l : loads) {
    Verification v;
    if (opts.verify) {
      const std::uint64_t bad = verify_buffer(*l.dst, l.t->bytes, l.src->seed(), l.t->exec_device);
      v.status = bad == l.t->bytes ? Verification::Status::passed : Verification::Status::failed;
      v.first_bad_offset = bad;
      l.dst->set_content_seed(v.status == Verification::Status::passed && l.dst->bytes() == l.t->bytes ? l.src->seed() : 0);
    }
    out.push_back(v);
  }
  return out;
}

}  // namespace

LoadedLatencySamples measure_loaded_latency(Measurer& measurer, int gpu, const Location& target,
                                            const std::vector<Transfer>& load) {
  const MeasureOptions& opts = measurer.options();
  const std::vector<Buffer*> buffers = measurer.acquire(loaded_requests(measurer, gpu, target, load));
  Chase chase(measurer, gpu, target, ChaseKind::load, *buffers[0]);

  LoadedLatencySamples out;
  out.idle = chase.samples(opts);

  std::vector<LoadCopy> loads = prepare_loads(load, buffers, opts);
  GpuLoadDriver driver(loads, chase, gpu);
  const std::size_t ahead = copies_ahead(driver, loads);
  // A chase that has not stopped long after its idle time is stuck, not slow.
  const double idle_s = median(out.idle.ns_per_access) * 1e-9 * chase.accesses();
  const double limit_s = std::max(60.0, 100 * idle_s);
  auto sample = [&]() {
    if (!feed_loaded_sample(driver, ahead, limit_s))
      fail(ErrorKind::cuda, fmt::format("the load ({} copies of {} kept in flight) did not cover the chase on gpu{}",
                                        ahead, load.front().label, gpu));
    out.load_gbps.push_back(load_rate(loads, chase));
    out.load_copies = static_cast<int>(loads.front().queued);
    return chase.finish();
  };
  sample();  // warm-up under load
  out.load_gbps.clear();
  out.loaded = out.idle;
  out.loaded.ns_per_access = sample_until_stable(opts, sample);
  out.load_verification = verify_loads(loads, opts);
  return out;
}

}  // namespace xb
