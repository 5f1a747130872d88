// Multi-node check under mpirun / srun, as a thin adapter over the
// communicator: one process per node (local rank 0) checks its node, every
// rank takes part in gathering the nodes' records, and all ranks learn the
// same fleet verdict, so they exit alike. Until the shared fleet mechanism
// (issue 22) lands, this is check's own; its records are what that
// mechanism will gather (a node's "check" section plus its hostname).
#pragma once

#include <functional>
#include <vector>

#include <nlohmann/json.hpp>

#include "comm/communicator.hpp"
#include "core/stop.hpp"

namespace xb::check {

// Runs `node_work` on the first rank of every host and returns, on every
// rank, the records of all nodes in rank order. A node whose work throws
// xb::Error contributes {"hostname", "verdict": "error", "error",
// "exit_code"} instead; other ranks of the job are not disturbed.
std::vector<nlohmann::json> gather_node_records(comm::Communicator& comm,
                                                const std::function<nlohmann::json()>& node_work,
                                                comm::Seconds timeout);

// A signal to one node's check stops every node's (docs/interrupts.md).
// The node leaders (local rank 0, the processes that measure) tell each
// other: between cells a leader calls poll(), which sends this process's
// signal to the other leaders once and turns a signal received from one of
// them into this process's own stop request; after the node's work,
// finish() sends this leader's last word (its signal, or "done") and
// waits for every other leader's, so no message is left pending when the
// records are gathered. Other ranks take part only in the constructor.
class StopRelay {
 public:
  struct Hooks {
    std::function<StopReason()> local = [] { return signal_stop(); };  // this process's signal
    std::function<void(int signal_number)> request = [](int s) { request_stop(s); };
  };
  // Collective: every rank of `comm` constructs one.
  explicit StopRelay(comm::Communicator& comm);
  StopRelay(comm::Communicator& comm, Hooks hooks);
  StopRelay(const StopRelay&) = delete;
  StopRelay& operator=(const StopRelay&) = delete;
  bool leader() const noexcept { return leader_; }
  void poll();
  void finish(comm::Seconds timeout);
  // The first signal another leader sent here (0: none); acted on (a stop
  // request) only when it came while this node was still measuring.
  int relayed() const noexcept { return relayed_; }

 private:
  void send_word(int word);
  comm::Communicator& comm_;
  Hooks hooks_;
  bool leader_ = false;
  std::vector<int> peers_;           // the other leaders
  std::vector<int> words_;           // what each sent (valid once received)
  std::vector<comm::Request> recvs_;
  std::vector<bool> heard_;
  int out_word_ = 0;
  std::vector<comm::Request> sends_;
  bool sent_ = false;
  int relayed_ = 0;
};

// 0 when every node passed, 1 when any failed or could not check itself,
// 130 / 143 when a signal stopped one (its own code), 10 when the time
// limit alone kept some from passing.
int fleet_exit_code(const std::vector<nlohmann::json>& nodes);

}  // namespace xb::check
