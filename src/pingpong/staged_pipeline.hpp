// The pipelined staged path: a message is split into chunks that travel
// through pinned host buffers, so the GPU -> host copy of one chunk, the
// crossing of the previous one and the host -> GPU copy of the one before
// overlap. Plain C++ over two interfaces: a ChunkLink that moves chunks
// between the ranks, and a Stager that starts and polls the asynchronous
// GPU copies (CUDA streams and events, or a fake in tests). A rank whose
// buffer is in host memory has no stager: its chunks go straight from and
// into its buffer, in the same number of messages.
//
// Two links: MPI messages between a ring of pinned slots on each side (any
// two ranks; the MPI's own host copy is in the path), or one ring that both
// processes map (two GPU ranks on one host): the sender's GPU -> host copy
// lands where the receiver's host -> GPU copy reads, and only flags in that
// memory cross, so no host copy is in the path.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "comm/communicator.hpp"

namespace xb::pingpong {

class Stager {
 public:
  virtual ~Stager() = default;
  // Start an asynchronous copy; the ticket is for done().
  virtual std::uint64_t to_host(void* dst, const void* src, std::size_t bytes) = 0;
  virtual std::uint64_t to_device(void* dst, const void* src, std::size_t bytes) = 0;
  virtual bool done(std::uint64_t ticket) = 0;
};

struct PipelineShape {
  std::size_t chunk = 4 << 20;  // bytes per chunk
  int slots = 4;                // pinned chunk buffers per direction
};

// Chunks one staged message of `bytes` becomes.
std::uint64_t chunks_per_message(std::size_t bytes, std::size_t chunk);

// How chunk n of an exchange's outgoing and incoming streams crosses.
class ChunkLink {
 public:
  virtual ~ChunkLink() = default;
  // The pinned slot outgoing chunk n is staged into (GPU side), and the one
  // incoming chunk n is read from.
  virtual unsigned char* out_slot(std::uint64_t n) = 0;
  virtual unsigned char* in_slot(std::uint64_t n) = 0;
  // Hands outgoing chunk n (its bytes at `from`) over; sent(n): `from` may
  // be reused.
  virtual void send(std::uint64_t n, const unsigned char* from, std::size_t bytes) = 0;
  virtual bool sent(std::uint64_t n) = 0;
  // Asks for incoming chunk n (into `into`: its slot, or the destination of
  // a host side); received(n): it is there; release(n): done with it.
  virtual void receive(std::uint64_t n, unsigned char* into, std::size_t bytes) = 0;
  virtual bool received(std::uint64_t n) = 0;
  virtual void release(std::uint64_t) {}
  // After an exchange that sent and received these many chunks.
  virtual void finish(std::uint64_t /*sent*/, std::uint64_t /*received*/) {}
  // Nothing moved for the timeout: cancels what is pending, throws Error(timeout).
  [[noreturn]] virtual void give_up() = 0;
};

// Over MPI (any communicator): slot n % slots of a pinned ring per
// direction, one message per chunk.
class MpiChunkLink final : public ChunkLink {
 public:
  MpiChunkLink(comm::Communicator& comm, int peer, int tag, comm::Seconds timeout, PipelineShape shape,
               unsigned char* out_ring, unsigned char* in_ring);
  unsigned char* out_slot(std::uint64_t n) override { return out_ring_ + slot(n) * shape_.chunk; }
  unsigned char* in_slot(std::uint64_t n) override { return in_ring_ + slot(n) * shape_.chunk; }
  void send(std::uint64_t n, const unsigned char* from, std::size_t bytes) override;
  bool sent(std::uint64_t n) override { return comm_.test(sends_[slot(n)]); }
  void receive(std::uint64_t n, unsigned char* into, std::size_t bytes) override;
  bool received(std::uint64_t n) override { return comm_.test(receives_[slot(n)]); }
  [[noreturn]] void give_up() override;

