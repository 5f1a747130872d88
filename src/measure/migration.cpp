#include "measure/migration.hpp"

#include <chrono>

#include <fmt/format.h>

#include "machine/cuda_check.hpp"
#include "machine/cuda_raii.hpp"
#include "base/error.hpp"
#include "kernels/kernels.hpp"
#include "measure/measure.hpp"

namespace xb {
namespace {

void place(const Buffer& buf, MigrationDirection dir, int gpu) {
  // The pages start on the side the touch does not run on.
  const cudaMemLocation where = prefetch_location(dir == MigrationDirection::to_device ? -1 : gpu);
  XB_CUDA_CHECK(cudaSetDevice(gpu));
  XB_CUDA_CHECK(cudaMemPrefetchAsync(buf.ptr(), buf.bytes(), where, 0, nullptr));
  XB_CUDA_CHECK(cudaStreamSynchronize(nullptr));
}

// One read per `stride` bytes by one host thread, in order; seconds.
double host_touch(const void* p, std::uint64_t bytes, std::uint64_t stride) {
  const auto* b = static_cast<const volatile std::uint64_t*>(p);
  const std::uint64_t step = stride / sizeof(std::uint64_t);
  std::uint64_t acc = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (std::uint64_t i = 0; i < bytes / sizeof(std::uint64_t); i += step) acc += b[i];
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // acc feeds nothing; the volatile reads are what is timed.
  (void)acc;
  return s;
}

struct Toucher {
  const Buffer& buf;
  int gpu;
  MigrationDirection dir;
  Stream stream{gpu};
  Event start{gpu}, stop{gpu};
  DeviceValue<unsigned long long> sink{gpu};

  // Seconds for one timed touch of freshly placed pages.
  double operator()(std::uint64_t bytes, std::uint64_t stride) {
    place(buf, dir, gpu);
    if (dir == MigrationDirection::to_host) return host_touch(buf.ptr(), bytes, stride);
    XB_CUDA_CHECK(cudaEventRecord(start.get(), stream.get()));
    launch_touch(buf.kernel_ptr(), bytes, stride, sink.get(), stream.get());
    XB_CUDA_CHECK(cudaEventRecord(stop.get(), stream.get()));
    XB_CUDA_CHECK(cudaEventSynchronize(stop.get()));
    return elapsed_seconds(start, stop);
  }
};

}  // namespace

MigrationSamples measure_migration(Measurer& measurer, int gpu, MigrationDirection dir, std::uint64_t bytes) {
  const GpuInfo& g = measurer.system().gpus.at(gpu);
  if (!g.managed_memory)
    fail(ErrorKind::usage, fmt::format("gpu{} does not support managed memory", gpu));
  bytes = bytes / kLargePage * kLargePage;
  if (bytes == 0) fail(ErrorKind::usage, "managed migration needs a buffer of at least 2 MiB");
  Location loc;
  loc.kind = MemKind::managed;
  loc.device = gpu;
  // A buffer of its own: placement moves its pages, which would break the
  // pattern bookkeeping of a shared copy buffer.
  Buffer buf(loc, bytes);
  fill_buffer(buf, bytes, buf.seed(), gpu);

  Toucher touch{buf, gpu, dir};
  const MeasureOptions& opts = measurer.options();
  MigrationSamples out;
  out.dense_bytes = bytes;
  out.small_page_bytes = std::min(bytes, kSmallPageRegion);
  out.large_page_bytes = bytes;
  touch(bytes, 16);  // warm-up: code loading, first-use costs of the driver's fault path
  out.dense_gbps = sample_until_stable(opts, [&] { return gbps(static_cast<double>(bytes), touch(bytes, 16)); });
  out.ns_per_4k_page = sample_until_stable(opts, [&] {
    return touch(out.small_page_bytes, kSmallPage) * 1e9 / static_cast<double>(out.small_page_bytes / kSmallPage);
  });
  out.ns_per_2m_page = sample_until_stable(opts, [&] {
    return touch(bytes, kLargePage) * 1e9 / static_cast<double>(bytes / kLargePage);
  });
  const std::uint64_t bad = verify_buffer(buf, bytes, buf.seed(), gpu);
  out.verified = bad == bytes;
  out.first_bad_offset = bad;
  return out;
}

}  // namespace xb
