// Waiting that leaves the core to others. A process that may wait minutes
// (for its node's measuring process, or for another node's result) waits
// through Communicator::wait_for: over MPI that tests its requests with
// growing sleeps in between instead of spinning in MPI's progress loop
// (about 50 polls a second once the wait is long, so a waiting process
// costs well under 1% of a core, and a message that is already there is
// taken at once); the in-process communicator blocks on a condition.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

#include "comm/communicator.hpp"

namespace xb::comm {

using Clock = std::chrono::steady_clock;

struct IdleWait {
  Clock::time_point deadline;         // then the wait ends with Error(timeout)
  Seconds max_sleep{0.02};            // longest pause between two polls
  std::string what;                   // what is awaited, for the timeout message
  // Called about once a second while waiting; may throw to abandon the wait
  // (say, the process that should answer has died).
  std::function<void()> check;
};

// Returns when every request has completed. At the deadline, or when
// `check` throws, cancels the pending requests (Communicator::cancel) and
// throws: Error(timeout) "no answer from rank N (WHAT) within S s", or what
// `check` threw.
void idle_wait(Communicator& comm, Request* requests, std::size_t count, const IdleWait& how);

// A blocking, deadline-bound receive of a string sent with send_string(),
// waiting idly for its first part (the length), then taking the payload.
std::string idle_recv_string(Communicator& comm, int peer, int tag, const IdleWait& how);

// send_string() without spinning while the receiver is busy: large
// messages wait for the receiver (rendezvous), which may take minutes.
void idle_send_string(Communicator& comm, int peer, int tag, const std::string& text, const IdleWait& how);

}  // namespace xb::comm
