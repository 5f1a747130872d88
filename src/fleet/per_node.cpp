#include "fleet/per_node.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>

#include <fmt/format.h>

#include "fleet/node_json.hpp"

namespace xb::fleet {
namespace {

using comm::Clock;

enum Tag : int {
  kTagHello = kTagBase,    // every rank -> 0: host, leader, pid
  kTagDecision,            // 0 -> every rank: node count, leader's pid, stop
  kTagRecord,              // leader -> 0: the node's record
  kTagDone,                // leader -> deputy: the record is posted
  kTagVerdict,             // deputy -> 0: the leader finished, or died
  kTagFinal,               // 0 -> every rank: the exit code
};

// Once the first part of a message has come, the rest follows at once.
constexpr comm::Seconds kGrace{60};
// Polling interval while a large message waits for its receiver: short,
// because the transfer itself needs both sides to poll.
constexpr comm::Seconds kSendPoll{0.002};

Clock::time_point after(Clock::time_point t, comm::Seconds s) {
  return t + std::chrono::duration_cast<Clock::duration>(s);
}

std::vector<Node> build_nodes(const std::vector<Hello>& hellos) {
  std::map<int, Node> by_leader;
  for (std::size_t r = 0; r < hellos.size(); ++r) {
    const int leader = hellos[r].leader;
    if (leader < 0 || leader >= static_cast<int>(hellos.size()))
      fail(ErrorKind::comm, fmt::format("rank {} names rank {} as its node's first rank", r, leader));
    Node& n = by_leader[leader];
    n.ranks.push_back(static_cast<int>(r));
    if (static_cast<int>(r) == leader) {
      n.host = hellos[r].host;
      n.pid = hellos[r].pid;
    }
  }
  std::vector<Node> out;
  for (auto& [leader, node] : by_leader) {
    if (node.ranks.front() != leader)
      fail(ErrorKind::comm, fmt::format("rank {} is not on the node its node members name", leader));
    out.push_back(std::move(node));
  }
  return out;
}

void set_error(NodeRecord& r, ErrorKind kind, const std::string& message) {
  r.error_kind = to_string(kind);
  r.error = message;
  r.exit_code = exit_code(kind);
  r.document = {};
}

}  // namespace

bool pid_alive(int /*rank*/, long pid) {
  if (pid <= 0) return true;  // unknown: nothing to watch
  return kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

Session::Session(comm::Communicator& comm, Options options)
    : comm_(comm), options_(std::move(options)), start_(Clock::now()) {
  my_node_ = comm_.node_ranks();
  leader_ = my_node_.front();
  const Hello hello{comm_.host_name(), leader_, static_cast<long>(getpid())};
  const auto t = options_.startup_timeout;
  if (comm_.rank() != 0) {
    comm_.send_string(0, kTagHello, hello_bytes(hello), t);
    const Decision decision = read_decision(comm_.recv_string(0, kTagDecision, t));
    node_count_ = decision.nodes;
    leader_pid_ = decision.leader_pid;
    stop_ = decision.stop;
    return;
  }
  std::vector<Hello> hellos(static_cast<std::size_t>(comm_.size()));
  hellos[0] = hello;
  for (int r = 1; r < comm_.size(); ++r) hellos[r] = read_hello(comm_.recv_string(r, kTagHello, t));
  nodes_ = build_nodes(hellos);
  node_count_ = nodes_.size();
  leader_pid_ = nodes_.front().pid;
  try {
    if (options_.before_measuring) options_.before_measuring();
  } catch (const Error& e) {
    stop_ = e;
  }
  for (int r = 1; r < comm_.size(); ++r) {
    const long pid = hellos[hellos[r].leader].pid;
    comm_.send_string(r, kTagDecision, decision_bytes({node_count_, pid, stop_}), t);
  }
}

Session::~Session() {
  if (final_request_.active) comm_.cancel(final_request_);
}

bool Session::deputy() const { return my_node_.size() > 1 && my_node_[1] == comm_.rank(); }

comm::IdleWait Session::wait_for(const std::string& what, Clock::time_point deadline, bool watch) const {
  comm::IdleWait w;
  w.deadline = deadline;
  w.what = what;
  if (watch) {
    w.check = [this] {
      if (!options_.process_alive(leader_, leader_pid_))
        fail(ErrorKind::comm, fmt::format("rank {} (pid {}), which measured this node, died before reporting",
                                          leader_, leader_pid_));
    };
  }
  return w;
}

NodeRecord Session::measure_here(const MeasureNode& measure) const {
  NodeRecord r;
  try {
    NodeOutcome o = measure();
    r.document = std::move(o.document);
    r.exit_code = o.exit_code;
  } catch (const Error& e) {
    set_error(r, e.kind(), e.what());
  } catch (const std::exception& e) {
    set_error(r, ErrorKind::internal, e.what());
  }
  return r;
}

void Session::send_record(const NodeRecord& record) {
  const std::string wire = record_bytes(record);
  const std::uint64_t n = wire.size();
  const int done = 1;
  comm::Request reqs[3];
  reqs[0] = comm_.isend(0, kTagRecord, &n, sizeof n);
  reqs[1] = comm_.isend(0, kTagRecord, wire.data(), wire.size());
  // The deputy tells rank 0 that the record is on its way; only then does
  // rank 0 take it, so the record must be posted first.
  if (my_node_.size() > 1) reqs[2] = comm_.isend(my_node_[1], kTagDone, &done, sizeof done);
  comm::IdleWait w = wait_for("rank 0 taking this node's result", after(start_, 2 * options_.timeout + kGrace), false);
  w.max_sleep = kSendPoll;
  comm::idle_wait(comm_, reqs, 3, w);
}

void Session::watch_leader() {
  int done = 0;
  LeaderVerdict verdict;
  try {
    comm::Request r = comm_.irecv(leader_, kTagDone, &done, sizeof done);
    comm::idle_wait(comm_, &r, 1, wait_for("this node's measuring rank", after(start_, 2 * options_.timeout + kGrace), true));
  } catch (const Error& e) {
    verdict = {true, e.what()};
  }
  comm::idle_send_string(comm_, 0, kTagVerdict, verdict_bytes(verdict),
                         wait_for("rank 0", after(start_, 2 * options_.timeout + kGrace), false));
}

NodeRecord Session::receive_node(const Node& node) {
  NodeRecord r;
  r.node = node;
  auto deadline = after(start_, options_.timeout);
  try {
    if (node.ranks.size() > 1) {
      const LeaderVerdict verdict = read_verdict(comm::idle_recv_string(
          comm_, node.ranks[1], kTagVerdict, wait_for(fmt::format("node {}'s second rank", node.host), deadline, false)));
      if (verdict.leader_died) {
        set_error(r, ErrorKind::comm, verdict.message);
        return r;
      }
      // The deputy saw the record posted: it is on its way.
      deadline = std::max(deadline, after(Clock::now(), kGrace));
    }
    const std::string wire = comm::idle_recv_string(
        comm_, node.ranks[0], kTagRecord, wait_for(fmt::format("node {}'s result", node.host), deadline, false));
    read_record(wire, r);
  } catch (const Error& e) {
    const std::string why = e.kind() == ErrorKind::timeout
                                ? fmt::format("no result within the fleet timeout ({:g} s from the start)",
                                              options_.timeout.count())
                                : std::string(e.what());
    set_error(r, e.kind(), why);
  }
  return r;
}

std::vector<NodeRecord> Session::gather(const MeasureNode& measure) {
  std::vector<NodeRecord> out;
  const int me = comm_.rank();
  if (measures()) {
    NodeRecord mine = measure_here(measure);
    if (me == 0) {
      mine.node = nodes_.front();
      out.push_back(std::move(mine));
    } else {
      send_record(mine);
    }
  } else if (deputy() && leader_ != 0) {
    watch_leader();
  }
  if (me == 0)
    for (std::size_t k = 1; k < nodes_.size(); ++k) out.push_back(receive_node(nodes_[k]));
  return out;
}

int Session::finish(int code) {
  if (comm_.rank() == 0) {
    std::vector<comm::Request> reqs;
    for (int r = 1; r < comm_.size(); ++r) reqs.push_back(comm_.isend(r, kTagFinal, &code, sizeof code));
    try {
      comm_.wait_all(reqs.data(), reqs.size(), options_.startup_timeout);
    } catch (const Error&) {
      // A rank that died cannot take its code; the status stands.
    }
    return code;
  }
  if (!final_request_.active) final_request_ = comm_.irecv(0, kTagFinal, &final_code_, sizeof final_code_);
  // Rank 0 on this node can be watched, and then no deadline applies: a
  // single-node run takes as long as a single-process run.
  const bool watch = leader_ == 0;
  const auto deadline = watch ? Clock::time_point::max() : after(start_, 2 * options_.timeout + kGrace);
  comm::idle_wait(comm_, &final_request_, 1, wait_for("rank 0's final status", deadline, watch));
  return final_code_;
}

}  // namespace xb::fleet
