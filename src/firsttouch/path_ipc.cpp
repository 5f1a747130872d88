// The ipc first-touch path, shaped like the GPU IPC protocol of a
// CUDA-aware MPI: the sender exports its fresh buffer (cudaIpcGetMemHandle)
// and sends the handle; the receiver opens it (cudaIpcOpenMemHandle, which
// maps the sender's whole allocation into its address space) and pulls the
// message with a copy. The mapping is cached for the later sub-iterations,
// as MPI's IPC cache does, so only the first pays export and open.
#include <fmt/format.h>

#include "base/time_budget.hpp"
#include "machine/cuda_check.hpp"
#include "machine/cuda_raii.hpp"
#include "base/error.hpp"
#include "firsttouch/path.hpp"

namespace xb::firsttouch {
namespace {

using Clock = std::chrono::steady_clock;

int checked_device(const PathContext& ctx) {
  if (ctx.device < 0) fail(ErrorKind::usage, "--transport ipc needs GPU buffers (--memory gpu)");
  return ctx.device;
}

class IpcPath final : public Path {
 public:
  explicit IpcPath(const PathContext& ctx) : Path(ctx), stream_(checked_device(ctx)) {}

  ~IpcPath() override {
    if (mapped_ != nullptr) XB_CUDA_CHECK_NOTHROW(cudaIpcCloseMemHandle(mapped_));
  }

  double allocate(std::uint64_t bytes) override {
    exported_ = false;
    return Path::allocate(bytes);
  }

  void transfer(std::size_t bytes, int sub, Phases& phases) override {
    if (ctx_.sender) {
      send_handle(phases);
    } else {
      receive(bytes, sub, phases);
    }
  }

  void unmap() override {
    if (mapped_ == nullptr) return;
    XB_CUDA_CHECK(cudaSetDevice(ctx_.device));
    void* p = mapped_;
    mapped_ = nullptr;
    XB_CUDA_CHECK(cudaIpcCloseMemHandle(p));
  }

 private:
  // The handle goes with every sub-iteration: it is the "send" that starts
  // the receiver's copy; only the first of a buffer is exported.
  void send_handle(Phases& phases) {
    if (!exported_) {
      XB_CUDA_CHECK(cudaSetDevice(ctx_.device));
      const auto t0 = Clock::now();
      XB_CUDA_CHECK(cudaIpcGetMemHandle(&handle_, buf_.ptr()));
      phases.export_s = seconds_since(t0);
      exported_ = true;
    }
    ctx_.comm->send(ctx_.peer, kTagHandle, &handle_, sizeof handle_, ctx_.timeout);
  }

  void receive(std::size_t bytes, int sub, Phases& phases) {
    cudaIpcMemHandle_t handle{};
    ctx_.comm->recv(ctx_.peer, kTagHandle, &handle, sizeof handle, ctx_.timeout);
    XB_CUDA_CHECK(cudaSetDevice(ctx_.device));
    if (mapped_ == nullptr) {
      const auto t0 = Clock::now();
      XB_CUDA_CHECK(cudaIpcOpenMemHandle(&mapped_, handle, cudaIpcMemLazyEnablePeerAccess));
      phases.open_s = seconds_since(t0);
    }
    const auto t0 = Clock::now();
    XB_CUDA_CHECK(cudaMemcpyAsync(buf_.ptr(), mapped_, bytes, cudaMemcpyDeviceToDevice, stream_.get()));
    wait_stream(stream_.get(), ctx_.timeout,
                fmt::format("rank {}: ipc copy of {} bytes did not finish within {:g} s", ctx_.comm->rank(), bytes,
                            ctx_.timeout.count()));
    record_copy(phases, sub, seconds_since(t0));
  }

  Stream stream_;
  cudaIpcMemHandle_t handle_{};
  bool exported_ = false;
  void* mapped_ = nullptr;
};

}  // namespace

std::unique_ptr<Path> make_ipc_path(const PathContext& ctx) { return std::make_unique<IpcPath>(ctx); }

}  // namespace xb::firsttouch
