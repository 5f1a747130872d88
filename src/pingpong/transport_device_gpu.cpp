// The GPU side of the device transport: one persistent kernel per run
// (device_kernels.hpp documents its memory orders and timeout). The peer is
// another GPU (its mailbox and receive buffer mapped over CUDA IPC) or a
// host-side rank (both mailboxes and the host's message in shared memory,
// registered as mapped pinned memory here; the kernel fetches the host's
// large messages into this GPU's receive buffer itself).

#include <fmt/format.h>

#include "machine/cuda_check.hpp"
#include "machine/cuda_raii.hpp"
#include "base/error.hpp"
#include "pingpong/cycle_clock.hpp"
#include "pingpong/device_kernels.hpp"
#include "pingpong/device_transport_base.hpp"
#include "pingpong/host_endpoint.hpp"

namespace xb::pingpong {

using namespace devproto;

namespace {

std::uint32_t max_parts_on(int device) {
  XB_CUDA_CHECK(cudaSetDevice(device));
  return device_run_max_parts();
}

template <typename T>
T* device_pointer(T* host) {
  void* dev = nullptr;
  XB_CUDA_CHECK(cudaHostGetDevicePointer(&dev, host, 0));
  return static_cast<T*>(dev);
}

BoxView to_device(const BoxView& b) {
  return BoxView{device_pointer(b.flags), device_pointer(b.ll), device_pointer(b.data)};
}

class GpuSide final : public DeviceTransportBase {
 public:
  explicit GpuSide(const PairContext& ctx)
      : DeviceTransportBase(ctx, max_parts_on(ctx.my_device)), stream_(ctx.my_device),
        send_(device_memory(ctx.my_device), ctx.max_bytes), recv_(device_memory(ctx.my_device), ctx.max_bytes),
        timer_(device_memory(ctx.my_device), 2 * sizeof(std::uint64_t)),
        pulled_(device_memory(ctx.my_device), sizeof(unsigned long long)),
        relay_(device_memory(ctx.my_device), 3 * sizeof(std::uint64_t)),
        pick_(device_memory(ctx.my_device), 2 * sizeof(unsigned long long)),
        status_(host_memory(MemKind::mapped, kNoNumaPlacement), sizeof(KernelStatus)) {
    if (!uses_shm()) {
      box_ = Buffer(device_memory(ctx.my_device), layout_.data_offset);  // flags and LL words
      fill_bytes(box_, box_.bytes(), 0);
    }
    fill_bytes(status_, status_.bytes(), 0);
    fill_bytes(relay_, relay_.bytes(), 0);
    XB_CUDA_CHECK(cudaDeviceSynchronize());
  }

  ~GpuSide() override {
    if (peer_box_ != nullptr) XB_CUDA_CHECK_NOTHROW(cudaIpcCloseMemHandle(peer_box_));
    if (peer_recv_ != nullptr) XB_CUDA_CHECK_NOTHROW(cudaIpcCloseMemHandle(peer_recv_));
    if (registered_) XB_CUDA_CHECK_NOTHROW(cudaHostUnregister(shm_.data()));
  }

  void connect() override {
    Hello mine;
    XB_CUDA_CHECK(cudaSetDevice(ctx_.my_device));
    if (!uses_shm()) {
      XB_CUDA_CHECK(cudaIpcGetMemHandle(&mine.box, box_.ptr()));
      XB_CUDA_CHECK(cudaIpcGetMemHandle(&mine.recv, recv_.ptr()));
    }
    const Hello theirs = connect_hello(mine);
    links_.send = static_cast<const unsigned char*>(send_.ptr());
    links_.recv_ll = static_cast<unsigned char*>(recv_.ptr());
    if (uses_shm()) {
      connect_host_peer();
    } else {
      connect_gpu_peer(theirs);
    }
  }

  void prepare(std::size_t bytes, std::uint64_t seed) override {
    shm_.unlink();  // both sides have mapped it by now (the runner checked connect)
    load_pattern(send_, recv_, bytes, seed);
    XB_CUDA_CHECK(cudaDeviceSynchronize());
  }

