#include "check/fleet.hpp"

#include <csignal>
#include <cstdio>

#include "core/stop.hpp"

namespace xb::check {

using json = nlohmann::json;

namespace {
constexpr int kTagStopWord = comm::kReservedTagBase - 80;  // below the fleet's own tags

int signal_number(StopReason r) { return r == StopReason::sigint ? SIGINT : r == StopReason::sigterm ? SIGTERM : 0; }
}  // namespace

StopRelay::StopRelay(comm::Communicator& comm) : StopRelay(comm, Hooks{}) {}

StopRelay::StopRelay(comm::Communicator& comm, Hooks hooks) : comm_(comm), hooks_(std::move(hooks)) {
  const auto roles = comm_.allgather(std::string(comm_.local_rank() == 0 ? "1" : "0"), comm::Seconds(60));
  leader_ = comm_.local_rank() == 0;
  if (!leader_) return;
  for (int r = 0; r < static_cast<int>(roles.size()); ++r)
    if (r != comm_.rank() && roles[static_cast<std::size_t>(r)] == "1") peers_.push_back(r);
  words_.assign(peers_.size(), 0);
  heard_.assign(peers_.size(), false);
  recvs_.resize(peers_.size());
  for (std::size_t k = 0; k < peers_.size(); ++k)
    recvs_[k] = comm_.irecv(peers_[k], kTagStopWord, &words_[k], sizeof(int));
}

void StopRelay::send_word(int word) {
  sent_ = true;
  out_word_ = word;
  for (int p : peers_) sends_.push_back(comm_.isend(p, kTagStopWord, &out_word_, sizeof(int)));
}

void StopRelay::poll() {
  if (!leader_) return;
  const int mine = signal_number(hooks_.local());
  if (!sent_ && mine != 0) send_word(mine);
  for (std::size_t k = 0; k < peers_.size(); ++k) {
    if (heard_[k] || !comm_.test(recvs_[k])) continue;
    heard_[k] = true;
    if (words_[k] != 0 && mine == 0 && relayed_ == 0) {
      relayed_ = words_[k];
      std::fprintf(stderr, "xferbench: rank %d: stopping: the check of rank %d was interrupted by %s\n", comm_.rank(),
                   peers_[k], words_[k] == SIGINT ? "SIGINT" : "SIGTERM");
      std::fflush(stderr);
      hooks_.request(words_[k]);
    }
  }
}

void StopRelay::finish(comm::Seconds timeout) {
  if (!leader_) return;
  poll();
  if (!sent_) send_word(signal_number(hooks_.local()));
  if (!recvs_.empty()) comm_.wait_all(recvs_.data(), recvs_.size(), timeout);
  if (!sends_.empty()) comm_.wait_all(sends_.data(), sends_.size(), timeout);
  // Words that came after this node's work ended: recorded, not acted on.
  for (std::size_t k = 0; k < peers_.size(); ++k)
    if (!heard_[k] && words_[k] != 0 && relayed_ == 0) relayed_ = words_[k];
}

std::vector<json> gather_node_records(comm::Communicator& comm, const std::function<json()>& node_work,
                                      comm::Seconds timeout) {
  std::string mine;
  if (comm.local_rank() == 0) {
    json record;
    try {
      record = node_work();
    } catch (const Error& e) {
      record = {{"hostname", comm.host_name()}, {"verdict", "error"}, {"error", e.what()},
                {"exit_code", exit_code(e.kind())}};
    }
    if (!record.contains("hostname")) record["hostname"] = comm.host_name();
    mine = record.dump();
  }
  std::vector<json> nodes;
  for (const std::string& s : comm.allgather(mine, timeout))
    if (!s.empty()) nodes.push_back(json::parse(s));
  return nodes;
}

int fleet_exit_code(const std::vector<json>& nodes) {
  // A node stopped by a signal makes the job's code 130 / 143, as one
  // process's would; any other node not passing makes it 1; every node
  // passing or cut short by --time-limit alone, 10.
  for (const json& n : nodes)
    if (n.value("verdict", "error") == "interrupted") return n.value("exit_code", 1);
  bool partial = false;
  for (const json& n : nodes) {
    const std::string v = n.value("verdict", "error");
    if (v == "partial") partial = true;
    else if (v != "pass") return 1;
  }
  if (nodes.empty()) return 1;
  return partial ? stop_exit_code(StopReason::time_limit) : 0;
}

}  // namespace xb::check
