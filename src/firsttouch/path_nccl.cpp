// The nccl first-touch path: one two-rank NCCL communicator for the whole
// run (its setup is timed once, as connect), then ncclSend / ncclRecv from
// each fresh buffer. NCCL copies through its own connection buffers unless
// a buffer is registered, and it registers nothing by itself here, so any
// per-buffer cost shows up in the first copy.
#include <fmt/format.h>

#include "base/time_budget.hpp"
#include "machine/cuda_check.hpp"
#include "machine/cuda_raii.hpp"
#include "base/error.hpp"
#include "firsttouch/path.hpp"
#include "pingpong/nccl_pair.hpp"

namespace xb::firsttouch {
namespace {

namespace nccl = pingpong::nccl;

int checked_device(const PathContext& ctx) {
  if (ctx.device < 0) fail(ErrorKind::usage, "--transport nccl needs GPU buffers (--memory gpu)");
  nccl::api();  // a clean error naming the library when NCCL is missing
  return ctx.device;
}

class NcclPath final : public Path {
 public:
  explicit NcclPath(const PathContext& ctx) : Path(ctx), stream_(checked_device(ctx)) {}

  void connect() override {
    pair_.connect(*ctx_.comm, ctx_.peer, kTagConnect, ctx_.sender, ctx_.device, ctx_.timeout);
  }

  void transfer(std::size_t bytes, int sub, Phases& phases) override {
    XB_CUDA_CHECK(cudaSetDevice(ctx_.device));
    const auto t0 = std::chrono::steady_clock::now();
    const nccl::Api& f = pair_.fns();
    if (ctx_.sender) {
      nccl::check(f.Send(buf_.ptr(), bytes, nccl::kInt8, pair_.peer_rank(), pair_.get(), stream_.get()), "ncclSend");
    } else {
      nccl::check(f.Recv(buf_.ptr(), bytes, nccl::kInt8, pair_.peer_rank(), pair_.get(), stream_.get()), "ncclRecv");
    }
    pair_.wait(stream_.get(), *ctx_.comm, ctx_.peer, ctx_.timeout);
    if (ctx_.sender) record_copy(phases, sub, seconds_since(t0));
  }

 private:
  Stream stream_;
  nccl::PairComm pair_;
};

}  // namespace

std::unique_ptr<Path> make_nccl_path(const PathContext& ctx) { return std::make_unique<NcclPath>(ctx); }

}  // namespace xb::firsttouch
