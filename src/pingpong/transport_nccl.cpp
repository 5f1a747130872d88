// The nccl transport: a two-rank NCCL communicator per pair, bootstrapped
// by sending the initiator's ncclUniqueId over our communicator; messages
// are ncclSend/ncclRecv on one stream, all repetitions queued up front and
// timed with CUDA events.
#include <fmt/format.h>

#include "core/cuda_check.hpp"
#include "core/error.hpp"
#include "pingpong/buffers.hpp"
#include "pingpong/nccl_api.hpp"
#include "pingpong/pattern.hpp"
#include "pingpong/transport.hpp"

namespace xb::pingpong {
namespace {

int checked_device(const PairContext& ctx) {
  if (ctx.my_device < 0 || ctx.peer_device < 0) {
    fail(ErrorKind::usage, "--transport nccl needs GPU buffers on both ranks (--dev1 gpu --dev2 gpu)");
  }
  nccl::api();  // throws a clean error naming the library when NCCL is missing
  return ctx.my_device;
}

class NcclTransport final : public Transport {
 public:
  explicit NcclTransport(const PairContext& ctx)
      : ctx_(ctx), api_(nccl::api()), stream_(checked_device(ctx)),
        send_(BufferKind::device, ctx.max_bytes, ctx.my_device),
        recv_(BufferKind::device, ctx.max_bytes, ctx.my_device),
        ack_(BufferKind::device, sizeof(std::uint32_t), ctx.my_device) {}

  ~NcclTransport() override {
    if (comm_ == nullptr) return;
    // Destroy waits for the peer; after a failure only abort is safe.
    if (healthy_) {
      api_.CommDestroy(comm_);
    } else {
      api_.CommAbort(comm_);
    }
  }

  TransportKind kind() const override { return TransportKind::nccl; }

  void connect() override {
    nccl::UniqueId id{};
    if (ctx_.initiator) {
      nccl::check(api_.GetUniqueId(&id), "ncclGetUniqueId");
      ctx_.comm->send(ctx_.peer, kTagConnect, &id, sizeof id, ctx_.timeout);
    } else {
      ctx_.comm->recv(ctx_.peer, kTagConnect, &id, sizeof id, ctx_.timeout);
    }
    XB_CUDA_CHECK(cudaSetDevice(ctx_.my_device));
    nccl::check(api_.CommInitRank(&comm_, 2, id, ctx_.initiator ? 0 : 1), "ncclCommInitRank");
  }

  void prepare(std::size_t bytes, std::uint64_t seed) override {
    load_pattern(send_, recv_, bytes, seed);
    XB_CUDA_CHECK(cudaDeviceSynchronize());
  }

  std::vector<double> run(Mode mode, std::size_t bytes, int reps, int window) override {
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
    try {
      wait_stream(stream_.get(), ctx_.timeout,
                  comm::timeout_message(ctx_.comm->rank(), ctx_.peer, -1, ctx_.timeout) + " (in nccl)");
    } catch (const Error&) {
      healthy_ = false;
      throw;
    }
    int async = nccl::kSuccess;
    nccl::check(api_.CommGetAsyncError(comm_, &async), "ncclCommGetAsyncError");
    nccl::check(async, "an nccl operation");
    return timeline_.intervals(n);
  }

  std::vector<unsigned char> received(std::size_t bytes) override {
    std::vector<unsigned char> host(bytes);
    recv_.download(host.data(), bytes);
    return host;
  }

 private:
  int peer() const { return ctx_.initiator ? 1 : 0; }
  void send(const Buffer& b, std::size_t bytes) {
    nccl::check(api_.Send(b.data(), bytes, nccl::kInt8, peer(), comm_, stream_.get()), "ncclSend");
  }
  void recv(Buffer& b, std::size_t bytes) {
    nccl::check(api_.Recv(b.data(), bytes, nccl::kInt8, peer(), comm_, stream_.get()), "ncclRecv");
  }

  void enqueue_round_trip(std::size_t bytes) {
    if (ctx_.initiator) {
      send(send_, bytes);
      recv(recv_, bytes);
    } else {
      recv(recv_, bytes);
      send(recv_, bytes);  // echo, so the initiator can verify its pattern
    }
  }

  // osu_bw's pattern: a group of `window` messages, then a 4-byte ack.
  void enqueue_window(std::size_t bytes, int window) {
    nccl::check(api_.GroupStart(), "ncclGroupStart");
    for (int w = 0; w < window; ++w) {
      if (ctx_.initiator) {
        send(send_, bytes);
      } else {
        recv(recv_, bytes);
      }
    }
    nccl::check(api_.GroupEnd(), "ncclGroupEnd");
    if (ctx_.initiator) {
      recv(ack_, ack_.size());
    } else {
      send(ack_, ack_.size());
    }
  }

  void enqueue_window_both(std::size_t bytes, int window) {
    nccl::check(api_.GroupStart(), "ncclGroupStart");
    for (int w = 0; w < window; ++w) {
      send(send_, bytes);
      recv(recv_, bytes);
    }
    nccl::check(api_.GroupEnd(), "ncclGroupEnd");
  }

  PairContext ctx_;
  const nccl::Api& api_;
  Stream stream_;
  Buffer send_, recv_, ack_;
  nccl::Comm comm_ = nullptr;
  bool healthy_ = true;
  EventTimeline timeline_;
};

}  // namespace

std::unique_ptr<Transport> make_nccl_transport(const PairContext& ctx) {
  return std::make_unique<NcclTransport>(ctx);
}

}  // namespace xb::pingpong
