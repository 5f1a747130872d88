#include "comm/idle_wait.hpp"

#include <algorithm>
#include <cstdint>
#include <thread>

#include <fmt/format.h>

namespace xb::comm {
namespace {

// No record of this tool comes near it; a larger length is a corrupt message.
constexpr std::uint64_t kMaxMessageBytes = 1ull << 31;

void cancel_pending(Communicator& comm, Request* requests, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i)
    if (requests[i].active) comm.cancel(requests[i]);
}

int first_pending_peer(const Request* requests, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i)
    if (requests[i].active) return requests[i].peer;
  return -1;
}

}  // namespace

void idle_wait(Communicator& comm, Request* requests, std::size_t count, const IdleWait& how) {
  const auto start = Clock::now();
  auto next_check = start + std::chrono::seconds(1);
  std::chrono::duration<double> pause(20e-6);
  while (true) {
    bool done = true;
    for (std::size_t i = 0; i < count; ++i) done = comm.test(requests[i]) && done;
    if (done) return;
    const auto now = Clock::now();
    if (now >= how.deadline) {
      const int peer = first_pending_peer(requests, count);
      cancel_pending(comm, requests, count);
      fail(ErrorKind::timeout, fmt::format("no answer from rank {} ({}) within {:.0f} s", peer, how.what,
                                           std::chrono::duration<double>(now - start).count()));
    }
    if (how.check && now >= next_check) {
      next_check = now + std::chrono::seconds(1);
      try {
        how.check();
      } catch (...) {
        cancel_pending(comm, requests, count);
        throw;
      }
    }
    std::this_thread::sleep_for(pause);
    pause = std::min<std::chrono::duration<double>>(pause * 2, how.max_sleep);
  }
}

std::string idle_recv_string(Communicator& comm, int peer, int tag, const IdleWait& how) {
  std::uint64_t n = 0;
  Request r = comm.irecv(peer, tag, &n, sizeof n);
  idle_wait(comm, &r, 1, how);
  if (n > kMaxMessageBytes)
    fail(ErrorKind::comm, fmt::format("malformed message from rank {} (tag {}): {} bytes announced", peer, tag, n));
  std::string text(n, '\0');
  if (n > 0) {
    // The payload follows its length at once; give it time even when the
    // deadline for the first part has nearly passed.
    IdleWait rest = how;
    rest.deadline = std::max(how.deadline, Clock::now() + std::chrono::seconds(60));
    r = comm.irecv(peer, tag, text.data(), text.size());
    idle_wait(comm, &r, 1, rest);
  }
  return text;
}

void idle_send_string(Communicator& comm, int peer, int tag, const std::string& text, const IdleWait& how) {
  const std::uint64_t n = text.size();
  Request r[2];
  r[0] = comm.isend(peer, tag, &n, sizeof n);
  if (n > 0) r[1] = comm.isend(peer, tag, text.data(), text.size());
  idle_wait(comm, r, n > 0 ? 2 : 1, how);
}

}  // namespace xb::comm