  std::vector<double> run(Mode mode, std::size_t bytes, int reps, int window) override {
    const RunSpec spec = next_spec(mode, bytes, reps, window);
    const std::size_t stamps = static_cast<std::size_t>(reps) + 1;
    if (clocks_.bytes() < stamps * sizeof(std::uint64_t)) {
      clocks_ = Buffer(device_memory(ctx_.my_device), stamps * sizeof(std::uint64_t));
    }
    XB_CUDA_CHECK(cudaSetDevice(ctx_.my_device));
    const DeviceRunArgs args{spec, links_, static_cast<std::uint64_t*>(clocks_.ptr()),
                             static_cast<std::uint64_t*>(timer_.ptr()), static_cast<KernelStatus*>(status_.kernel_ptr()),
                             static_cast<unsigned long long*>(pulled_.ptr()), static_cast<std::uint64_t*>(relay_.ptr()),
                             static_cast<unsigned long long*>(pick_.ptr())};
    XB_CUDA_CHECK(cudaMemsetAsync(pulled_.ptr(), 0, sizeof(unsigned long long), stream_.get()));
    XB_CUDA_CHECK(cudaMemsetAsync(pick_.ptr(), 0, 2 * sizeof(unsigned long long), stream_.get()));
    launch_device_run(args, stream_.get());
    // Every wait inside the kernel gives up after the timeout, so this bound
    // is only a safety net for a GPU that stopped answering altogether.
    const auto bound = ctx_.timeout * (static_cast<double>(reps) + 2.0);
    wait_stream(stream_.get(), bound, fmt::format("rank {}: the device kernel on gpu {} did not finish",
                                                  ctx_.comm->rank(), ctx_.my_device));
    check_status(spec);
    std::vector<std::uint64_t> clocks(stamps), timer(2);
    copy_to_host(clocks_, clocks.data(), stamps * sizeof(std::uint64_t));
    copy_to_host(timer_, timer.data(), 2 * sizeof(std::uint64_t));
    commit(spec);
    return ticks_to_seconds(clocks, static_cast<double>(timer[1] - timer[0]) * 1e-9);
  }

  std::vector<unsigned char> received(std::size_t bytes) override { return host_copy(recv_, bytes); }

  std::string describe() const override {
    const std::string peer = uses_shm() ? "the host rank's shared memory (mapped pinned), from which it also fetches "
                                          "the host's large messages"
                                        : fmt::format("gpu {}'s memory over a CUDA IPC peer mapping", ctx_.peer_device);
    return fmt::format("a persistent kernel on gpu {} stores into {}; LL words up to {} B, above that stores and a "
                       "release flag per block (up to {} blocks)",
                       ctx_.my_device, peer, ctx_.ll_max_bytes, my_max_parts_);
  }

 private:
  void connect_gpu_peer(const Hello& theirs) {
    XB_CUDA_CHECK(cudaIpcOpenMemHandle(&peer_box_, theirs.box, cudaIpcMemLazyEnablePeerAccess));
    XB_CUDA_CHECK(cudaIpcOpenMemHandle(&peer_recv_, theirs.recv, cudaIpcMemLazyEnablePeerAccess));
    // The mailboxes hold flags and LL words; large messages land in the receive buffers.
    links_.in = box_at(static_cast<unsigned char*>(box_.ptr()), layout_, 0);
    links_.in.data = static_cast<unsigned char*>(recv_.ptr());
    links_.out = box_at(static_cast<unsigned char*>(peer_box_), layout_, 0);
    links_.out.data = static_cast<unsigned char*>(peer_recv_);
  }

  void connect_host_peer() {
    XB_CUDA_CHECK(cudaHostRegister(shm_.data(), shm_.size(), cudaHostRegisterMapped | cudaHostRegisterPortable));
    registered_ = true;
    links_.in = to_device(box_at(shm_.data(), layout_, my_box()));
    links_.in.data = static_cast<unsigned char*>(recv_.ptr());  // fetched messages land in gpu memory
    links_.out = to_device(box_at(shm_.data(), layout_, 1 - my_box()));
    links_.peer_send = device_pointer(shm_.data() + layout_.send_offset);
  }

  void check_status(const RunSpec& spec) const {
    const volatile KernelStatus* s = static_cast<const KernelStatus*>(status_.ptr());
    if (s->timed_out == 0) return;
    fail_late(fmt::format("the device kernel on gpu {} gave up waiting for {} (repetition {} of {}, {} B; last "
                          "value seen {}) and returned, so the GPU is not left spinning",
                          ctx_.my_device, describe_wait(static_cast<WaitFor>(s->what), s->seq), s->rep + 1,
                          spec.reps, spec.bytes, s->seen));
  }

  Stream stream_;
  Buffer send_, recv_, timer_, pulled_, relay_, pick_, clocks_, box_;
  Buffer status_;  // mapped host memory: the kernel reports a timeout here
  void* peer_box_ = nullptr;
  void* peer_recv_ = nullptr;
  bool registered_ = false;
  Links links_{};
};

}  // namespace

std::unique_ptr<Transport> make_device_gpu_side(const PairContext& ctx) { return std::make_unique<GpuSide>(ctx); }

}  // namespace xb::pingpong
