#include "comm/inproc_comm.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>

#include <fmt/format.h>

namespace xb::comm {

class InprocWorld {
 public:
  explicit InprocWorld(const InprocOptions& options)
      : size_(options.size), hosts_(options.hosts), arrived_(static_cast<std::size_t>(std::max(options.size, 0))) {
    if (hosts_.empty()) hosts_.assign(size_, "node0");
    if (static_cast<int>(hosts_.size()) != size_) {
      fail(ErrorKind::internal, "inproc world: one host name per rank is needed");
    }
  }
  int size() const { return size_; }
  const std::string& host(int rank) const { return hosts_.at(rank); }
  std::vector<int> node_ranks(int rank) const {
    std::vector<int> out;
    for (int r = 0; r < size_; ++r)
      if (hosts_[r] == hosts_[rank]) out.push_back(r);
    return out;
  }

  void post(int src, int dst, int tag, const void* data, std::size_t bytes) {
    const auto* p = static_cast<const unsigned char*>(data);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      boxes_[{src, dst, tag}].emplace_back(p, p + bytes);
    }
    arrived_[static_cast<std::size_t>(dst)].notify_all();
  }

  // Takes the oldest message from src to dst with tag, or returns false at
  // the deadline.
  bool take(int src, int dst, int tag, std::vector<unsigned char>& out,
            std::chrono::steady_clock::time_point deadline) {
    std::unique_lock<std::mutex> lock(mutex_);
    auto& box = boxes_[{src, dst, tag}];
    auto& cv = arrived_[static_cast<std::size_t>(dst)];
    if (!cv.wait_until(lock, deadline, [&] { return !box.empty(); })) return false;
    out = std::move(box.front());
    box.pop_front();
    return true;
  }

 private:
  int size_;
  std::vector<std::string> hosts_;
  std::mutex mutex_;
  // One per receiver: a message wakes only the rank it is for (with one
  // shared variable, 1,024 simulated ranks spent their time waking up).
  std::vector<std::condition_variable> arrived_;
  std::map<std::tuple<int, int, int>, std::deque<std::vector<unsigned char>>> boxes_;
};

namespace {

// What an inproc Request holds: a pending receive (a send completes at once).
struct PendingRecv {
  void* data;
  std::uint64_t bytes;
};
static_assert(sizeof(PendingRecv) <= sizeof(Request::storage));

}  // namespace

InprocComm::InprocComm(std::shared_ptr<InprocWorld> world, int rank)
    : world_(std::move(world)), rank_(rank) {}

int InprocComm::size() const { return world_->size(); }
int InprocComm::local_rank() const {
  const auto node = node_ranks();
  return static_cast<int>(std::find(node.begin(), node.end(), rank_) - node.begin());
}
int InprocComm::local_size() const { return static_cast<int>(node_ranks().size()); }
std::string InprocComm::host_name() const { return world_->host(rank_); }

Request InprocComm::isend(int peer, int tag, const void* data, std::size_t bytes) {
  world_->post(rank_, peer, tag, data, bytes);
  return Request{};
}

Request InprocComm::irecv(int peer, int tag, void* data, std::size_t bytes) {
  Request r;
  const PendingRecv p{data, bytes};
  std::memcpy(r.storage.data(), &p, sizeof p);
  r.peer = peer;
  r.tag = tag;
  r.active = true;
  return r;
}

std::vector<int> InprocComm::node_ranks() const { return world_->node_ranks(rank_); }

bool InprocComm::complete(Request& request, std::chrono::steady_clock::time_point deadline) {
  if (!request.active) return true;
  PendingRecv p{};
  std::memcpy(&p, request.storage.data(), sizeof p);
  std::vector<unsigned char> msg;
  if (!world_->take(request.peer, rank_, request.tag, msg, deadline)) return false;
  request.active = false;
  if (msg.size() != p.bytes) {
    fail(ErrorKind::comm, fmt::format("rank {}: message from rank {} (tag {}) has {} bytes, expected {}", rank_,
                                      request.peer, request.tag, msg.size(), p.bytes));
  }
  if (!msg.empty()) std::memcpy(p.data, msg.data(), msg.size());
  return true;
}

bool InprocComm::test(Request& request) { return complete(request, std::chrono::steady_clock::now()); }

// Blocks on the receiver's condition variable: a thousand simulated ranks
// waiting this way cost nothing, where polling would keep two cores busy.
bool InprocComm::wait_for(Request* requests, std::size_t count, Seconds at_most, Seconds /*max_sleep*/) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::nanoseconds>(at_most);
  for (std::size_t i = 0; i < count; ++i)
    if (!complete(requests[i], deadline)) return false;
  return true;
}

void InprocComm::wait_all(Request* requests, std::size_t count, Seconds timeout) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::nanoseconds>(timeout);
  for (std::size_t i = 0; i < count; ++i) {
    if (complete(requests[i], deadline)) continue;
    const int peer = requests[i].peer, tag = requests[i].tag;
    for (std::size_t k = i; k < count; ++k) requests[k].active = false;
    fail(ErrorKind::timeout, timeout_message(rank_, peer, tag, timeout));
  }
}

void run_ranks(const InprocOptions& options, const std::function<void(Communicator&)>& body) {
  auto world = std::make_shared<InprocWorld>(options);
  std::vector<std::exception_ptr> errors(options.size);
  std::vector<std::thread> threads;
  for (int r = 0; r < options.size; ++r) {
    threads.emplace_back([&, r] {
      InprocComm comm(world, r);
      try {
        body(comm);
      } catch (...) {
        errors[r] = std::current_exception();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace xb::comm
