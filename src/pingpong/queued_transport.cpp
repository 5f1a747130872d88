#include "pingpong/queued_transport.hpp"

#include "machine/cuda_check.hpp"

namespace xb::pingpong {

QueuedTransport::QueuedTransport(int device, std::size_t max_bytes)
    : stream_(device), send_(device_memory(device), max_bytes), recv_(device_memory(device), max_bytes) {}

void QueuedTransport::prepare(std::size_t bytes, std::uint64_t seed) {
  load_pattern(send_, recv_, bytes, seed);
  XB_CUDA_CHECK(cudaDeviceSynchronize());
}

std::vector<double> QueuedTransport::run(Mode mode, std::size_t bytes, int reps, int window) {
  const auto n = static_cast<std::size_t>(reps);
  while (timeline_.size() < n + 1) timeline_.emplace_back(stream_.device());
  XB_CUDA_CHECK(cudaEventRecord(timeline_[0].get(), stream_.get()));
  for (std::size_t i = 0; i < n; ++i) {
    switch (mode) {
      case Mode::pingpong: enqueue_round_trip(bytes); break;
      case Mode::bw: enqueue_window(bytes, window); break;
      case Mode::bibw: enqueue_window_both(bytes, window); break;
    }
    XB_CUDA_CHECK(cudaEventRecord(timeline_[i + 1].get(), stream_.get()));
  }
  finish();
  std::vector<double> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(elapsed_seconds(timeline_[i], timeline_[i + 1]));
  return out;
}

std::vector<unsigned char> QueuedTransport::received(std::size_t bytes) { return host_copy(recv_, bytes); }

}  // namespace xb::pingpong
