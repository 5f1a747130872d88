// Base of the transports that queue a whole run on one CUDA stream up front
// (ipc, nccl): the device send and receive buffers, the stream, the event
// timeline and the run loop live here; a transport queues one repetition of
// each mode and says how to wait for the queued run.
#pragma once

#include <cstdint>
#include <vector>

#include "machine/cuda_raii.hpp"
#include "pingpong/transport.hpp"

namespace xb::pingpong {

class QueuedTransport : public Transport {
 public:
  // Pattern into send_, filler into recv_, then a device sync: the peer may
  // write into recv_ as soon as the runner's pair sync ends.
  void prepare(std::size_t bytes, std::uint64_t seed) override;
  // Queues `reps` repetitions of `mode` with an event between each, waits
  // (finish()), and returns each repetition's seconds.
  std::vector<double> run(Mode mode, std::size_t bytes, int reps, int window) final;
  std::vector<unsigned char> received(std::size_t bytes) override;

 protected:
  // Error(usage) naming the transport unless both ranks have GPU buffers.
  QueuedTransport(const PairContext& ctx, const char* name);

  virtual void enqueue_round_trip(std::size_t bytes) = 0;
  virtual void enqueue_window(std::size_t bytes, int window) = 0;
  virtual void enqueue_window_both(std::size_t bytes, int window) = 0;
  // Returns once the queued run is done; throws Error naming the peer when
  // it does not finish in time or the transport reports a failure.
  virtual void finish() = 0;

  PairContext ctx_;
  Stream stream_;
  Buffer send_, recv_;

 private:
  std::vector<Event> timeline_;  // recorded between the repetitions, created as needed
};

}  // namespace xb::pingpong
