#include "fabric/link.hpp"

#include <algorithm>
#include <thread>

#include <fmt/format.h>

#include "base/error.hpp"

namespace xb::fabric {
namespace {

// Below the stop relay's and the fleet's tags (comm/stop_relay.cpp, fleet/per_node.hpp).
constexpr int kTagOrder = comm::kReservedTagBase - 128;
constexpr int kTagReport = kTagOrder + 1;
constexpr int kTagBeat = kTagOrder + 2;
constexpr double kBeatEveryS = 0.5;
// The value of the last beat each way (close()); periodic beats count up from 1.
constexpr std::uint64_t kLastBeat = ~0ULL;

// Sleeps a little longer each time nothing happened, up to 10 ms.
struct Backoff {
  std::chrono::microseconds pause{50};
  void idle() {
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(10000));
  }
  void reset() { pause = std::chrono::microseconds(50); }
};

}  // namespace

Link::Link(comm::Communicator& c, double silence_s, double timeout_s, std::string coordinator_name)
    : comm_(c), silence_s_(silence_s), timeout_s_(timeout_s), coordinator_(std::move(coordinator_name)) {
  const auto n = static_cast<std::size_t>(c.size());
  beat_in_.resize(n);
  beat_out_.resize(n);
  beat_in_value_.assign(n, 0);
  heard_.assign(n, Clock::now());
  lost_.assign(n, false);
  if (c.rank() == 0) {
    for (int k = 1; k < c.size(); ++k) post_beat_recv(k);
  } else {
    post_beat_recv(0);
  }
}

Link::~Link() {
  for (auto* list : {&beat_in_, &beat_out_})
    for (comm::Request& r : *list)
      if (r.active) comm_.cancel(r);
  for (auto& o : orphans_)
    for (comm::Request& r : o->requests)
      if (r.active && !comm_.test(r)) comm_.cancel(r);
}

void Link::post_beat_recv(int peer) {
  const auto p = static_cast<std::size_t>(peer);
  beat_in_[p] = comm_.irecv(peer, kTagBeat, &beat_in_value_[p], sizeof(std::uint64_t));
}

bool Link::take_beats() {
  bool any = false;
  for (int p = 0; p < comm_.size(); ++p) {
    comm::Request& r = beat_in_[static_cast<std::size_t>(p)];
    if (!r.active || !comm_.test(r)) continue;
    heard_[static_cast<std::size_t>(p)] = Clock::now();
    any = true;
    if (!closed_ && !lost(p)) post_beat_recv(p);
  }
  return any;
}

void Link::beat() {
  if (closed_) return;
  if (since(last_beat_) >= kBeatEveryS) {
    last_beat_ = Clock::now();
    ++beat_out_value_;
    for (int p = 0; p < comm_.size(); ++p) {
      if (p == comm_.rank() || (comm_.rank() != 0 && p != 0) || lost(p)) continue;
      comm::Request& out = beat_out_[static_cast<std::size_t>(p)];
      if (out.active && !comm_.test(out)) continue;  // the last one is still on its way
      try {
        out = comm_.isend(p, kTagBeat, &beat_out_value_, sizeof beat_out_value_);
      } catch (const Error&) {
        if (comm_.rank() == 0) mark_lost(p);
      }
    }
  }
  take_beats();
}

void Link::mark_lost(int rank) {
  const auto r = static_cast<std::size_t>(rank);
  if (lost_[r]) return;
  lost_[r] = true;
  for (comm::Request* q : {&beat_in_[r], &beat_out_[r]})
    if (q->active) comm_.cancel(*q);
}

bool Link::send_order(int peer, const std::string& text, bool even_if_lost) {
  if (lost(peer) && !even_if_lost) return false;
  // A lost peer may never take it: post it and leave it (it is small, so
  // it goes out at once), cancelled at the end if still pending.
  const bool wait = !lost(peer);
  try {
    if (wait) {
      comm_.send_string(peer, kTagOrder, text, comm::Seconds(timeout_s_));
      return true;
    }
    orphans_.push_back(std::make_unique<Orphan>(text));
    Orphan& o = *orphans_.back();
    o.requests[0] = comm_.isend(peer, kTagOrder, &o.bytes, sizeof o.bytes);
    if (o.bytes > 0) o.requests[1] = comm_.isend(peer, kTagOrder, o.text.data(), o.text.size());
    return true;
  } catch (const Error&) {
    mark_lost(peer);
    return false;
  }
}

