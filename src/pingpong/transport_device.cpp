// The device transport (device-initiated). A GPU side runs the whole run in
// one persistent kernel (device_kernels.cu) that stores each message straight
// into the peer's memory and raises flags there; a host side runs the same
// protocol on a CPU thread (host_endpoint.cpp). GPU <-> GPU: each rank's
// mailbox and receive buffer are mapped into the peer over CUDA IPC (peer
// access, so one host). When a side is the host: both mailboxes live in a
// shared segment that the GPU side maps with cudaHostRegister (mapped pinned
// memory). MPI only carries the handshake; no host step sits between
// messages, and times come from the initiator's side (GPU clocks for a GPU).
// This file: the shared bookkeeping and the host side; the GPU side is in
// transport_device_gpu.cpp.
#include <cstring>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/pattern.hpp"
#include "pingpong/device_transport_base.hpp"
#include "pingpong/host_endpoint.hpp"

namespace xb::pingpong {

using namespace devproto;

namespace {

constexpr std::size_t kPage = 4096;
std::size_t page_round(std::size_t n) { return (n + kPage - 1) / kPage * kPage; }

std::string side_name(int device) { return device < 0 ? std::string("host") : fmt::format("gpu {}", device); }

}  // namespace

ShmLayout shm_layout(std::uint64_t ll_max_bytes, std::uint64_t max_bytes, bool host_send) {
  ShmLayout l;
  const std::size_t data = page_round(max_bytes == 0 ? 1 : max_bytes);
  l.ll_offset = page_round(sizeof(BoxFlags));
  l.data_offset = l.ll_offset + page_round(ll_area_bytes(ll_max_bytes));
  l.box_bytes = l.data_offset + data;
  l.send_offset = 2 * l.box_bytes;
  l.total = l.send_offset + (host_send ? data : 0);
  return l;
}

BoxView box_at(unsigned char* base, const ShmLayout& layout, int index) {
  unsigned char* box = base + static_cast<std::size_t>(index) * layout.box_bytes;
  return BoxView{reinterpret_cast<BoxFlags*>(box), reinterpret_cast<std::uint64_t*>(box + layout.ll_offset),
                 box + layout.data_offset};
}

DeviceTransportBase::DeviceTransportBase(const PairContext& ctx, std::uint32_t max_parts)
    : ctx_(ctx), my_max_parts_(max_parts), layout_(shm_layout(ctx.ll_max_bytes, ctx.max_bytes, pulls())) {}

Hello DeviceTransportBase::connect_hello(Hello mine) {
  mine.max_parts = my_max_parts_;
  mine.ll_max = ctx_.ll_max_bytes;
  if (uses_shm() && ctx_.initiator) {
    shm_ = SharedSegment::create(layout_.total);
    std::snprintf(mine.shm_name, sizeof mine.shm_name, "%s", shm_.name().c_str());
  }
  Hello theirs;
  comm::Request reqs[2] = {ctx_.comm->irecv(ctx_.peer, kTagConnect, &theirs, sizeof theirs),
                           ctx_.comm->isend(ctx_.peer, kTagConnect, &mine, sizeof mine)};
  ctx_.comm->wait_all(reqs, 2, ctx_.timeout);
  if (theirs.ll_max != mine.ll_max) {
    fail(ErrorKind::usage, fmt::format("--ll-max differs between rank {} ({} B) and rank {} ({} B)",
                                       ctx_.comm->rank(), mine.ll_max, ctx_.peer, theirs.ll_max));
  }
  peer_max_parts_ = theirs.max_parts;
  if (uses_shm() && !ctx_.initiator) {
    theirs.shm_name[sizeof theirs.shm_name - 1] = '\0';
    shm_ = SharedSegment::open(theirs.shm_name, layout_.total);
  }
  return theirs;
}

RunSpec DeviceTransportBase::next_spec(Mode mode, std::size_t bytes, int reps, int window) {
  RunSpec s;
  s.mode = mode;
  s.initiator = ctx_.initiator;
  s.ll = bytes <= ctx_.ll_max_bytes;
  s.bytes = bytes;
  s.reps = static_cast<std::uint32_t>(reps);
  s.window = static_cast<std::uint32_t>(window);
  s.my_parts = s.ll ? 1 : parts_for(bytes, my_max_parts_);
  s.peer_parts = s.ll ? 1 : parts_for(bytes, peer_max_parts_);
  s.run = ++runs_;
  s.timeout_ns = static_cast<std::uint64_t>(ctx_.timeout.count() * 1e9);
  s.base = counters_;
  s.echo = ctx_.echo;
  s.pull = pulls();
  return s;
}

void DeviceTransportBase::fail_late(const std::string& what) const {
  fail(ErrorKind::timeout,
       fmt::format("rank {} ({}): rank {} ({}) did not answer within {:g} s: {}; it may have died or be stuck",
                   ctx_.comm->rank(), side_name(ctx_.my_device), ctx_.peer, side_name(ctx_.peer_device),
                   ctx_.timeout.count(), what));
}

namespace {

// A rank whose buffer is in host memory: a CPU thread runs its side.
class CpuSide final : public DeviceTransportBase {
 public:
  explicit CpuSide(const PairContext& ctx) : DeviceTransportBase(ctx, 1), send_(buffer_location(-1), ctx.max_bytes) {}

  void connect() override {
    connect_hello(Hello{});
    // Facing a GPU, the message lives in shared memory, where the GPU fetches it.
    message_ = pulls() ? shm_.data() + layout_.send_offset : static_cast<unsigned char*>(send_.ptr());
    links_.send = message_;
    links_.in = box_at(shm_.data(), layout_, my_box());
    links_.out = box_at(shm_.data(), layout_, 1 - my_box());
    links_.recv_ll = links_.in.data;
  }

  void prepare(std::size_t bytes, std::uint64_t seed) override {
    shm_.unlink();  // both sides have mapped it by now (the runner checked connect)
    fill_pattern_host(message_, bytes, seed);
    std::memset(links_.in.data, kFiller, bytes);
  }

  std::vector<double> run(Mode mode, std::size_t bytes, int reps, int window) override {
    const RunSpec spec = next_spec(mode, bytes, reps, window);
    std::vector<double> times;
    try {
      times = run_host_side(spec, links_);
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::timeout) fail_late(fmt::format("this rank's CPU side {}", e.what()));
      throw;
    }
    commit(spec);
    return times;
  }

  std::vector<unsigned char> received(std::size_t bytes) override {
    const unsigned char* p = links_.in.data;
    return std::vector<unsigned char>(p, p + bytes);
  }

  std::string describe() const override {
    const char* large = pulls() ? "a flag, and the GPU rank's kernel fetches the message from this rank's shared "
                                  "memory and stores its own there"
                                : "a copy and a release flag";
    return fmt::format("a CPU thread stores into the peer's mailbox in shared memory (LL words up to {} B, above "
                       "that {})",
                       ctx_.ll_max_bytes, large);
  }

 private:
  Buffer send_;
  unsigned char* message_ = nullptr;  // send_, or the send area of shared memory (pulls())
  Links links_{};
};

}  // namespace

std::unique_ptr<Transport> make_device_transport(const PairContext& ctx) {
  if (ctx.my_device >= 0) return make_device_gpu_side(ctx);
  return std::make_unique<CpuSide>(ctx);
}

}  // namespace xb::pingpong
