// The mpi transport: messages go through the communicator (MPI in a real
// run) straight from and into the buffers, host memory or, with a
// CUDA-aware MPI, GPU memory. The staged transport (transport_staged.cpp)
// is the path for GPU buffers on an MPI that is not CUDA-aware.
#include <vector>

#include "pingpong/cycle_clock.hpp"
#include "pingpong/transport.hpp"

namespace xb::pingpong {
namespace {

class MpiTransport final : public Transport {
 public:
  explicit MpiTransport(const PairContext& ctx)
      : ctx_(ctx), send_(buffer_location(ctx.my_device), ctx.max_bytes),
        recv_(buffer_location(ctx.my_device), ctx.max_bytes) {}

  void prepare(std::size_t bytes, std::uint64_t seed) override { load_pattern(send_, recv_, bytes, seed); }

  std::vector<double> run(Mode mode, std::size_t bytes, int reps, int window) override {
    requests_.resize(2 * static_cast<std::size_t>(window));
    return time_reps(reps, [&] {
      switch (mode) {
        case Mode::pingpong: round_trip(bytes); break;
        case Mode::bw: window_one_way(bytes, window); break;
        case Mode::bibw: window_both_ways(bytes, window); break;
      }
    });
  }

  std::vector<unsigned char> received(std::size_t bytes) override { return host_copy(recv_, bytes); }

 private:
  comm::Communicator& comm() { return *ctx_.comm; }

  // The responder answers from its send buffer, or with --buffers echo
  // from the buffer it has just received into (transport.hpp).
  void round_trip(std::size_t bytes) {
    if (ctx_.initiator) {
      comm().send(ctx_.peer, kTagData, send_.ptr(), bytes, ctx_.timeout);
      comm().recv(ctx_.peer, kTagData, recv_.ptr(), bytes, ctx_.timeout);
    } else {
      comm().recv(ctx_.peer, kTagData, recv_.ptr(), bytes, ctx_.timeout);
      comm().send(ctx_.peer, kTagData, (ctx_.echo ? recv_ : send_).ptr(), bytes, ctx_.timeout);
    }
  }

  // osu_bw: a window of messages in flight, then a small acknowledgement.
  void window_one_way(std::size_t bytes, int window) {
    const auto n = static_cast<std::size_t>(window);
    if (ctx_.initiator) {
      for (std::size_t w = 0; w < n; ++w) requests_[w] = comm().isend(ctx_.peer, kTagData, send_.ptr(), bytes);
      comm().wait_all(requests_.data(), n, ctx_.timeout);
      comm().recv(ctx_.peer, kTagAck, &ack_, sizeof ack_, ctx_.timeout);
    } else {
      for (std::size_t w = 0; w < n; ++w) requests_[w] = comm().irecv(ctx_.peer, kTagData, recv_.ptr(), bytes);
      comm().wait_all(requests_.data(), n, ctx_.timeout);
      comm().send(ctx_.peer, kTagAck, &ack_, sizeof ack_, ctx_.timeout);
    }
  }

  // osu_bibw: both ranks send a window to each other at the same time.
  void window_both_ways(std::size_t bytes, int window) {
    const auto n = static_cast<std::size_t>(window);
    for (std::size_t w = 0; w < n; ++w) requests_[w] = comm().irecv(ctx_.peer, kTagData, recv_.ptr(), bytes);
    for (std::size_t w = 0; w < n; ++w) requests_[n + w] = comm().isend(ctx_.peer, kTagData, send_.ptr(), bytes);
    comm().wait_all(requests_.data(), 2 * n, ctx_.timeout);
  }

  PairContext ctx_;
  Buffer send_, recv_;
  std::vector<comm::Request> requests_;
  std::uint32_t ack_ = 0;
};

}  // namespace

std::unique_ptr<Transport> make_mpi_transport(const PairContext& ctx) { return std::make_unique<MpiTransport>(ctx); }

}  // namespace xb::pingpong
