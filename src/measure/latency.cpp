#include "measure/latency.hpp"

#include <vector>

#include <algorithm>

#include "machine/cuda_check.hpp"
#include "machine/cuda_raii.hpp"
#include "kernels/kernels.hpp"
#include "measure/measure.hpp"
#include "base/stats.hpp"
#include "machine/topology.hpp"

namespace xb {
namespace {

constexpr std::uint64_t kHopSlots = 16;  // 16 x 8 B = 128 B: one cache line per hop
constexpr std::uint64_t kAccessesPerSm = 400;  // per SM per sample

// Writes the ring: slot i points to slot (i + 16) mod n, as device addresses.
void build_ring(Buffer& buf) {
  const std::uint64_t n = kChaseBytes / sizeof(std::uint64_t);
  const auto base = reinterpret_cast<std::uint64_t>(buf.kernel_ptr());
  std::vector<std::uint64_t> image(n);
  for (std::uint64_t i = 0; i < n; ++i) image[i] = base + ((i + kHopSlots) % n) * sizeof(std::uint64_t);
  XB_CUDA_CHECK(cudaMemcpy(buf.ptr(), image.data(), kChaseBytes, cudaMemcpyDefault));
  buf.set_content_seed(0);
}

}  // namespace

LatencySamples measure_latency(Measurer& measurer, int gpu, const Location& target, ChaseKind kind) {
  const MeasureOptions& opts = measurer.options();
  Buffer& ring = *measurer.acquire({{measurer.resolve(target, gpu), kChaseBytes, false}}).at(0);
  XB_CUDA_CHECK(cudaSetDevice(gpu));
  build_ring(ring);

  Stream stream(gpu);
  Event start(gpu), stop(gpu);
  DeviceValue<unsigned long long> sink(gpu);

  // One sample: the chase runs on each SM in turn, back to back.
  const int sms = measurer.system().gpus.at(gpu).sm_count;
  LatencySamples out;
  out.accesses_per_sample = kAccessesPerSm * static_cast<std::uint64_t>(sms);
  out.buffer_bytes = kChaseBytes;
  out.host_page_bytes = ring.page_bytes();
  const auto chase = kind == ChaseKind::tma ? launch_tma_chase : launch_chase;
  auto run_once = [&]() {
    XB_CUDA_CHECK(cudaEventRecord(start.get(), stream.get()));
    for (int b = 0; b < sms; ++b) chase(ring.kernel_ptr(), kAccessesPerSm, sink.get(), sms, b, stream.get());
    XB_CUDA_CHECK(cudaEventRecord(stop.get(), stream.get()));
    XB_CUDA_CHECK(cudaEventSynchronize(stop.get()));
    return elapsed_seconds(start, stop) * 1e9 / static_cast<double>(out.accesses_per_sample);
  };
  run_once();  // warm-up: TLB entries and code loading
  out.ns_per_access = sample_until_stable(opts, run_once);
  return out;
}

}  // namespace xb
