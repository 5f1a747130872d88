// Rank 0's side of a fabric run (runner.hpp): orders, reports, lost ranks,
// the end and the exit code.
#include <sstream>

#include <fmt/format.h>

#include "base/stop.hpp"
#include "fabric/attribution.hpp"
#include "fabric/runner.hpp"

namespace xb::fabric {
namespace {

void poll_stop() { (void)polled_stop(); }

std::string slot_name(const Result& r, const Slot& s) {
  return fmt::format("{}-{} rail {}", r.nodes[static_cast<std::size_t>(s.a)].name,
                     r.nodes[static_cast<std::size_t>(s.b)].name, s.rail);
}

PairRecord record_of(const Result& r, const Slot& s, int round) {
  PairRecord p;
  p.a = s.a;
  p.b = s.b;
  p.rail = s.rail;
  p.round = round;
  const Node& a = r.nodes[static_cast<std::size_t>(s.a)];
  const Node& b = r.nodes[static_cast<std::size_t>(s.b)];
  p.rank_a = a.ranks[static_cast<std::size_t>(s.rail)];
  p.rank_b = b.ranks[static_cast<std::size_t>(s.rail)];
  p.gpu_a = a.gpus[static_cast<std::size_t>(s.rail)];
  p.gpu_b = b.gpus[static_cast<std::size_t>(s.rail)];
  return p;
}

bool has_any_leg(const PairRecord& p) { return p.ab || p.ba || p.latency; }

}  // namespace

void Session::lose(Result& r, int rank, int round, const std::string& why) {
  for (const LostRank& l : r.lost)
    if (l.rank == rank) return;
  link_->mark_lost(rank);
  const auto [node, rail] = where_.at(static_cast<std::size_t>(rank));
  r.lost.push_back({rank, node, rail, round, why});
}

void Session::merge(Result& r, std::size_t first_pair, const std::vector<LegReport>& legs) {
  for (const LegReport& l : legs) {
    const std::size_t at = first_pair + static_cast<std::size_t>(l.slot);
    if (at >= r.pairs.size()) continue;
    PairRecord& p = r.pairs[at];
    if (p.transport.empty()) p.transport = l.transport;
    if (l.result) {
      (l.leg == 0 ? p.ab : l.leg == 1 ? p.ba : p.latency) = *l.result;
      if (l.leg == 0) p.path = l.path;
      if (l.leg == 1) p.path_ba = l.path;
      if (l.leg == 2 && p.path.empty()) p.path = l.path;
    }
    if (!l.error.empty() && p.error.empty()) {
      p.error = l.error;
      p.error_kind = l.error_kind;
    }
    if (l.stop != StopReason::none) p.stop = comm::first_stop(p.stop, l.stop);
  }
}

// Rank 0, stage `stage` of round `k`: the order to every rank (with the
// ranks lost so far, whose partners skip their pairs); returns who was
// lost before the stage.
std::vector<bool> Session::order_stage(Result& r, int k, int stage) {
  std::vector<bool> lost(static_cast<std::size_t>(comm_.size()), false);
  std::ostringstream order;
  order << "round " << k << " stage " << stage;
  for (int q = 0; q < comm_.size(); ++q)
    if (link_->lost(q)) order << ' ' << q;
  for (int q = 1; q < comm_.size(); ++q)
    if (!link_->lost(q) && !link_->send_order(q, order.str())) lose(r, q, k, "did not take the round's order");
  for (int q = 0; q < comm_.size(); ++q) lost[static_cast<std::size_t>(q)] = link_->lost(q);
  return lost;
}

// Rank 0, after round `k`'s reports: the pairs a lost rank cost, and the
// stop any pair agreed on.
void Session::end_round(Result& r, std::size_t first, const std::vector<bool>& lost_before) {
  for (std::size_t i = first; i < r.pairs.size(); ++i) {
    PairRecord& p = r.pairs[i];
    const bool before = lost_before[static_cast<std::size_t>(p.rank_a)] || lost_before[static_cast<std::size_t>(p.rank_b)];
    const bool now = link_->lost(p.rank_a) || link_->lost(p.rank_b);
    if (p.error.empty() && (before || (now && !has_any_leg(p) && p.stop == StopReason::none))) {
      const int who = link_->lost(p.rank_a) ? p.rank_a : p.rank_b;
      const auto [node, rail] = where_.at(static_cast<std::size_t>(who));
      p.error = fmt::format("not measured: rank {} (node {}, rail {}) was lost{}", who,
                            r.nodes[static_cast<std::size_t>(node)].name, rail,
                            before ? " in an earlier round" : " in this round");
      p.error_kind = ErrorKind::timeout;
    }
    stop_ = comm::first_stop(stop_, p.stop);
  }
}

void Session::run_round(Result& r, int k) {
  const std::size_t first = r.pairs.size();
  for (const Slot& s : rounds_[static_cast<std::size_t>(k)]) r.pairs.push_back(record_of(r, s, k));
  std::vector<bool> lost_before;
  for (int stage = 0; stage < kStages; ++stage) {
    const std::vector<bool> lost = order_stage(r, k, stage);
    if (stage == 0) lost_before = lost;
    merge(r, first, my_legs(k, stage, lost));
    std::vector<int> waiting;
    for (int q = 1; q < comm_.size(); ++q)
      if (!link_->lost(q)) waiting.push_back(q);
    const auto take = [&](int, const std::string& text) {
      int of = -1;
      const auto legs = legs_from_wire(text, of);
      if (of == k) merge(r, first, legs);
    };
    for (int q : link_->collect(waiting, take, poll_stop))
      lose(r, q, k, fmt::format("sent nothing for {:g} s (dead, or hung)", silence_of(options_)));
  }
  end_round(r, first, lost_before);
}

Result Session::coordinate() {
  Result r = header_;
  if (hooks_.planned) hooks_.planned(r);
  std::size_t round = 0;
  for (; round < rounds_.size(); ++round) {
    stop_ = comm::first_stop(stop_, polled_stop());
    if (stop_ != StopReason::none) break;
    run_round(r, static_cast<int>(round));
    if (hooks_.progress) hooks_.progress(r);
  }
  for (int q = 1; q < comm_.size(); ++q) link_->send_order(q, "end", true);
  if (stop_ != StopReason::none) acknowledge_stop();
  Completion& c = r.completion;
  c.stop = stop_;
  for (const PairRecord& p : r.pairs)
    if (p.stop != StopReason::none && !has_any_leg(p)) c.not_run.push_back(slot_name(r, {p.a, p.b, p.rail}));
  for (; round < rounds_.size(); ++round)
    for (const Slot& s : rounds_[round]) c.not_run.push_back(slot_name(r, s));
  settle(c, "pair");
  r.findings = attribute(r);
  return r;
}

int Session::finish(int code) {
  if (comm_.rank() == 0) {
    for (int q = 1; q < comm_.size(); ++q) link_->send_order(q, fmt::format("code {}", code), true);
  } else {
    std::istringstream in(link_->wait_order(poll_stop));
    std::string word;
    in >> word >> code;
    if (word != "code") fail(ErrorKind::comm, "the fabric's coordinator sent no exit code");
  }
  link_->close();
  relay_->close(comm::Seconds(options_.timeout_s));
  return code;
}

}  // namespace xb::fabric
