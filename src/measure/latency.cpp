#include "measure/latency.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/stats.hpp"
#include "base/stop.hpp"
#include "kernels/kernels.hpp"
#include "machine/cuda_check.hpp"
#include "machine/cuda_raii.hpp"
#include "machine/topology.hpp"
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
        stream_(gpu), start_(gpu), stop_(gpu), sink_(gpu) {
    XB_CUDA_CHECK(cudaSetDevice(gpu));
    build_ring(ring, scattered_, stream_.get());
    XB_CUDA_CHECK(cudaMemsetAsync(sink_.get(), 0, sizeof(unsigned long long), stream_.get()));
    sms_ = m.system().gpus.at(gpu).sm_count;
    out_.accesses_per_sample = kAccessesPerSm * static_cast<std::uint64_t>(sms_);
    out_.buffer_bytes = ring.bytes();
    out_.host_page_bytes = ring.page_bytes();
  }
  // Queues one sample on the chase stream.
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
  std::vector<Event> done;  // done[j]: copy j ended
};

// The load's GB/s over the chase: for each copy stream, the copies between
// the last one that ended before the chase started and the first one that
// ended after it stopped (a window just around the chase).
double load_rate(std::vector<LoadCopy>& loads, const Chase& chase, int copies) {
  double sum = 0;
  for (LoadCopy& l : loads) {
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

// Whether every copy stream was busy from before the chase started until
// after it stopped.
bool covered(std::vector<LoadCopy>& loads, const Chase& chase, int copies) {
  for (LoadCopy& l : loads) {
    if (elapsed_seconds(l.done.front(), chase.start()) < 0) return false;
    if (elapsed_seconds(chase.stop(), l.done[static_cast<std::size_t>(copies - 1)]) <= 0) return false;
  }
  return true;
}

}  // namespace

LatencySamples measure_latency(Measurer& measurer, int gpu, const Location& target, ChaseKind kind) {
  Buffer& ring = *measurer.acquire({{measurer.resolve(target, gpu), chase_bytes(target, gpu), false}}).at(0);
  Chase chase(measurer, gpu, target, kind, ring);
  return chase.samples(measurer.options());
}

LoadedLatencySamples measure_loaded_latency(Measurer& measurer, int gpu, const Location& target,
                                            const std::vector<Transfer>& load) {
  const MeasureOptions& opts = measurer.options();
  std::vector<BufferRequest> requests{{measurer.resolve(target, gpu), chase_bytes(target, gpu), false}};
  for (const Transfer& t : load) {
    if (t.engine != Engine::copy_engine) fail(ErrorKind::usage, fmt::format("{}: a load must be a copy-engine copy", t.label));
    requests.push_back({measurer.resolve(t.src, t.exec_device), t.bytes, true});
    requests.push_back({measurer.resolve(t.dst, t.exec_device), t.bytes, false});
  }
  const std::vector<Buffer*> buffers = measurer.acquire(requests);
  Chase chase(measurer, gpu, target, ChaseKind::load, *buffers[0]);

  LoadedLatencySamples out;
  out.idle = chase.samples(opts);

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
  auto copy = [](LoadCopy& l) {
    XB_CUDA_CHECK(cudaMemcpyAsync(l.dst->ptr(), l.src->ptr(), l.t->bytes, cudaMemcpyDefault, l.stream.get()));
  };
  // One copy of each alone (warm-up), timed: the slowest sizes the load.
  double copy_s = 0;
  for (LoadCopy& l : loads) {
    XB_CUDA_CHECK(cudaSetDevice(l.t->exec_device));
    Event a(l.t->exec_device), b(l.t->exec_device);
    copy(l);
    XB_CUDA_CHECK(cudaEventRecord(a.get(), l.stream.get()));
    copy(l);
    XB_CUDA_CHECK(cudaEventRecord(b.get(), l.stream.get()));
    XB_CUDA_CHECK(cudaEventSynchronize(b.get()));
    copy_s = std::max(copy_s, elapsed_seconds(a, b));
  }
  // Enough copies to cover three times the idle chase, doubled whenever a
  // sample finds the chase outlasting them.
  const double idle_s = median(out.idle.ns_per_access) * 1e-9 * chase.accesses();
  int copies = static_cast<int>(std::ceil(3.0 * idle_s / std::max(copy_s, 1e-9))) + 3;
  constexpr int kMaxCopies = 1 << 14;
  auto sample = [&]() {
    for (int attempt = 0;; ++attempt) {
      throw_if_stopped();
      copies = std::min(copies, kMaxCopies);
      for (LoadCopy& l : loads) {
        XB_CUDA_CHECK(cudaSetDevice(l.t->exec_device));
        while (l.done.size() < static_cast<std::size_t>(copies)) l.done.emplace_back(l.t->exec_device);
        for (int j = 0; j < copies; ++j) {
          copy(l);
          XB_CUDA_CHECK(cudaEventRecord(l.done[static_cast<std::size_t>(j)].get(), l.stream.get()));
        }
      }
      XB_CUDA_CHECK(cudaSetDevice(gpu));
      // The chase starts once the first copy of every load has ended: the
      // load is running at its pace by then.
      for (LoadCopy& l : loads) XB_CUDA_CHECK(cudaStreamWaitEvent(chase.stream().get(), l.done.front().get(), 0));
      chase.enqueue();
      const double ns = chase.finish();
      for (LoadCopy& l : loads) XB_CUDA_CHECK(cudaEventSynchronize(l.done[static_cast<std::size_t>(copies - 1)].get()));
      if (covered(loads, chase, copies)) {
        out.load_gbps.push_back(load_rate(loads, chase, copies));
        out.load_copies = copies;
        return ns;
      }
      if (copies >= kMaxCopies || attempt >= 6)
        fail(ErrorKind::cuda, fmt::format("the load ({} copies of {}) did not cover the chase on gpu{}", copies,
                                          load.front().label, gpu));
      copies *= 2;
    }
  };
  sample();  // warm-up under load
  out.load_gbps.clear();
  out.loaded = out.idle;
  out.loaded.ns_per_access = sample_until_stable(opts, sample);
  for (LoadCopy& l : loads) {
    Verification v;
    if (opts.verify) {
      const std::uint64_t bad = verify_buffer(*l.dst, l.t->bytes, l.src->seed(), l.t->exec_device);
      v.status = bad == l.t->bytes ? Verification::Status::passed : Verification::Status::failed;
      v.first_bad_offset = bad;
      l.dst->set_content_seed(v.status == Verification::Status::passed && l.dst->bytes() == l.t->bytes ? l.src->seed() : 0);
    }
    out.load_verification.push_back(v);
  }
  return out;
}

}  // namespace xb
