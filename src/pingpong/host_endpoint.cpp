#include "pingpong/host_endpoint.hpp"

#include <chrono>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "base/error.hpp"
#include "pingpong/cycle_clock.hpp"

namespace xb::pingpong {

using namespace devproto;

namespace {

using Clock = std::chrono::steady_clock;

std::uint64_t load_acquire(const std::uint64_t* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
std::uint64_t load_relaxed(const std::uint64_t* p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
void store_release(std::uint64_t* p, std::uint64_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
void store_relaxed(std::uint64_t* p, std::uint64_t v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }

// Spins on shared memory. The clock is read every 1024 polls, so a poll
// costs one load; every 4096 polls the thread yields, which only matters
// when ranks share a core (a CI machine), where spinning through a whole
// time slice would stall the peer.
class Waiter {
 public:
  explicit Waiter(std::uint64_t timeout_ns)
      : timeout_ns_(timeout_ns), deadline_(Clock::now() + std::chrono::nanoseconds(timeout_ns)) {}
  void poll(WaitFor what, std::uint64_t seq) {
    ++polls_;
    if ((polls_ & 1023U) != 0) return;
    if ((polls_ & 4095U) == 0) std::this_thread::yield();
    if (Clock::now() > deadline_) {
      fail(ErrorKind::timeout, fmt::format("gave up after {:g} s waiting for {}",
                                           static_cast<double>(timeout_ns_) * 1e-9, describe_wait(what, seq)));
    }
  }

 private:
  std::uint64_t timeout_ns_;
  Clock::time_point deadline_;
  std::uint64_t polls_ = 0;
};

void wait_at_least(const std::uint64_t* word, std::uint64_t target, WaitFor what, std::uint64_t timeout_ns) {
  Waiter w(timeout_ns);
  while (load_acquire(word) < target) w.poll(what, target);
}

std::uint64_t load8(const unsigned char* p, std::uint64_t n) {
  if (n < 8) return load_tail(p, n);
  std::uint64_t v = 0;
  std::memcpy(&v, p, 8);
  return v;
}

void store8(unsigned char* p, std::uint64_t v, std::uint64_t n) {
  if (n < 8) return store_tail(p, v, n);
  std::memcpy(p, &v, 8);
}

void ll_send(const unsigned char* src, std::uint64_t bytes, std::uint64_t* ll, std::uint64_t seq) {
  for (std::uint64_t v = 0, pairs = ll_pairs(bytes); v < pairs; ++v) {
    const std::uint64_t off = 8 * v;
    const std::uint64_t d = load8(src + off, bytes - off);
    store_relaxed(&ll[2 * v], ll_word(static_cast<std::uint32_t>(d), seq));
    store_relaxed(&ll[2 * v + 1], ll_word(static_cast<std::uint32_t>(d >> 32), seq));
  }
}

void ll_receive(const std::uint64_t* ll, unsigned char* dst, std::uint64_t bytes, std::uint64_t seq,
                std::uint64_t timeout_ns) {
  Waiter w(timeout_ns);
  const auto word_of_seq = [&](std::uint64_t i) {  // ll[i], once it belongs to message seq
    std::uint64_t word = 0;
    while (!ll_at_least(word = load_relaxed(&ll[i]), seq)) w.poll(WaitFor::message, seq);
    return word;
  };
  for (std::uint64_t v = 0, pairs = ll_pairs(bytes); v < pairs; ++v) {
    const std::uint64_t lo = word_of_seq(2 * v);
    const std::uint64_t hi = word_of_seq(2 * v + 1);
    const std::uint64_t off = 8 * v;
    store8(dst + off, ll_data(lo) | (static_cast<std::uint64_t>(ll_data(hi)) << 32), bytes - off);
  }
}

// Sends `count` messages from `src`; the counters advance by one per message.
void send_messages(const RunSpec& s, const Links& l, const unsigned char* src, std::uint32_t count, Counters& c) {
  for (std::uint32_t m = 0; m < count; ++m) {
    const std::uint64_t seq = ++c.sent;
    if (s.ll) {
      ll_send(src, s.bytes, l.out.ll, seq);
    } else {
      if (!s.pull) std::memcpy(l.out.data, src, s.bytes);  // else the GPU peer fetches it from `src`
      store_release(&l.out.flags->parts[0], seq);          // a CPU sender is one part
    }
  }
}

void receive_messages(const RunSpec& s, const Links& l, std::uint32_t count, Counters& c) {
  c.received += count;  // a window is complete when its last message is
  if (s.ll) {
    ll_receive(l.in.ll, l.recv_ll, s.bytes, c.received, s.timeout_ns);
    return;
  }
  for (std::uint32_t b = 0; b < s.peer_parts; ++b) {
    wait_at_least(&l.in.flags->parts[b], c.received, WaitFor::message, s.timeout_ns);
  }
}

void run_step(const RunSpec& s, const Links& l, const Step& step, Counters& c) {
  switch (step.kind) {
    case StepKind::send: send_messages(s, l, l.send, step.count, c); break;
    case StepKind::echo: send_messages(s, l, s.ll ? l.recv_ll : l.in.data, step.count, c); break;
    case StepKind::receive: receive_messages(s, l, step.count, c); break;
    case StepKind::send_ack: store_release(&l.out.flags->ack, ++c.acks_sent); break;
    case StepKind::receive_ack:
      wait_at_least(&l.in.flags->ack, ++c.acks_received, WaitFor::ack, s.timeout_ns);
      break;
  }
}

}  // namespace

std::string describe_wait(WaitFor what, std::uint64_t seq) {
  switch (what) {
    case WaitFor::message: return fmt::format("message {}", seq);
    case WaitFor::ack: return fmt::format("acknowledgement {}", seq);
    case WaitFor::start: break;
  }
  return fmt::format("the peer to start run {}", seq);
}

std::vector<double> run_host_side(const RunSpec& spec, const Links& links) {
  // Both sides announce the run and wait for each other, so the first
  // repetition does not include the peer's start-up (a kernel launch).
  store_release(&links.out.flags->ready, spec.run);
  wait_at_least(&links.in.flags->ready, spec.run, WaitFor::start, spec.timeout_ns);
  const RepSteps steps = rep_steps(spec.mode, spec.initiator, spec.window, spec.echo);
  Counters c = spec.base;
  return time_reps(static_cast<int>(spec.reps), [&] {
    for (int i = 0; i < steps.n; ++i) run_step(spec, links, steps.step[i], c);
  });
}

std::vector<double> ticks_to_seconds(const std::vector<std::uint64_t>& stamps, double total_seconds) {
  std::vector<double> out;
  if (stamps.size() < 2) return out;
  const std::uint64_t total = stamps.back() - stamps.front();
  const double scale = total > 0 ? total_seconds / static_cast<double>(total) : 0.0;
  for (std::size_t i = 1; i < stamps.size(); ++i) out.push_back(static_cast<double>(stamps[i] - stamps[i - 1]) * scale);
  return out;
}

}  // namespace xb::pingpong
