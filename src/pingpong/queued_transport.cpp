#include "pingpong/queued_transport.hpp"

#include <fmt/format.h>

#include "base/error.hpp"
#include "machine/cuda_check.hpp"

namespace xb::pingpong {
namespace {

int both_gpus(const PairContext& ctx, const char* name) {
  if (ctx.my_device < 0 || ctx.peer_device < 0) {
    fail(ErrorKind::usage, fmt::format("--transport {} needs GPU buffers on both ranks (--dev1 gpu --dev2 gpu)", name));
  }
  return ctx.my_device;
}

}  // namespace

QueuedTransport::QueuedTransport(const PairContext& ctx, const char* name)
    : ctx_(ctx), stream_(both_gpus(ctx, name)), send_(device_memory(ctx.my_device), ctx.max_bytes),
      recv_(device_memory(ctx.my_device), ctx.max_bytes) {}

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
