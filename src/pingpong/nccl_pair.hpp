// A two-rank NCCL communicator between this rank and one peer, bootstrapped
// over our own communicator. Used by pingpong's nccl transport and by the
// first-touch nccl path.
#pragma once

#include <cuda_runtime_api.h>

#include "comm/communicator.hpp"
#include "pingpong/nccl_api.hpp"

namespace xb::pingpong::nccl {

class PairComm {
 public:
  PairComm();  // throws Error(comm) naming the library when NCCL is missing
  // Destroyed when every wait succeeded, aborted otherwise: ncclCommDestroy
  // would wait for a peer that may be gone.
  ~PairComm();
  PairComm(const PairComm&) = delete;
  PairComm& operator=(const PairComm&) = delete;

  // The `first` rank creates the unique id and sends it with `tag`; the
  // other receives it; both then join as NCCL ranks 0 and 1 on `device`.
  void connect(comm::Communicator& c, int peer, int tag, bool first, int device, comm::Seconds timeout);
  // Polls `stream` until its NCCL work is done (a dead peer ends in
  // Error(timeout) naming it, not in a hang), then checks NCCL's
  // asynchronous error.
  void wait(cudaStream_t stream, const comm::Communicator& c, int peer, comm::Seconds timeout);

  Comm get() const noexcept { return comm_; }
  int peer_rank() const noexcept { return first_ ? 1 : 0; }  // the peer's NCCL rank
  const Api& fns() const noexcept { return api_; }

 private:
  const Api& api_;
  Comm comm_ = nullptr;
  bool first_ = false;
  bool healthy_ = true;
};

}  // namespace xb::pingpong::nccl
