#include "comm/communicator.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <thread>

#include <fmt/format.h>

namespace xb::comm {
namespace {

// Collective tags cycle through a window above kReservedTagBase; every rank
// runs the same sequence of collectives, so the tags match.
constexpr int kCollectiveTagWindow = 1 << 16;

std::string pack(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) {
    const std::uint64_t n = item.size();
    out.append(reinterpret_cast<const char*>(&n), sizeof n);
    out += item;
  }
  return out;
}

std::vector<std::string> unpack(const std::string& packed) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos + sizeof(std::uint64_t) <= packed.size()) {
    std::uint64_t n = 0;
    std::memcpy(&n, packed.data() + pos, sizeof n);
    pos += sizeof n;
    if (n > packed.size() - pos) fail(ErrorKind::comm, "malformed allgather message");
    out.push_back(packed.substr(pos, n));
    pos += n;
  }
  return out;
}

}  // namespace

std::string timeout_message(int self, int peer, int tag, Seconds timeout) {
  return fmt::format("rank {} did not answer within {:g} s (rank {} waiting for message tag {}); "
                     "it may have died or be stuck",
                     peer, timeout.count(), self, tag);
}

void Communicator::send(int peer, int tag, const void* data, std::size_t bytes, Seconds timeout) {
  Request r = isend(peer, tag, data, bytes);
  wait_all(&r, 1, timeout);
}

void Communicator::recv(int peer, int tag, void* data, std::size_t bytes, Seconds timeout) {
  Request r = irecv(peer, tag, data, bytes);
  wait_all(&r, 1, timeout);
}

void Communicator::send_string(int peer, int tag, const std::string& text, Seconds timeout) {
  const std::uint64_t n = text.size();
  send(peer, tag, &n, sizeof n, timeout);
  if (n > 0) send(peer, tag, text.data(), text.size(), timeout);
}

std::string Communicator::recv_string(int peer, int tag, Seconds timeout) {
  std::uint64_t n = 0;
  recv(peer, tag, &n, sizeof n, timeout);
  std::string text(n, '\0');
  if (n > 0) recv(peer, tag, text.data(), text.size(), timeout);
  return text;
}

std::vector<int> Communicator::node_ranks() const {
  if (local_size() == 1) return {rank()};
  fail(ErrorKind::internal, fmt::format("communicator '{}' does not list the ranks of its node", name()));
}

bool Communicator::test(Request& request) {
  if (!request.active) return true;
  fail(ErrorKind::internal, fmt::format("communicator '{}' cannot test a request", name()));
}

bool Communicator::wait_for(Request* requests, std::size_t count, Seconds at_most, Seconds max_sleep) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::nanoseconds>(at_most);
  Seconds pause(20e-6);
  while (true) {
    bool done = true;
    for (std::size_t i = 0; i < count; ++i) done = test(requests[i]) && done;
    if (done) return true;
    const auto now = std::chrono::steady_clock::now();
    if (now >= until) return false;
    std::this_thread::sleep_for(std::min<Seconds>(pause, until - now));
    pause = std::min(pause * 2, max_sleep);
  }
}

void Communicator::cancel(Request& request) { request.active = false; }

int Communicator::next_collective_tag() {
  const int tag = kReservedTagBase + collective_seq_;
  collective_seq_ = (collective_seq_ + 1) % kCollectiveTagWindow;
  return tag;
}

std::vector<std::string> Communicator::allgather(const std::string& mine, Seconds timeout) {
  const int tag = next_collective_tag();
  std::string packed;
  if (rank() == 0) {
    std::vector<std::string> all(size());
    all[0] = mine;
    for (int r = 1; r < size(); ++r) all[r] = recv_string(r, tag, timeout);
    packed = pack(all);
    for (int r = 1; r < size(); ++r) send_string(r, tag, packed, timeout);
  } else {
    send_string(0, tag, mine, timeout);
    packed = recv_string(0, tag, timeout);
  }
  auto all = unpack(packed);
  if (static_cast<int>(all.size()) != size()) fail(ErrorKind::comm, "malformed allgather result");
  return all;
}

void Communicator::barrier(Seconds timeout) { allgather(std::string(), timeout); }

std::optional<Error> agree(Communicator& comm, const Error* local_error, Seconds timeout) {
  std::optional<Error> first_timeout;
  const auto all = comm.allgather(error_to_wire(local_error), timeout);
  for (std::size_t r = 0; r < all.size(); ++r) {
    auto err = error_from_wire(all[r], fmt::format("rank {}: ", r));
    if (err && err->kind() != ErrorKind::timeout) return err;
    if (err && !first_timeout) first_timeout = std::move(err);
  }
  return first_timeout;
}

void agree_or_throw(Communicator& comm, const Error* local_error, Seconds timeout) {
  if (auto err = agree(comm, local_error, timeout)) throw *err;
}

std::string error_to_wire(const Error* error) {
  if (error == nullptr) return "";
  return fmt::format("{}\n{}", static_cast<int>(error->kind()), error->what());
}

std::optional<Error> error_from_wire(const std::string& text, const std::string& prefix) {
  if (text.empty()) return std::nullopt;
  const auto nl = text.find('\n');
  return Error(static_cast<ErrorKind>(std::stoi(text.substr(0, nl))), prefix + text.substr(nl + 1));
}

StopReason first_stop(StopReason first, StopReason second) {
  return first == StopReason::none || (!is_signal(first) && is_signal(second)) ? second : first;
}

Vote combine(const Vote& first, const Vote& second) {
  Vote out = first;
  out.stop = first_stop(first.stop, second.stop);
  out.skip = first.skip || second.skip;
  out.fail_check = first.fail_check || second.fail_check;
  if (!out.error) out.error = second.error;
  return out;
}

std::string vote_to_wire(const Vote& vote) {
  return fmt::format("{} {} {}\n{}", static_cast<int>(vote.stop), vote.skip ? 1 : 0, vote.fail_check ? 1 : 0,
                     error_to_wire(vote.error ? &*vote.error : nullptr));
}

Vote vote_from_wire(const std::string& text, const std::string& prefix) {
  int stop = 0, skip = 0, fail_check = 0;
  const auto nl = text.find('\n');
  std::sscanf(text.substr(0, nl).c_str(), "%d %d %d", &stop, &skip, &fail_check);
  return Vote{static_cast<StopReason>(stop), skip != 0, fail_check != 0, error_from_wire(text.substr(nl + 1), prefix)};
}

Vote agree_votes(Communicator& comm, const Vote& mine, Seconds timeout) {
  Vote all;
  for (const auto& text : comm.allgather(vote_to_wire(mine), timeout)) all = combine(all, vote_from_wire(text, ""));
  return all;
}

}  // namespace xb::comm
