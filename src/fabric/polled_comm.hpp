// The fabric's view of the world communicator: the same, except that
// blocking send and receive post a request and poll it (the base class's
// way) instead of the MPI communicator's blocking calls under a watchdog
// that ends the process when a peer stays silent. So a dead or hung peer
// costs the fabric one pair (Error(timeout) in that pair's record), not the
// process and with it every other pair. Polling costs small messages some
// of their speed over MPI (docs/fabric.md says how much); GPU transports
// use the communicator only to set up and agree.
#pragma once

#include "comm/communicator.hpp"

namespace xb::fabric {

class PolledComm final : public comm::Communicator {
 public:
  explicit PolledComm(comm::Communicator& inner) : inner_(inner) {}
  int rank() const override { return inner_.rank(); }
  int size() const override { return inner_.size(); }
  int local_rank() const override { return inner_.local_rank(); }
  int local_size() const override { return inner_.local_size(); }
  std::string host_name() const override { return inner_.host_name(); }
  comm::GpuBuffers gpu_buffers() const override { return inner_.gpu_buffers(); }
  std::string name() const override { return inner_.name(); }
  comm::Request isend(int peer, int tag, const void* data, std::size_t bytes) override {
    return inner_.isend(peer, tag, data, bytes);
  }
  comm::Request irecv(int peer, int tag, void* data, std::size_t bytes) override {
    return inner_.irecv(peer, tag, data, bytes);
  }
  void wait_all(comm::Request* requests, std::size_t count, comm::Seconds timeout) override {
    inner_.wait_all(requests, count, timeout);
  }
  void mark_peer_lost() override { inner_.mark_peer_lost(); }
  std::vector<int> node_ranks() const override { return inner_.node_ranks(); }
  bool test(comm::Request& request) override { return inner_.test(request); }
  bool wait_for(comm::Request* requests, std::size_t count, comm::Seconds at_most, comm::Seconds max_sleep) override {
    return inner_.wait_for(requests, count, at_most, max_sleep);
  }
  void cancel(comm::Request& request) override { inner_.cancel(request); }

 private:
  comm::Communicator& inner_;
};

}  // namespace xb::fabric
