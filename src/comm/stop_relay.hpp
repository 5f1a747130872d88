// A signal to one node's measuring process stops every node's work under
// mpirun / srun (docs/interrupts.md): `check` and the fleet `run` / `sweep`
// (docs/fleet.md). The node leaders (local rank 0, the processes that
// measure) tell each other with small non-blocking messages, so no MPI
// thread is needed and nobody waits for a node that is still measuring:
//
//   StopRelay relay(comm, "run");        // collective: every rank
//   leader, between cells and samples:   // (a StopPoll, base/stop.hpp)
//     relay.poll();                      // sends this process's signal once;
//                                        // a signal from another leader
//                                        // becomes this process's stop request
//   leader, after its work: relay.last_word();   // its signal, or "done"
//   every rank, at the end: relay.close(timeout);
//
// close() waits up to `timeout` for the other leaders' last words and
// abandons those that do not come (a dead node, or one still measuring
// when the caller gave up on it), so no receive is left pending at exit.
// Other ranks take part only in the constructor.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "comm/communicator.hpp"
#include "base/stop.hpp"

namespace xb::comm {

class StopRelay {
 public:
  struct Hooks {
    // This process's own signal (one relayed here is not passed on again).
    std::function<StopReason()> local = [] { return stop_relayed() ? StopReason::none : signal_stop(); };
    std::function<void(int signal_number)> request = [](int s) { relay_stop(s); };
  };
  // Collective. `what` names the work in the message a relayed stop prints
  // ("stopping: the check of rank 2 was interrupted by SIGTERM").
  // `every_rank`: every process measures (pingpong --all-pairs), so every
  // rank is a leader, not only each node's first.
  StopRelay(Communicator& comm, std::string what);
  StopRelay(Communicator& comm, std::string what, Hooks hooks, bool every_rank = false);
  StopRelay(const StopRelay&) = delete;
  StopRelay& operator=(const StopRelay&) = delete;
  ~StopRelay();

  bool leader() const noexcept { return leader_; }
  void poll();
  void last_word();
  // Returns how many leaders' words were abandoned.
  std::size_t close(Seconds timeout);
  // The first signal another leader sent here (0: none); acted on (a stop
  // request) only when it came while this node was still measuring.
  int relayed() const noexcept { return relayed_; }

 private:
  void send_word(int word);
  Communicator& comm_;
  std::string what_;
  Hooks hooks_;
  bool leader_ = false;
  bool closed_ = false;
  std::vector<int> peers_;  // the other leaders
  std::vector<int> words_;  // what each sent (valid once received)
  std::vector<Request> recvs_;
  std::vector<bool> heard_;
  int out_word_ = 0;
  std::vector<Request> sends_;
  bool sent_ = false;
  bool working_ = true;  // before last_word(): a word heard is acted on
  std::chrono::steady_clock::time_point last_look_{};
  int relayed_ = 0;
};

}  // namespace xb::comm
