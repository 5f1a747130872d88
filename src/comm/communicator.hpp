// A small multi-process runtime interface: ranks, point-to-point bytes with
// tags, barrier and allgather. Every wait takes a timeout, so a dead or
// stuck peer becomes Error(timeout) naming the rank instead of a hang.
// Implementations: MPI (mpi_comm.cpp, the only file that includes <mpi.h>)
// and in-process threads (inproc_comm.hpp) for unit tests of multi-rank logic.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "base/stop.hpp"

namespace xb::comm {

using Seconds = std::chrono::duration<double>;

// Whether device pointers may be handed to send/recv.
enum class GpuBuffers { no, yes, unknown };

// Opaque, trivially copyable handle of a pending isend/irecv. The storage is
// large enough for an MPI_Request of any implementation (pointer or int), so
// the measurement loop pays no allocation or lookup per message.
struct Request {
  alignas(8) std::array<unsigned char, 16> storage{};
  int peer = -1;  // kept for timeout messages
  int tag = -1;
  bool active = false;
};

// Tags at or above this value are reserved for collectives built on
// point-to-point messages (barrier, allgather).
constexpr int kReservedTagBase = 1 << 20;

class Communicator {
 public:
  virtual ~Communicator() = default;
  Communicator() = default;
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual int local_rank() const = 0;  // index among the ranks on this host
  virtual int local_size() const = 0;
  virtual std::string host_name() const = 0;
  virtual GpuBuffers gpu_buffers() const { return GpuBuffers::no; }
  virtual std::string name() const = 0;  // "mpi", "inproc"

  virtual Request isend(int peer, int tag, const void* data, std::size_t bytes) = 0;
  virtual Request irecv(int peer, int tag, void* data, std::size_t bytes) = 0;
  // Completes every active request; throws Error(timeout) naming the peer of
  // the first request still pending when `timeout` has passed.
  virtual void wait_all(Request* requests, std::size_t count, Seconds timeout) = 0;
  // A peer stopped answering (a timeout found outside this communicator,
  // say in a GPU kernel): shutting down must not wait for it, as
  // MPI_Finalize would. The default has nothing to skip.
  virtual void mark_peer_lost() {}

  // Blocking send/receive with a deadline. The default posts a request and
  // waits on it; an implementation may use a faster blocking path as long as
  // a peer that never answers still ends the process within the timeout.
  virtual void send(int peer, int tag, const void* data, std::size_t bytes, Seconds timeout);
  virtual void recv(int peer, int tag, void* data, std::size_t bytes, Seconds timeout);
  void send_string(int peer, int tag, const std::string& text, Seconds timeout);
  std::string recv_string(int peer, int tag, Seconds timeout);

  // Node-local view, for electing one process per node (src/fleet): the
  // world ranks on this node, ascending, as the launcher placed them (MPI:
  // MPI_Comm_split_type SHARED; in-process: ranks with the same host name).
  virtual std::vector<int> node_ranks() const;
  // Completes `request` if it is done, without waiting: true when done.
  virtual bool test(Request& request);
  // Waits up to `at_most` for every request to complete, without using a
  // core meanwhile: true when all are done; false with the rest still
  // pending (and still valid). The default polls test() with growing
  // sleeps (at most `max_sleep` apart); the in-process communicator blocks.
  virtual bool wait_for(Request* requests, std::size_t count, Seconds at_most, Seconds max_sleep);
  // Abandons a pending request whose peer may be dead: a late message can no
  // longer land in the caller's buffer, and the process then skips waiting
  // for the others at exit (MPI_Finalize).
  virtual void cancel(Request& request);

  // Collectives built on point-to-point messages (gather to rank 0, then
  // broadcast) so they honour the same timeout as everything else.
  void barrier(Seconds timeout);
  std::vector<std::string> allgather(const std::string& mine, Seconds timeout);

 private:
  int next_collective_tag();
  int collective_seq_ = 0;
};

// The message of a timeout, e.g. "rank 1 did not answer within 30 s
// (rank 0 waiting for tag 7)". Shared so every implementation says the same.
std::string timeout_message(int self, int peer, int tag, Seconds timeout);

// Status agreement, collective: every rank contributes its error (or none)
// and every rank learns the same outcome, so all ranks exit with the same
// status. The error is that of the lowest rank with a non-timeout error,
// else of the lowest failing rank (a timeout is usually the consequence of
// another rank's failure, not its cause), its message prefixed with that
// rank ("rank 1: ..."); nullopt when no rank failed.
std::optional<Error> agree(Communicator& comm, const Error* local_error, Seconds timeout);
// Collective: agree(), then throw the agreed error on every rank if any.
void agree_or_throw(Communicator& comm, const Error* local_error, Seconds timeout);

// An error as ranks send it to each other ("" for none), and back, with
// `prefix` before its message ("rank 1: ").
std::string error_to_wire(const Error* error);
std::optional<Error> error_from_wire(const std::string& text, const std::string& prefix);

// What `step` threw as an Error; nullopt when it returned.
template <typename Step>
std::optional<Error> error_of(Step&& step) {
  try {
    step();
  } catch (const Error& e) {
    return e;
  }
  return std::nullopt;
}

// Collective: runs `step` on this rank, then agree_or_throw() on how it
// went, so a failure on one rank ends every rank with the same error
// instead of leaving a peer waiting for a message that never comes.
template <typename Step>
void agreed_step(Communicator& comm, Seconds timeout, Step&& step) {
  const std::optional<Error> err = error_of(step);
  agree_or_throw(comm, err ? &*err : nullptr, timeout);
}

// What one rank brings to the agreement before a step of work (a message
// size, an iteration): its stop request, a decision to skip the step, an
// injected data-check failure, an error. Every rank then acts on the same
// combined vote, so none waits for a peer that stopped, skipped or failed.
struct Vote {
  StopReason stop = StopReason::none;
  bool skip = false;
  bool fail_check = false;
  std::optional<Error> error;
};
// The stop two sides act on: `first`'s, unless it has none or `second`
// has a signal where `first` has another reason (a signal outranks them).
StopReason first_stop(StopReason first, StopReason second);
// `first`'s word first: its error before `second`'s, the stop first_stop() picks.
Vote combine(const Vote& first, const Vote& second);
std::string vote_to_wire(const Vote& vote);
// The error's message gets `prefix` (error_from_wire).
Vote vote_from_wire(const std::string& text, const std::string& prefix);
// Collective: every rank's vote combined in rank order (rank 0's word first).
Vote agree_votes(Communicator& comm, const Vote& mine, Seconds timeout);

}  // namespace xb::comm
