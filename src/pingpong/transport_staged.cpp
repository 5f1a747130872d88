// The staged transport: GPU buffers over an MPI that is not CUDA-aware.
// Messages up to one chunk go GPU -> pinned host -> MPI -> pinned host ->
// GPU; larger ones are pipelined (staged_pipeline.hpp) through a ring of
// pinned chunk buffers per direction, with the GPU -> host and host -> GPU
// copies on their own streams so both overlap the MPI transfer. Two GPU
// ranks on one host share one pinned ring instead, so no host copy sits
// between the two GPU copies. Every copy is inside the timed region: that
// is the cost a user of such an MPI pays.
#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

#include "machine/cuda_check.hpp"
#include "machine/cuda_raii.hpp"
#include "pingpong/cycle_clock.hpp"
#include "pingpong/shm.hpp"
#include "pingpong/staged_pipeline.hpp"
#include "pingpong/transport.hpp"

namespace xb::pingpong {
namespace {

constexpr int kSlots = 4;

// Copies on two streams (one per direction), each followed by an event;
// tickets index a ring of events larger than the copies that can be
// outstanding (kSlots per direction).
class CudaStager final : public Stager {
 public:
  explicit CudaStager(int device) : to_host_(device), to_device_(device) {
    for (int i = 0; i < 4 * kSlots; ++i) events_.emplace_back(device, cudaEventDisableTiming);
  }

  std::uint64_t to_host(void* dst, const void* src, std::size_t bytes) override {
    return copy(dst, src, bytes, cudaMemcpyDeviceToHost, to_host_.get());
  }
  std::uint64_t to_device(void* dst, const void* src, std::size_t bytes) override {
    return copy(dst, src, bytes, cudaMemcpyHostToDevice, to_device_.get());
  }
  bool done(std::uint64_t ticket) override {
    const cudaError_t st = cudaEventQuery(events_[ticket % events_.size()].get());
    if (st == cudaErrorNotReady) return false;
    XB_CUDA_CHECK(st);
    return true;
  }

 private:
  std::uint64_t copy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, cudaStream_t s) {
    const std::uint64_t ticket = next_++;
    XB_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, s));
    XB_CUDA_CHECK(cudaEventRecord(events_[ticket % events_.size()].get(), s));
    return ticket;
  }

  Stream to_host_, to_device_;
  std::vector<Event> events_;
  std::uint64_t next_ = 0;
};

class StagedTransport final : public Transport {
 public:
  explicit StagedTransport(const PairContext& ctx) : ctx_(ctx) {
    // A chunk larger than the largest message only wastes pinned memory;
    // both sides clamp alike, and the chunk count per message is unchanged.
    shape_.chunk = std::max<std::size_t>(1, std::min<std::size_t>(ctx.stage_chunk_bytes, ctx.max_bytes));
    shape_.slots = kSlots;
    send_ = Buffer(buffer_location(ctx.my_device), ctx.max_bytes);
    recv_ = Buffer(buffer_location(ctx.my_device), ctx.max_bytes);
    if (ctx.my_device >= 0) stager_ = std::make_unique<CudaStager>(ctx.my_device);
  }

  ~StagedTransport() override {
    if (registered_) XB_CUDA_CHECK_NOTHROW(cudaHostUnregister(shm_.data()));
  }

  // Two GPU ranks on one host share one ring (the initiator creates it, if
  // /dev/shm has room, and names it); any other pair sends its chunks over
  // MPI between pinned rings of its own.
  void connect() override {
    char name[64] = {};
    const std::size_t ring = SharedRing::bytes(shape_);
    if (ctx_.initiator) {
      if (ctx_.my_device >= 0 && ctx_.peer_device >= 0 && ctx_.same_host && shm_free_bytes() >= ring) {
        shm_ = SharedSegment::create(ring);
        std::snprintf(name, sizeof name, "%s", shm_.name().c_str());
      }
      ctx_.comm->send(ctx_.peer, kTagConnect, name, sizeof name, ctx_.timeout);
    } else {
      ctx_.comm->recv(ctx_.peer, kTagConnect, name, sizeof name, ctx_.timeout);
      if (name[0] != 0) shm_ = SharedSegment::open(name, ring);
    }
    if (name[0] != 0) {
      XB_CUDA_CHECK(cudaSetDevice(ctx_.my_device));
      XB_CUDA_CHECK(cudaHostRegister(shm_.data(), shm_.size(), cudaHostRegisterPortable));
      registered_ = true;
      link_ = std::make_unique<SharedChunkLink>(SharedRing(shm_.data(), shape_, ctx_.initiator ? 0 : 1), ctx_.timeout,
                                                fmt::format("rank {}", ctx_.peer));
      return;
    }
    if (stager_) {
      // Page-locked (cudaHostAlloc), so the chunk copies run asynchronously.
      const Location pinned = host_memory(MemKind::mapped, kNoNumaPlacement);
      out_ring_ = Buffer(pinned, kSlots * shape_.chunk);
      in_ring_ = Buffer(pinned, kSlots * shape_.chunk);
    }
    link_ = std::make_unique<MpiChunkLink>(*ctx_.comm, ctx_.peer, kTagData, ctx_.timeout, shape_,
                                           static_cast<unsigned char*>(out_ring_.ptr()),
                                           static_cast<unsigned char*>(in_ring_.ptr()));
  }

