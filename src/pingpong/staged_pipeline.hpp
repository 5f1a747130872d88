// The pipelined staged path: a message is split into chunks that travel
// through a ring of pinned host buffers, so the GPU -> host copy of one
// chunk, the MPI transfer of the previous one and the host -> GPU copy of
// the one before overlap. Plain C++ over two interfaces: the communicator
// (MPI, or threads in tests) and a Stager that starts and polls the
// asynchronous GPU copies (CUDA streams and events, or a fake in tests).
// A rank whose buffer is in host memory has no stager: its chunks go
// straight from and into its buffer, in the same number of MPI messages.
#pragma once

#include <cstddef>
#include <cstdint>
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
  std::size_t chunk = 4 << 20;  // bytes per MPI message
  int slots = 4;                // pinned chunk buffers per direction
};

// MPI messages one staged message of `bytes` becomes.
std::uint64_t chunks_per_message(std::size_t bytes, std::size_t chunk);

class StagedPipeline {
 public:
  // `out_ring` and `in_ring` hold shape.slots chunks each (pinned memory)
  // and are used only with a stager; without one they may be null.
  StagedPipeline(comm::Communicator& comm, int peer, int tag, comm::Seconds timeout, PipelineShape shape,
                 Stager* stager, unsigned char* out_ring, unsigned char* in_ring);

  // Sends `sends` messages of `bytes` from `src` and receives `receives`
  // into `dst`, both at once; returns when every chunk has been sent and has
  // landed in `dst`. Error(timeout) naming the peer when nothing moves for
  // the timeout.
  void exchange(const unsigned char* src, int sends, unsigned char* dst, int receives, std::size_t bytes);

 private:
  struct Side {
    std::uint64_t total = 0;
    std::uint64_t a = 0, b = 0, c = 0;  // chunks past each of the three stages, in order
    std::vector<std::uint64_t> tickets;
    std::vector<comm::Request> requests;
  };
  bool step_send(Side& s, const unsigned char* src, std::size_t bytes);
  bool step_receive(Side& s, unsigned char* dst, std::size_t bytes);
  [[noreturn]] void give_up(Side& out, Side& in);

  comm::Communicator& comm_;
  int peer_, tag_;
  comm::Seconds timeout_;
  PipelineShape shape_;
  Stager* stager_;
  unsigned char* out_ring_;
  unsigned char* in_ring_;
};

}  // namespace xb::pingpong
