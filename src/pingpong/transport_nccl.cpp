// The nccl transport: a two-rank NCCL communicator per pair, bootstrapped
// by sending the initiator's ncclUniqueId over our communicator; messages
// are ncclSend/ncclRecv on one stream, all repetitions queued up front and
// timed with CUDA events.
#include "pingpong/nccl_pair.hpp"
#include "pingpong/queued_transport.hpp"

namespace xb::pingpong {
namespace {

class NcclTransport final : public QueuedTransport {
 public:
  explicit NcclTransport(const PairContext& ctx)
      : QueuedTransport(ctx, "nccl"), ack_(device_memory(ctx.my_device), sizeof(std::uint32_t)) {}

  void connect() override {
    pair_.connect(*ctx_.comm, ctx_.peer, kTagConnect, ctx_.initiator, ctx_.my_device, ctx_.timeout);
  }

 private:
  void finish() override { pair_.wait(stream_.get(), *ctx_.comm, ctx_.peer, ctx_.timeout); }

  void send(const Buffer& b, std::size_t bytes) {
    nccl::check(pair_.fns().Send(b.ptr(), bytes, nccl::kInt8, pair_.peer_rank(), pair_.get(), stream_.get()),
                "ncclSend");
  }
  void recv(Buffer& b, std::size_t bytes) {
    nccl::check(pair_.fns().Recv(b.ptr(), bytes, nccl::kInt8, pair_.peer_rank(), pair_.get(), stream_.get()),
                "ncclRecv");
  }

  void enqueue_round_trip(std::size_t bytes) override {
    if (ctx_.initiator) {
      send(send_, bytes);
      recv(recv_, bytes);
    } else {
      recv(recv_, bytes);
      send(ctx_.echo ? recv_ : send_, bytes);  // --buffers echo: what just arrived
    }
  }

  // osu_bw's pattern: a group of `window` messages, then a 4-byte ack.
  void enqueue_window(std::size_t bytes, int window) override {
    nccl::check(pair_.fns().GroupStart(), "ncclGroupStart");
    for (int w = 0; w < window; ++w) {
      if (ctx_.initiator) {
        send(send_, bytes);
      } else {
        recv(recv_, bytes);
      }
    }
    nccl::check(pair_.fns().GroupEnd(), "ncclGroupEnd");
    if (ctx_.initiator) {
      recv(ack_, ack_.bytes());
    } else {
      send(ack_, ack_.bytes());
    }
  }

  void enqueue_window_both(std::size_t bytes, int window) override {
    nccl::check(pair_.fns().GroupStart(), "ncclGroupStart");
    for (int w = 0; w < window; ++w) {
      send(send_, bytes);
      recv(recv_, bytes);
    }
    nccl::check(pair_.fns().GroupEnd(), "ncclGroupEnd");
  }

  Buffer ack_;
  nccl::PairComm pair_;
};

}  // namespace

std::unique_ptr<Transport> make_nccl_transport(const PairContext& ctx) {
  return std::make_unique<NcclTransport>(ctx);
}

}  // namespace xb::pingpong
