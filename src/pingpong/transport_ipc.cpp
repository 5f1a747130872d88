// The ipc transport: two ranks on one host exchange CUDA IPC handles for
// their receive buffers and flag words over the communicator, then each
// rank's copy engine writes straight into the peer's memory and a flag
// kernel tells the peer's GPU the data is there. Everything of a run is
// queued on one stream up front, so no host or MPI step sits between
// messages; CUDA events time each repetition.
#include <fmt/format.h>

#include "machine/cuda_check.hpp"
#include "base/error.hpp"
#include "pingpong/ipc_kernels.hpp"
#include "pingpong/queued_transport.hpp"

namespace xb::pingpong {
namespace {

constexpr int kDataFlag = 0;  // counts messages (or windows) that arrived here
constexpr int kAckFlag = 1;   // counts acknowledgements (bw mode)

struct IpcHandles {
  cudaIpcMemHandle_t recv;
  cudaIpcMemHandle_t flags;
};

class IpcTransport final : public QueuedTransport {
 public:
  explicit IpcTransport(const PairContext& ctx)
      : QueuedTransport(ctx, "ipc"), flags_(device_memory(ctx.my_device), 2 * sizeof(std::uint32_t)),
        timed_out_(host_memory(MemKind::mapped, kNoNumaPlacement), sizeof(std::uint32_t)) {
    fill_bytes(flags_, flags_.bytes(), 0);
    fill_bytes(timed_out_, timed_out_.bytes(), 0);
    XB_CUDA_CHECK(cudaDeviceSynchronize());
  }

  ~IpcTransport() override {
    if (peer_recv_ != nullptr) XB_CUDA_CHECK_NOTHROW(cudaIpcCloseMemHandle(peer_recv_));
    if (peer_flags_ != nullptr) XB_CUDA_CHECK_NOTHROW(cudaIpcCloseMemHandle(peer_flags_));
  }

  void connect() override {
    IpcHandles mine{}, theirs{};
    XB_CUDA_CHECK(cudaIpcGetMemHandle(&mine.recv, recv_.ptr()));
    XB_CUDA_CHECK(cudaIpcGetMemHandle(&mine.flags, flags_.ptr()));
    comm::Request reqs[2] = {ctx_.comm->irecv(ctx_.peer, kTagConnect, &theirs, sizeof theirs),
                             ctx_.comm->isend(ctx_.peer, kTagConnect, &mine, sizeof mine)};
    ctx_.comm->wait_all(reqs, 2, ctx_.timeout);
    XB_CUDA_CHECK(cudaSetDevice(ctx_.my_device));
    XB_CUDA_CHECK(cudaIpcOpenMemHandle(&peer_recv_, theirs.recv, cudaIpcMemLazyEnablePeerAccess));
    void* flags = nullptr;
    XB_CUDA_CHECK(cudaIpcOpenMemHandle(&flags, theirs.flags, cudaIpcMemLazyEnablePeerAccess));
    peer_flags_ = flags;
  }

 private:
  void finish() override {
    const std::string late = comm::timeout_message(ctx_.comm->rank(), ctx_.peer, -1, ctx_.timeout);
    wait_stream(stream_.get(), ctx_.timeout * 2, late);
    if (*static_cast<volatile std::uint32_t*>(timed_out_.ptr()) != 0) {
      fail(ErrorKind::timeout, fmt::format("{} (gpu {} waiting on an ipc flag)", late, ctx_.my_device));
    }
  }

  std::uint32_t* my_flag(int which) const { return static_cast<std::uint32_t*>(flags_.ptr()) + which; }
  std::uint32_t* peer_flag(int which) const { return static_cast<std::uint32_t*>(peer_flags_) + which; }

  void copy_to_peer(const Buffer& src, std::size_t bytes) {
    XB_CUDA_CHECK(cudaMemcpyAsync(peer_recv_, src.ptr(), bytes, cudaMemcpyDeviceToDevice, stream_.get()));
  }
  void wait_for(int which) {
    launch_wait_flag(my_flag(which), seq_, timeout_ns(), static_cast<std::uint32_t*>(timed_out_.kernel_ptr()),
                     stream_.get());
  }
  void signal(int which) { launch_signal_flag(peer_flag(which), seq_, stream_.get()); }
  std::uint64_t timeout_ns() const { return static_cast<std::uint64_t>(ctx_.timeout.count() * 1e9); }

  // Both ranks advance seq_ once per repetition, so the counters agree.
  void enqueue_round_trip(std::size_t bytes) override {
    ++seq_;
    if (ctx_.initiator) {
      copy_to_peer(send_, bytes);
      signal(kDataFlag);
      wait_for(kDataFlag);
    } else {
      wait_for(kDataFlag);
      copy_to_peer(ctx_.echo ? recv_ : send_, bytes);  // --buffers echo: what just arrived
      signal(kDataFlag);
    }
  }

  void enqueue_window(std::size_t bytes, int window) override {
    ++seq_;
    if (ctx_.initiator) {
      for (int w = 0; w < window; ++w) copy_to_peer(send_, bytes);
      signal(kDataFlag);
      wait_for(kAckFlag);
    } else {
      wait_for(kDataFlag);
      signal(kAckFlag);
    }
  }

  void enqueue_window_both(std::size_t bytes, int window) override {
    ++seq_;
    for (int w = 0; w < window; ++w) copy_to_peer(send_, bytes);
    signal(kDataFlag);
    wait_for(kDataFlag);
  }

  Buffer flags_;
  Buffer timed_out_;  // mapped host memory: the flag kernels set it when they give up waiting
  void* peer_recv_ = nullptr;
  void* peer_flags_ = nullptr;
  std::uint32_t seq_ = 0;
};

}  // namespace

std::unique_ptr<Transport> make_ipc_transport(const PairContext& ctx) {
  return std::make_unique<IpcTransport>(ctx);
}

}  // namespace xb::pingpong