std::vector<int> Link::collect(const std::vector<int>& waiting,
                               const std::function<void(int, const std::string&)>& take, const Poll& poll) {
  struct Pending {
    int rank;
    std::uint64_t bytes;
    comm::Request request;
  };
  std::vector<Pending> pending;
  pending.reserve(waiting.size());  // the receives write into these: no reallocation
  for (int r : waiting) {
    if (lost(r)) continue;
    pending.push_back({r, 0, {}});
    pending.back().request = comm_.irecv(r, kTagReport, &pending.back().bytes, sizeof(std::uint64_t));
  }
  std::vector<int> silent;
  Backoff backoff;
  for (std::size_t left = pending.size(); left > 0;) {
    bool progress = take_beats();
    for (Pending& p : pending) {
      if (!p.request.active || !comm_.test(p.request)) continue;
      --left;
      progress = true;
      std::string text(p.bytes, '\0');
      try {
        if (p.bytes > 0) comm_.recv(p.rank, kTagReport, text.data(), text.size(), comm::Seconds(timeout_s_));
      } catch (const Error&) {
        silent.push_back(p.rank);
        mark_lost(p.rank);
        continue;
      }
      heard_[static_cast<std::size_t>(p.rank)] = Clock::now();
      take(p.rank, text);
    }
    poll();
    for (Pending& p : pending) {
      if (!p.request.active || since(heard_[static_cast<std::size_t>(p.rank)]) <= silence_s_) continue;
      comm_.cancel(p.request);
      --left;
      silent.push_back(p.rank);
      mark_lost(p.rank);
    }
    if (progress) backoff.reset();
    else backoff.idle();
  }
  return silent;
}

void Link::check_zero_alive() const {
  if (since(heard_[0]) <= silence_s_) return;
  fail(ErrorKind::timeout, fmt::format("rank 0 (node {}), which coordinates the fabric run, did not answer within "
                                       "{:g} s: it may have died or be stuck",
                                       coordinator_, silence_s_));
}

std::string Link::wait_order(const Poll& poll) {
  std::uint64_t bytes = 0;
  comm::Request r = comm_.irecv(0, kTagOrder, &bytes, sizeof bytes);
  Backoff backoff;
  while (!comm_.test(r)) {
    if (take_beats()) backoff.reset();
    poll();
    if (since(heard_[0]) > silence_s_) comm_.cancel(r);
    check_zero_alive();
    backoff.idle();
  }
  heard_[0] = Clock::now();
  std::string text(bytes, '\0');
  if (bytes > 0) comm_.recv(0, kTagOrder, text.data(), text.size(), comm::Seconds(timeout_s_));
  return text;
}

void Link::send_report(const std::string& text, const Poll& poll) {
  const std::uint64_t bytes = text.size();
  comm::Request r[2] = {comm_.isend(0, kTagReport, &bytes, sizeof bytes), {}};
  if (bytes > 0) r[1] = comm_.isend(0, kTagReport, text.data(), text.size());
  Backoff backoff;
  while (!(comm_.test(r[0]) && comm_.test(r[1]))) {
    if (take_beats()) backoff.reset();
    poll();
    if (since(heard_[0]) > silence_s_) {
      for (auto& q : r)
        if (q.active) comm_.cancel(q);
    }
    check_zero_alive();
    backoff.idle();
  }
}

// The last beats: each rank not lost sends kLastBeat to rank 0, which
// answers each with kLastBeat, so every posted receive is matched and
// nothing is left to cancel (cancelling would make MPI_Finalize skipped).
// Beats still on their way are taken and skipped.
bool Link::await_last(int peer, Clock::time_point deadline) {
  const auto p = static_cast<std::size_t>(peer);
  while (true) {
    comm::Request& r = beat_in_[p];
    if (!r.active) post_beat_recv(peer);
    const auto left = std::chrono::duration<double>(deadline - Clock::now());
    if (left.count() <= 0 || !comm_.wait_for(&r, 1, comm::Seconds(left.count()), comm::Seconds(0.01))) {
      comm_.cancel(r);
      return false;
    }
    if (beat_in_value_[p] == kLastBeat) return true;
  }
}

void Link::send_last(int peer, Clock::time_point deadline) {
  comm::Request& out = beat_out_[static_cast<std::size_t>(peer)];
  const auto left = [&] { return comm::Seconds(std::max(0.0, std::chrono::duration<double>(deadline - Clock::now()).count())); };
  if (out.active && !comm_.wait_for(&out, 1, left(), comm::Seconds(0.01))) comm_.cancel(out);
  out = comm_.isend(peer, kTagBeat, &kLastBeat, sizeof kLastBeat);
  if (!comm_.wait_for(&out, 1, left(), comm::Seconds(0.01))) comm_.cancel(out);
}

void Link::close() {
  if (closed_) return;
  closed_ = true;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(comm::Seconds(timeout_s_));
  if (comm_.rank() == 0) {
    for (int p = 1; p < comm_.size(); ++p)
      if (!lost(p) && await_last(p, deadline)) send_last(p, deadline);
  } else {
    send_last(0, deadline);
    await_last(0, deadline);
  }
  for (auto* list : {&beat_in_, &beat_out_})
    for (comm::Request& r : *list)
      if (r.active && !comm_.test(r)) comm_.cancel(r);
}

}  // namespace xb::fabric
