#include "comm/stop_relay.hpp"

#include <chrono>
#include <csignal>
#include <cstdio>

namespace xb::comm {

namespace {
constexpr int kTagStopWord = kReservedTagBase - 80;  // below the fleet's own tags

int signal_number(StopReason r) { return r == StopReason::sigint ? SIGINT : r == StopReason::sigterm ? SIGTERM : 0; }
}  // namespace

StopRelay::StopRelay(Communicator& comm, std::string what) : StopRelay(comm, std::move(what), Hooks{}) {}

StopRelay::StopRelay(Communicator& comm, std::string what, Hooks hooks, bool every_rank)
    : comm_(comm), what_(std::move(what)), hooks_(std::move(hooks)) {
  leader_ = every_rank || comm_.local_rank() == 0;
  const auto roles = comm_.allgather(std::string(leader_ ? "1" : "0"), Seconds(60));
  if (!leader_) return;
  for (int r = 0; r < static_cast<int>(roles.size()); ++r)
    if (r != comm_.rank() && roles[static_cast<std::size_t>(r)] == "1") peers_.push_back(r);
  words_.assign(peers_.size(), 0);
  heard_.assign(peers_.size(), false);
  recvs_.resize(peers_.size());
  for (std::size_t k = 0; k < peers_.size(); ++k) recvs_[k] = comm_.irecv(peers_[k], kTagStopWord, &words_[k], sizeof(int));
}

StopRelay::~StopRelay() {
  // An early exit (an exception) must not leave a receive into words_ behind.
  if (closed_) return;
  for (Request& r : recvs_)
    if (r.active) comm_.cancel(r);
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
  // Called between samples too: the other leaders' words are looked at
  // every 5 ms at most (a thousand nodes make it a thousand tests).
  const auto now = std::chrono::steady_clock::now();
  if (working_ && now - last_look_ < std::chrono::milliseconds(5)) return;
  last_look_ = now;
  for (std::size_t k = 0; k < peers_.size(); ++k) {
    if (heard_[k] || !comm_.test(recvs_[k])) continue;
    heard_[k] = true;
    if (words_[k] == 0 || mine != 0 || relayed_ != 0) continue;  // a node's own signal needs no relay
    relayed_ = words_[k];
    if (!working_) continue;  // came after this node's work: recorded, not acted on
    std::fprintf(stderr, "xferbench: rank %d: stopping: the %s of rank %d was interrupted by %s\n", comm_.rank(),
                 what_.c_str(), peers_[k], words_[k] == SIGINT ? "SIGINT" : "SIGTERM");
    std::fflush(stderr);
    hooks_.request(words_[k]);
  }
}

void StopRelay::last_word() {
  if (!leader_ || !working_) return;
  poll();
  working_ = false;
  if (!sent_) send_word(signal_number(hooks_.local()));
}

std::size_t StopRelay::close(Seconds timeout) {
  if (closed_) return 0;
  closed_ = true;
  if (!leader_) return 0;
  last_word();
  std::size_t abandoned = 0;
  if (!recvs_.empty() && !comm_.wait_for(recvs_.data(), recvs_.size(), timeout, Seconds(0.05))) {
    for (Request& r : recvs_)
      if (r.active && !comm_.test(r)) {
        comm_.cancel(r);
        ++abandoned;
      }
  }
  poll();  // records words that came after the work, without acting on them
  if (!sends_.empty() && !comm_.wait_for(sends_.data(), sends_.size(), timeout, Seconds(0.05)))
    for (Request& r : sends_)
      if (r.active) comm_.cancel(r);
  return abandoned;
}

}  // namespace xb::comm