  void prepare(std::size_t bytes, std::uint64_t seed) override {
    shm_.unlink();  // both sides have mapped it by now (the runner checked connect)
    load_pattern(send_, recv_, bytes, seed);
    if (stager_) XB_CUDA_CHECK(cudaDeviceSynchronize());
  }

  std::vector<double> run(Mode mode, std::size_t bytes, int reps, int window) override {
    StagedPipeline pipe(*link_, shape_, stager_.get(), ctx_.timeout);
    auto* send = static_cast<const unsigned char*>(send_.ptr());
    auto* recv = static_cast<unsigned char*>(recv_.ptr());
    return time_reps(reps, [&] {
      switch (mode) {
        case Mode::pingpong: round_trip(pipe, send, recv, bytes); break;
        case Mode::bw: window_one_way(pipe, send, recv, bytes, window); break;
        case Mode::bibw: pipe.exchange(send, window, recv, window, bytes); break;
      }
    });
  }

  std::vector<unsigned char> received(std::size_t bytes) override { return host_copy(recv_, bytes); }

  std::string describe() const override {
    if (!stager_) return fmt::format("this host-buffer side sends and receives the chunks of {} B directly", shape_.chunk);
    if (registered_)
      return fmt::format("pipelined through {} chunks of {} B per direction in a pinned ring both ranks map (one "
                         "host): the GPU -> host copy lands where the peer's host -> GPU copy reads",
                         kSlots, shape_.chunk);
    return fmt::format("pipelined through {} pinned chunks of {} B per direction; GPU copies overlap MPI", kSlots,
                       shape_.chunk);
  }

 private:
  // The responder answers from its send buffer, or with --buffers echo
  // from the buffer it has just received into (transport.hpp).
  void round_trip(StagedPipeline& pipe, const unsigned char* send, unsigned char* recv, std::size_t bytes) {
    if (ctx_.initiator) {
      pipe.exchange(send, 1, nullptr, 0, bytes);
      pipe.exchange(nullptr, 0, recv, 1, bytes);
    } else {
      pipe.exchange(nullptr, 0, recv, 1, bytes);
      pipe.exchange(ctx_.echo ? recv : send, 1, nullptr, 0, bytes);
    }
  }

  // osu_bw: a window of messages, then a small acknowledgement.
  void window_one_way(StagedPipeline& pipe, const unsigned char* send, unsigned char* recv, std::size_t bytes,
                      int window) {
    if (ctx_.initiator) {
      pipe.exchange(send, window, nullptr, 0, bytes);
      ctx_.comm->recv(ctx_.peer, kTagAck, &ack_, sizeof ack_, ctx_.timeout);
    } else {
      pipe.exchange(nullptr, 0, recv, window, bytes);
      ctx_.comm->send(ctx_.peer, kTagAck, &ack_, sizeof ack_, ctx_.timeout);
    }
  }

  PairContext ctx_;
  PipelineShape shape_;
  Buffer send_, recv_, out_ring_, in_ring_;
  std::unique_ptr<CudaStager> stager_;
  SharedSegment shm_;
  bool registered_ = false;
  std::unique_ptr<ChunkLink> link_;
  std::uint32_t ack_ = 0;
};

}  // namespace

std::unique_ptr<Transport> make_staged_transport(const PairContext& ctx) {
  return std::make_unique<StagedTransport>(ctx);
}

}  // namespace xb::pingpong
