// The nccl first-touch path: one two-rank NCCL communicator for the whole
// run (its setup is timed once, as connect), then ncclSend / ncclRecv from
// each fresh buffer. NCCL copies through its own connection buffers unless
// a buffer is registered, and it registers nothing by itself here, so any
// per-buffer cost shows up in the first copy.
#include <chrono>

#include <fmt/format.h>

#include "core/cuda_check.hpp"
#include "core/error.hpp"
#include "firsttouch/path.hpp"
#include "pingpong/buffers.hpp"
#include "pingpong/nccl_api.hpp"

namespace xb::firsttouch {
namespace {

using Clock = std::chrono::steady_clock;
using pingpong::Buffer;
using pingpong::BufferKind;
namespace nccl = pingpong::nccl;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

int checked_device(const PathContext& ctx) {
  if (ctx.device < 0) fail(ErrorKind::usage, "--transport nccl needs GPU buffers (--memory gpu)");
  nccl::api();  // a clean error naming the library when NCCL is missing
  return ctx.device;
}

class NcclPath final : public Path {
 public:
  explicit NcclPath(const PathContext& ctx) : ctx_(ctx), stream_(checked_device(ctx)), api_(nccl::api()) {}

  ~NcclPath() override {
    if (comm_ == nullptr) return;
    // Destroy waits for the peer; after a failure only abort is safe.
    if (healthy_) {
      api_.CommDestroy(comm_);
    } else {
      api_.CommAbort(comm_);
    }
  }

  void connect() override {
    nccl::UniqueId id{};
    if (ctx_.sender) {
      nccl::check(api_.GetUniqueId(&id), "ncclGetUniqueId");
      ctx_.comm->send(ctx_.peer, kTagConnect, &id, sizeof id, ctx_.timeout);
    } else {
      ctx_.comm->recv(ctx_.peer, kTagConnect, &id, sizeof id, ctx_.timeout);
    }
    XB_CUDA_CHECK(cudaSetDevice(ctx_.device));
    nccl::check(api_.CommInitRank(&comm_, 2, id, ctx_.sender ? 0 : 1), "ncclCommInitRank");
  }

  double allocate(std::uint64_t bytes) override {
    buf_ = Buffer();
    const auto t0 = Clock::now();
    buf_ = Buffer(BufferKind::device, bytes, ctx_.device);
    return seconds_since(t0);
  }

  void transfer(std::size_t bytes, int sub, Phases& phases) override {
    XB_CUDA_CHECK(cudaSetDevice(ctx_.device));
    const auto t0 = Clock::now();
    if (ctx_.sender) {
      nccl::check(api_.Send(buf_.data(), bytes, nccl::kInt8, 1, comm_, stream_.get()), "ncclSend");
    } else {
      nccl::check(api_.Recv(buf_.data(), bytes, nccl::kInt8, 0, comm_, stream_.get()), "ncclRecv");
    }
    try {
      pingpong::wait_stream(stream_.get(), ctx_.timeout,
                            comm::timeout_message(ctx_.comm->rank(), ctx_.peer, -1, ctx_.timeout) + " (in nccl)");
    } catch (const Error&) {
      healthy_ = false;
      throw;
    }
    if (ctx_.sender) record_copy(phases, sub, seconds_since(t0));
  }

  void free_buffer() override { buf_ = Buffer(); }

 private:
  PathContext ctx_;
  pingpong::Stream stream_;
  const nccl::Api& api_;
  Buffer buf_;
  nccl::Comm comm_ = nullptr;
  bool healthy_ = true;
};

}  // namespace

std::unique_ptr<Path> make_nccl_path(const PathContext& ctx) { return std::make_unique<NcclPath>(ctx); }

}  // namespace xb::firsttouch
