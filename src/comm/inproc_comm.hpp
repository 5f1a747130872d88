// N ranks as threads of one process, for unit tests of multi-rank logic
// without mpirun. Sends are buffered (they complete at once, like an eager
// MPI send); receives match (source, tag) in order, as MPI's
// non-overtaking rule does. Host memory only.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "comm/communicator.hpp"

namespace xb::comm {

class InprocWorld;

class InprocComm final : public Communicator {
 public:
  InprocComm(std::shared_ptr<InprocWorld> world, int rank);
  int rank() const override { return rank_; }
  int size() const override;
  int local_rank() const override;
  int local_size() const override;
  std::string host_name() const override;
  std::string name() const override { return "inproc"; }

  Request isend(int peer, int tag, const void* data, std::size_t bytes) override;
  Request irecv(int peer, int tag, void* data, std::size_t bytes) override;
  void wait_all(Request* requests, std::size_t count, Seconds timeout) override;
  std::vector<int> node_ranks() const override;
  bool test(Request& request) override;
  bool wait_for(Request* requests, std::size_t count, Seconds at_most, Seconds max_sleep) override;

 private:
  // Takes the message of a pending receive by `deadline`: false if none came.
  bool complete(Request& request, std::chrono::steady_clock::time_point deadline);

  std::shared_ptr<InprocWorld> world_;
  int rank_;
};

// Host names per rank; ranks with the same name count as one node (for
// local_rank and same-host checks). Empty: every rank on "node0".
struct InprocOptions {
  int size = 2;
  std::vector<std::string> hosts;
};

// Runs `body` on `size` threads, one communicator each, and joins them.
// An exception escaping a rank's body is rethrown after all threads end
// (the first one by rank); the others see its death as a timeout.
void run_ranks(const InprocOptions& options, const std::function<void(Communicator&)>& body);

}  // namespace xb::comm
