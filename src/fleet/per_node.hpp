// One launch, many nodes: when mpirun or srun starts several processes,
// one process per node measures that node, exactly as a single-process run
// would, the other processes of the node wait without touching any GPU,
// and world rank 0 gathers one record per node. Any command whose work is
// "measure this node, return its result document" can use it (run, sweep;
// check's multi-node mode):
//
//   fleet::Session session(comm, options);          // collective: election
//   if (session.stop()) ...                         // rank 0's pre-check failed: every rank got the same Error
//   std::vector<fleet::NodeRecord> nodes =
//       session.gather([&] { return measure_this_node(); });  // collective
//   int code = 0;
//   if (comm.rank() == 0) code = report(nodes);     // only rank 0 prints and writes
//   return session.finish(code);                    // collective: every rank returns rank 0's code
//
// gather() runs the function on each node's leader (the lowest world rank
// of the node, from Communicator::node_ranks()) and returns, on rank 0, one
// NodeRecord per node in node order (node 0 is rank 0's); other ranks get an
// empty vector. The function's xb::Error or std::exception becomes that
// node's error record; the other nodes are kept. With a single node, a
// caller may skip gather() and run its ordinary single-process path on
// rank 0 (which is that node's leader), then finish().
//
// Waiting never spins a core: see comm/idle_wait.hpp. A waiting process
// watches the process it waits for when that one is on its own node (its
// pid, Options::process_alive): if the node's measuring process dies, the
// node's second process (the deputy) reports the death to rank 0 as the
// node's error record. What no process can watch (a silent remote node) is
// bounded by Options::timeout: rank 0 records a node that has not reported
// `timeout` after the election as an error; a process that hears nothing
// from rank 0 for 2 x timeout + 60 s gives up with Error(timeout).
//
// Messages use tags kTagBase..kTagBase+5, below the collectives' range.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "comm/communicator.hpp"
#include "comm/idle_wait.hpp"
#include "base/error.hpp"
#include "fleet/node_result.hpp"

namespace xb::fleet {

constexpr int kTagBase = comm::kReservedTagBase - 64;

// What a node's measuring function returns: the node's result document
// (fleet/node_json.hpp's node_document of what its command's codec wrote)
// and the exit code a single-process run on that node would end with.
struct NodeOutcome {
  NodeDocument document;
  int exit_code = 0;
};
using MeasureNode = std::function<NodeOutcome()>;

// Whether process `pid` (world rank `rank`, on this node) is still running.
using ProcessAlive = std::function<bool(int rank, long pid)>;
bool pid_alive(int rank, long pid);

struct Options {
  comm::Seconds timeout{3600};          // the longest a node's measurement may take
  comm::Seconds startup_timeout{120};   // the election's messages
  // Runs on rank 0 after the election, before anything is measured; an
  // xb::Error it throws stops every rank (Session::stop()).
  std::function<void()> before_measuring;
  ProcessAlive process_alive = pid_alive;
};

class Session {
 public:
  // Collective: every rank says which node it is on; rank 0 runs
  // before_measuring and tells every rank the node count and the outcome.
  Session(comm::Communicator& comm, Options options);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  std::size_t node_count() const { return node_count_; }
  bool single_node() const { return node_count_ == 1; }
  bool measures() const { return leader_ == comm_.rank(); }  // this rank measures its node
  bool deputy() const;                                         // the node's second rank, if any
  const std::vector<Node>& nodes() const { return nodes_; }    // all nodes on rank 0; empty elsewhere
  const std::optional<Error>& stop() const { return stop_; }   // rank 0's before_measuring failed

  // Collective; see the file comment.
  std::vector<NodeRecord> gather(const MeasureNode& measure);
  // Collective: rank 0 sends `code` to every rank; every rank returns it.
  // Other ranks ignore their argument.
  int finish(int code);

 private:
  NodeRecord measure_here(const MeasureNode& measure) const;
  void send_record(const NodeRecord& record);
  void watch_leader();
  NodeRecord receive_node(const Node& node);
  comm::IdleWait wait_for(const std::string& what, comm::Clock::time_point deadline, bool watch) const;

  comm::Communicator& comm_;
  Options options_;
  comm::Clock::time_point start_;
  std::vector<int> my_node_;  // world ranks of this rank's node
  int leader_ = 0;
  long leader_pid_ = 0;
  std::size_t node_count_ = 0;
  std::vector<Node> nodes_;
  std::optional<Error> stop_;
  comm::Request final_request_;
  int final_code_ = 0;
};

// The wire form of a record (without the node, which rank 0 knows):
// fleet/node_json.hpp.

}  // namespace xb::fleet
