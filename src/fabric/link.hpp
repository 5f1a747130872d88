// The fabric coordinator's messages, beside the pairs' own: rank 0 sends
// every rank its order for the next round (or the end), every rank reports
// what it measured in that round, and both sides send heartbeats while
// they measure or wait. A rank that rank 0 has not heard from for
// `silence` seconds is lost (dead, or hung): rank 0 stops waiting for it,
// tells the others in the next order, and the other pairs go on. A rank
// that has not heard from rank 0 for as long gives up (Error(timeout)
// naming rank 0). No collective is used once rounds start, so one dead
// rank cannot stall the others.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "comm/communicator.hpp"

namespace xb::fabric {

class Link {
 public:
  using Clock = std::chrono::steady_clock;
  // Called while waiting (the stop relay's poll, heartbeats): rank 0's
  // `poll` must not throw.
  using Poll = std::function<void()>;

  Link(comm::Communicator& c, double silence_s, double timeout_s, std::string coordinator_name);
  ~Link();
  Link(const Link&) = delete;
  Link& operator=(const Link&) = delete;

  // Heartbeats out (rank 0: to every rank not lost; others: to rank 0),
  // at most every 0.5 s, and heartbeats in. Cheap enough to call from a
  // StopPoll (every slice of a measurement).
  void beat();

  // Rank 0: `text` to `peer` (an order, the end, the exit code); false
  // when the peer did not take it (then it is marked lost). A lost peer
  // gets it only `even_if_lost` (the end and the code: a hung rank that
  // wakes up learns that the run is over), on a best-effort basis.
  bool send_order(int peer, const std::string& text, bool even_if_lost = false);
  // Rank 0: waits for one report from each rank of `waiting`, handing
  // each to `take`; returns the ranks that stayed silent for `silence`
  // (now lost).
  std::vector<int> collect(const std::vector<int>& waiting, const std::function<void(int, const std::string&)>& take,
                           const Poll& poll);
  void mark_lost(int rank);
  bool lost(int rank) const { return lost_.at(static_cast<std::size_t>(rank)); }

  // Other ranks: rank 0's next message; Error(timeout) when it is silent.
  std::string wait_order(const Poll& poll);
  // Other ranks: this rank's report of a round, waiting (idly, beating)
  // until rank 0 takes it; Error(timeout) when rank 0 is silent.
  void send_report(const std::string& text, const Poll& poll);

  // Collective end of the heartbeats (every rank not lost): a last beat to
  // rank 0 and its answer, so no receive is left posted; a lost peer's is
  // cancelled.
  void close();

 private:
  void post_beat_recv(int peer);
  bool take_beats();
  bool await_last(int peer, Clock::time_point deadline);
  void send_last(int peer, Clock::time_point deadline);
  void check_zero_alive() const;
  double since(Clock::time_point t) const { return std::chrono::duration<double>(Clock::now() - t).count(); }

  comm::Communicator& comm_;
  double silence_s_, timeout_s_;
  std::string coordinator_;  // rank 0's node, for messages
  std::vector<comm::Request> beat_in_, beat_out_;
  std::vector<std::uint64_t> beat_in_value_;
  std::uint64_t beat_out_value_ = 0;
  std::vector<Clock::time_point> heard_;
  std::vector<bool> lost_;
  Clock::time_point last_beat_{};
  bool closed_ = false;
  // Orders posted to lost ranks, kept until the end.
  struct Orphan {
    explicit Orphan(std::string t) : text(std::move(t)), bytes(text.size()) {}
    std::string text;
    std::uint64_t bytes;
    comm::Request requests[2];
  };
  std::vector<std::unique_ptr<Orphan>> orphans_;
};

}  // namespace xb::fabric
