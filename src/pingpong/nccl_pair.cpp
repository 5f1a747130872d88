#include "pingpong/nccl_pair.hpp"

#include "machine/cuda_check.hpp"
#include "machine/cuda_raii.hpp"
#include "base/error.hpp"

namespace xb::pingpong::nccl {

PairComm::PairComm() : api_(api()) {}

PairComm::~PairComm() {
  if (comm_ == nullptr) return;
  if (healthy_) {
    api_.CommDestroy(comm_);
  } else {
    api_.CommAbort(comm_);
  }
}

void PairComm::connect(comm::Communicator& c, int peer, int tag, bool first, int device, comm::Seconds timeout) {
  first_ = first;
  UniqueId id{};
  if (first) {
    check(api_.GetUniqueId(&id), "ncclGetUniqueId");
    c.send(peer, tag, &id, sizeof id, timeout);
  } else {
    c.recv(peer, tag, &id, sizeof id, timeout);
  }
  XB_CUDA_CHECK(cudaSetDevice(device));
  check(api_.CommInitRank(&comm_, 2, id, first ? 0 : 1), "ncclCommInitRank");
}

void PairComm::wait(cudaStream_t stream, const comm::Communicator& c, int peer, comm::Seconds timeout) {
  try {
    wait_stream(stream, timeout, comm::timeout_message(c.rank(), peer, -1, timeout) + " (in nccl)");
  } catch (const Error&) {
    healthy_ = false;
    throw;
  }
  int async = kSuccess;
  check(api_.CommGetAsyncError(comm_, &async), "ncclCommGetAsyncError");
  if (async != kSuccess) healthy_ = false;
  check(async, "an nccl operation");
}

}  // namespace xb::pingpong::nccl
