#include "comm/idle_wait.hpp"

#include <algorithm>
#include <cstdint>

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
  while (true) {
    // Slices of at most a second, so `check` runs about once a second.
    const auto now = Clock::now();
    const auto slice = std::min<std::chrono::duration<double>>(std::chrono::seconds(1), how.deadline - now);
    if (comm.wait_for(requests, count, std::max(slice, std::chrono::duration<double>(0)), how.max_sleep)) return;
    if (Clock::now() >= how.deadline) {
      const int peer = first_pending_peer(requests, count);
      cancel_pending(comm, requests, count);
      fail(ErrorKind::timeout, fmt::format("no answer from rank {} ({}) within {:.0f} s", peer, how.what,
                                           std::chrono::duration<double>(Clock::now() - start).count()));
    }
    if (!how.check) continue;
    try {
      how.check();
    } catch (...) {
      cancel_pending(comm, requests, count);
      throw;
    }
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
