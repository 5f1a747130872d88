// How a loaded-latency sample keeps its load running for the whole chase
// (latency.hpp, measure_loaded_latency). Plain C++ over an interface: the
// GPU side queues copy-engine copies and the chase on CUDA streams; tests
// drive the same policy with a simulated device.
//
// The policy: queue `ahead` copies on every load stream, queue the chase
// behind the first copy of each, then keep `ahead` copies in flight on
// every stream until the chase has stopped. The load therefore covers the
// chase however long the chase takes under it, and the host never queues
// thousands of copies up front: copies queued before the chase can delay
// its start (a copy within one GPU's memory may run as a kernel that holds
// the SMs), so the fewer there are, the sooner it starts.
#pragma once

#include <cstddef>

namespace xb {

class LoadDriver {
 public:
  virtual ~LoadDriver() = default;
  virtual std::size_t loads() const = 0;
  // Forgets the previous sample's copies.
  virtual void begin_sample() = 0;
  // One more copy on load `load`'s stream, with an event after it.
  virtual void queue_copy(std::size_t load) = 0;
  virtual std::size_t queued(std::size_t load) const = 0;
  // Of the copies queued this sample on `load`, how many have ended.
  virtual std::size_t ended(std::size_t load) = 0;
  // The chase, queued behind the first copy of every load.
  virtual void start_chase() = 0;
  virtual bool chase_done() = 0;
  // Blocks until every queued copy has ended.
  virtual void finish_copies() = 0;
  // Whether every load's first copy ended before the chase started and its
  // last one after the chase stopped.
  virtual bool covered() = 0;
  // Seconds since begin_sample(), and a short wait between polls.
  virtual double elapsed_s() = 0;
  virtual void pause() = 0;
};

// One sample under the policy above. True when the load covered the chase;
// Error(timeout) when the chase has not stopped after `limit_s`. Polls
// throw_if_stopped() (base/stop.hpp) while it waits.
bool feed_loaded_sample(LoadDriver& d, std::size_t ahead, double limit_s);

}  // namespace xb
