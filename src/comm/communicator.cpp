#include "comm/communicator.hpp"

#include <cstring>

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

std::string encode_error(const Error* err) {
  if (err == nullptr) return "";
  return fmt::format("{}\n{}", static_cast<int>(err->kind()), err->what());
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

bool Communicator::test(Request& r) {
  wait_all(&r, 1, Seconds(1e9));
  return true;
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

std::vector<double> Communicator::allgather(double mine, Seconds timeout) {
  std::string bytes(sizeof mine, '\0');
  std::memcpy(bytes.data(), &mine, sizeof mine);
  std::vector<double> out;
  for (const auto& item : allgather(bytes, timeout)) {
    double v = 0;
    if (item.size() != sizeof v) fail(ErrorKind::comm, "malformed allgather of doubles");
    std::memcpy(&v, item.data(), sizeof v);
    out.push_back(v);
  }
  return out;
}

void Communicator::barrier(Seconds timeout) { allgather(std::string(), timeout); }

Outcome agree(Communicator& comm, const Error* local_error, Seconds timeout) {
  const auto all = comm.allgather(encode_error(local_error), timeout);
  Outcome out;
  for (int pass = 0; pass < 2 && out.ok; ++pass) {
    for (std::size_t r = 0; r < all.size(); ++r) {
      if (all[r].empty()) continue;
      const auto nl = all[r].find('\n');
      const auto kind = static_cast<ErrorKind>(std::stoi(all[r].substr(0, nl)));
      if (pass == 0 && kind == ErrorKind::timeout) continue;
      out.ok = false;
      out.kind = kind;
      out.message = fmt::format("rank {}: {}", r, all[r].substr(nl + 1));
      break;
    }
  }
  return out;
}

void agree_or_throw(Communicator& comm, const Error* local_error, Seconds timeout) {
  const Outcome o = agree(comm, local_error, timeout);
  if (!o.ok) throw Error(o.kind, o.message);
}

}  // namespace xb::comm
