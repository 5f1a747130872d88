#include "pingpong/queued_transport.hpp"

#include "machine/cuda_check.hpp"

namespace xb::pingpong {

QueuedTransport::QueuedTransport(int device, std::size_t max_bytes)
    : stream_(device), send_(BufferKind::device, max_bytes, device), recv_(BufferKind::device, max_bytes, device) {}

void QueuedTransport::prepare(std::size_t bytes, std::uint64_t seed) {
  load_pattern(send_, recv_, bytes, seed);
  XB_CUDA_CHECK(cudaDeviceSynchronize());
}

std::vector<double> QueuedTransport::run(Mode mode, std::size_t bytes, int reps, int window) {
  const auto n = static_cast<std::size_t>(reps);
  timeline_.reserve(n + 1);
  timeline_.record(0, stream_.get());
  for (std::size_t i = 0; i < n; ++i) {
    switch (mode) {
      case Mode::pingpong: enqueue_round_trip(bytes); break;
      case Mode::bw: enqueue_window(bytes, window); break;
      case Mode::bibw: enqueue_window_both(bytes, window); break;
    }
    timeline_.record(i + 1, stream_.get());
  }
  finish();
  return timeline_.intervals(n);
}

std::vector<unsigned char> QueuedTransport::received(std::size_t bytes) {
  std::vector<unsigned char> host(bytes);
  recv_.download(host.data(), bytes);
  return host;
}

}  // namespace xb::pingpong