 private:
  std::size_t slot(std::uint64_t n) const { return static_cast<std::size_t>(n % static_cast<std::uint64_t>(shape_.slots)); }
  comm::Communicator& comm_;
  int peer_, tag_;
  comm::Seconds timeout_;
  PipelineShape shape_;
  unsigned char* out_ring_;
  unsigned char* in_ring_;
  std::vector<comm::Request> sends_, receives_;
};

// Over memory both ranks map: two rings (one per direction) and, per slot,
// the sequence number of the last chunk put there (`full`) and of the last
// one the receiver is done with (`free`). Sequence numbers run on across
// exchanges and runs, so a stale flag never looks new.
class SharedRing {
 public:
  struct Flags {
    alignas(64) std::atomic<std::uint64_t> full{0};
    alignas(64) std::atomic<std::uint64_t> free{0};
  };
  static_assert(std::atomic<std::uint64_t>::is_always_lock_free, "flags shared between processes must be lock-free");
  // Bytes of the region for `shape`.
  static std::size_t bytes(const PipelineShape& shape);
  // `base`: the zero-filled region (aligned to 64 bytes) as this process
  // maps it; `direction`: 0 on the initiator, 1 on the responder.
  SharedRing(unsigned char* base, PipelineShape shape, int direction);
  Flags& flags(int direction, std::size_t slot) const;
  unsigned char* data(int direction, std::size_t slot) const;
  int out() const { return out_; }
  int in() const { return 1 - out_; }
  const PipelineShape& shape() const { return shape_; }

 private:
  unsigned char* base_;
  PipelineShape shape_;
  int out_;
};

class SharedChunkLink final : public ChunkLink {
 public:
  // `what` names the peer and the region for timeout messages.
  SharedChunkLink(SharedRing ring, comm::Seconds timeout, std::string what);
  unsigned char* out_slot(std::uint64_t n) override { return ring_.data(ring_.out(), slot(out_base_ + n)); }
  unsigned char* in_slot(std::uint64_t n) override { return ring_.data(ring_.in(), slot(in_base_ + n)); }
  void send(std::uint64_t n, const unsigned char* from, std::size_t bytes) override;
  bool sent(std::uint64_t n) override;
  void receive(std::uint64_t, unsigned char*, std::size_t) override {}
  bool received(std::uint64_t n) override;
  void release(std::uint64_t n) override;
  void finish(std::uint64_t sent, std::uint64_t received) override;
  [[noreturn]] void give_up() override;

 private:
  std::size_t slot(std::uint64_t seq) const { return static_cast<std::size_t>(seq % static_cast<std::uint64_t>(ring_.shape().slots)); }
  SharedRing ring_;
  comm::Seconds timeout_;
  std::string what_;
  std::uint64_t out_base_ = 0, in_base_ = 0;  // chunks of earlier exchanges, per direction
};

class StagedPipeline {
 public:
  StagedPipeline(ChunkLink& link, PipelineShape shape, Stager* stager, comm::Seconds timeout);

  // Sends `sends` messages of `bytes` from `src` and receives `receives`
  // into `dst`, both at once; returns when every chunk has been sent and has
  // landed in `dst`. Error(timeout) (ChunkLink::give_up) when nothing moves
  // for the timeout.
  void exchange(const unsigned char* src, int sends, unsigned char* dst, int receives, std::size_t bytes);

 private:
  struct Side {
    std::uint64_t total = 0;
    std::uint64_t a = 0, b = 0, c = 0;  // chunks past each of the three stages, in order
    std::vector<std::uint64_t> tickets;
  };
  bool step_send(Side& s, const unsigned char* src, std::size_t bytes);
  bool step_receive(Side& s, unsigned char* dst, std::size_t bytes);

  ChunkLink& link_;
  PipelineShape shape_;
  Stager* stager_;
  comm::Seconds timeout_;
};

}  // namespace xb::pingpong
