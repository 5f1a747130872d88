// One rank's end of a first-touch path. Unlike a pingpong transport, which
// allocates its buffers once and reuses them, a path allocates a fresh
// buffer per iteration and times each phase of the first send from it
// (allocation, IPC export and open, the copy) on the rank that does it.
// The runner (runner.cpp) drives sender and receiver the same way for
// every path: allocate, transfer per sub-iteration, unmap, free.
#pragma once

#include <cstdint>
#include <memory>

#include "comm/communicator.hpp"
#include "firsttouch/result.hpp"
#include "memory/memory.hpp"
#include "pingpong/options.hpp"

namespace xb::firsttouch {

// Message tags between sender and receiver (collectives use reserved tags).
enum Tag : int { kTagData = 101, kTagHandle = 102, kTagAck = 103, kTagConnect = 104 };

struct PathContext {
  comm::Communicator* comm = nullptr;
  int peer = -1;
  bool sender = false;
  int device = -1;  // -1: host buffers
  std::uint64_t p2p_bytes = 0;
  comm::Seconds timeout{60};
};

class Path {
 public:
  explicit Path(const PathContext& ctx) : ctx_(ctx) {}
  virtual ~Path() = default;
  // One-time setup with the peer (the NCCL communicator).
  virtual void connect() {}
  // Frees the previous buffer, allocates a fresh one of `bytes` (on the
  // GPU, or pageable host memory) and returns the seconds the allocation
  // took. The buffer is not written: a fill would be a first touch of its
  // own, and the seed does not fill either; host pages are left to the
  // first send to fault in, as that is part of its cost.
  virtual double allocate(std::uint64_t bytes);
  // Sub-iteration `sub`: the sender sends the first `bytes` of its buffer,
  // the receiver lands them in its own; each records the phases it does.
  virtual void transfer(std::size_t bytes, int sub, Phases& phases) = 0;
  // Drops what refers to the peer's buffer (an IPC mapping) before the
  // peer frees it.
  virtual void unmap() {}
  void free_buffer() { buf_ = Buffer(); }

 protected:
  PathContext ctx_;
  Buffer buf_;  // this iteration's fresh buffer
};

// mpi, staged, ipc or nccl (already chosen: not automatic).
std::unique_ptr<Path> make_path(pingpong::TransportKind kind, const PathContext& ctx);
std::unique_ptr<Path> make_mpi_path(const PathContext& ctx, bool staging);
std::unique_ptr<Path> make_ipc_path(const PathContext& ctx);
std::unique_ptr<Path> make_nccl_path(const PathContext& ctx);

}  // namespace xb::firsttouch
