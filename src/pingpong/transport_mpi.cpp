// The mpi and staged transports: messages go through the communicator
// (MPI in a real run). With staging, a GPU-side rank copies device -> pinned
// host before each send and pinned host -> device after each receive,
// inside the timed region, because that is the cost a user of a MPI that is
// not CUDA-aware pays.
#include <chrono>
#include <cstdint>
#include <vector>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif
#include <cstring>

#include "core/cuda_check.hpp"
#include "pingpong/buffers.hpp"
#include "pingpong/pattern.hpp"
#include "pingpong/transport.hpp"

namespace xb::pingpong {
namespace {

using Clock = std::chrono::steady_clock;

// The x86 time-stamp counter runs at a constant rate on every CPU this
// targets; elsewhere the steady clock's nanoseconds serve as ticks.
std::uint64_t cycle_counter() {
#if defined(__x86_64__)
  return __rdtsc();
#else
  return static_cast<std::uint64_t>(Clock::now().time_since_epoch().count());
#endif
}

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

class MpiTransport final : public Transport {
 public:
  MpiTransport(const PairContext& ctx, bool staging)
      : ctx_(ctx), staging_(staging), stage_(staging && ctx.my_device >= 0) {
    const BufferKind kind = ctx.my_device >= 0 ? BufferKind::device : BufferKind::host;
    send_ = Buffer(kind, ctx.max_bytes, ctx.my_device);
    recv_ = Buffer(kind, ctx.max_bytes, ctx.my_device);
    if (stage_) {
      send_host_ = Buffer(BufferKind::pinned, ctx.max_bytes);
      recv_host_ = Buffer(BufferKind::pinned, ctx.max_bytes);
    }
  }

  TransportKind kind() const override { return staging_ ? TransportKind::staged : TransportKind::mpi; }

  void prepare(std::size_t bytes, std::uint64_t seed) override {
    load_pattern(send_, recv_, bytes, seed);
  }

  // Each repetition is timed with the CPU's cycle counter, scaled to seconds
  // by the steady clock over the whole run: a clock_gettime pair per round
  // trip would add tens of nanoseconds (more in a VM) to sub-microsecond
  // messages, while the counter costs a few.
  std::vector<double> run(Mode mode, std::size_t bytes, int reps, int window) override {
    std::vector<std::uint64_t> ticks(static_cast<std::size_t>(reps));
    requests_.resize(2 * static_cast<std::size_t>(window));
    const auto wall0 = Clock::now();
    const std::uint64_t tick0 = cycle_counter();
    for (int i = 0; i < reps; ++i) {
      const std::uint64_t t0 = cycle_counter();
      switch (mode) {
        case Mode::pingpong: round_trip(bytes); break;
        case Mode::bw: window_one_way(bytes, window); break;
        case Mode::bibw: window_both_ways(bytes, window); break;
      }
      ticks[static_cast<std::size_t>(i)] = cycle_counter() - t0;
    }
    const double wall = seconds_since(wall0);
    const std::uint64_t total = cycle_counter() - tick0;
    const double seconds_per_tick = total > 0 ? wall / static_cast<double>(total) : 0.0;
    std::vector<double> times;
    times.reserve(ticks.size());
    for (std::uint64_t t : ticks) times.push_back(static_cast<double>(t) * seconds_per_tick);
    return times;
  }

  std::vector<unsigned char> received(std::size_t bytes) override {
    std::vector<unsigned char> host(bytes);
    recv_.download(host.data(), bytes);
    return host;
  }

 private:
  comm::Communicator& comm() { return *ctx_.comm; }

  const void* outgoing(const Buffer& src, std::size_t bytes) {
    if (!stage_) return src.data();
    XB_CUDA_CHECK(cudaMemcpy(send_host_.data(), src.data(), bytes, cudaMemcpyDeviceToHost));
    return send_host_.data();
  }
  void* incoming() { return stage_ ? recv_host_.data() : recv_.data(); }
  void land(std::size_t bytes) {
    if (stage_) XB_CUDA_CHECK(cudaMemcpy(recv_.data(), recv_host_.data(), bytes, cudaMemcpyHostToDevice));
  }

  void send_from(const Buffer& src, std::size_t bytes) {
    comm().send(ctx_.peer, kTagData, outgoing(src, bytes), bytes, ctx_.timeout);
  }
  void recv_data(std::size_t bytes) {
    comm().recv(ctx_.peer, kTagData, incoming(), bytes, ctx_.timeout);
    land(bytes);
  }

  // The responder echoes what it received, so the initiator can verify
  // that its own pattern made the whole round trip.
  void round_trip(std::size_t bytes) {
    if (ctx_.initiator) {
      send_from(send_, bytes);
      recv_data(bytes);
    } else {
      recv_data(bytes);
      send_from(recv_, bytes);
    }
  }

  // osu_bw: a window of messages in flight, then a small acknowledgement.
  void window_one_way(std::size_t bytes, int window) {
    if (ctx_.initiator) {
      if (stage_) {
        for (int w = 0; w < window; ++w) send_from(send_, bytes);
      } else {
        for (int w = 0; w < window; ++w) requests_[w] = comm().isend(ctx_.peer, kTagData, send_.data(), bytes);
        comm().wait_all(requests_.data(), static_cast<std::size_t>(window), ctx_.timeout);
      }
      comm().recv(ctx_.peer, kTagAck, &ack_, sizeof ack_, ctx_.timeout);
    } else {
      if (stage_) {
        for (int w = 0; w < window; ++w) recv_data(bytes);
      } else {
        for (int w = 0; w < window; ++w) requests_[w] = comm().irecv(ctx_.peer, kTagData, recv_.data(), bytes);
        comm().wait_all(requests_.data(), static_cast<std::size_t>(window), ctx_.timeout);
      }
      comm().send(ctx_.peer, kTagAck, &ack_, sizeof ack_, ctx_.timeout);
    }
  }

  // osu_bibw: both ranks send a window to each other at the same time.
  void window_both_ways(std::size_t bytes, int window) {
    if (stage_) {
      // One message each way at a time: the single pinned staging buffer
      // per direction must not be refilled while MPI still reads it.
      for (int w = 0; w < window; ++w) {
        requests_[0] = comm().irecv(ctx_.peer, kTagData, incoming(), bytes);
        requests_[1] = comm().isend(ctx_.peer, kTagData, outgoing(send_, bytes), bytes);
        comm().wait_all(requests_.data(), 2, ctx_.timeout);
        land(bytes);
      }
      return;
    }
    const auto w_count = static_cast<std::size_t>(window);
    for (std::size_t w = 0; w < w_count; ++w) requests_[w] = comm().irecv(ctx_.peer, kTagData, recv_.data(), bytes);
    for (std::size_t w = 0; w < w_count; ++w) {
      requests_[w_count + w] = comm().isend(ctx_.peer, kTagData, send_.data(), bytes);
    }
    comm().wait_all(requests_.data(), 2 * w_count, ctx_.timeout);
  }

  PairContext ctx_;
  bool staging_;
  bool stage_;
  Buffer send_, recv_, send_host_, recv_host_;
  std::vector<comm::Request> requests_;
  std::uint32_t ack_ = 0;
};

}  // namespace

std::unique_ptr<Transport> make_mpi_transport(const PairContext& ctx, bool staging) {
  return std::make_unique<MpiTransport>(ctx, staging);
}

}  // namespace xb::pingpong
