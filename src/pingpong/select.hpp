// Which transport carries a pair, decided identically on both ranks from
// what every rank announced about itself (host, GPUs, NCCL, CUDA-aware MPI).
#pragma once

#include <string>

#include "comm/communicator.hpp"
#include "pingpong/options.hpp"

namespace xb::pingpong {

struct RankInfo {
  int rank = 0;
  std::string host;
  int local_rank = 0;
  int gpu_as_dev1 = -1;  // resolved GPU when this rank holds dev1's buffer; -1 host
  int gpu_as_dev2 = -1;
  bool nccl = false;     // libnccl.so.2 loads here
  comm::GpuBuffers mpi_gpu = comm::GpuBuffers::unknown;  // after --cuda-aware
};

std::string to_json(const RankInfo& info);
RankInfo rank_info_from_json(const std::string& text);

// Resolves an endpoint on this rank: a GPU without id maps to
// local_rank % device_count. Error(no_device) when a GPU is asked for and
// there is none, Error(usage) when the id is out of range.
int resolve_device(const Endpoint& e, int local_rank, int device_count);

// The transport for initiator `a` (holding dev1's buffer on gpu_a, -1 for
// host) and responder `b`. `requested` automatic picks the best path:
// host-host mpi; GPUs on one host ipc; GPUs on two hosts nccl; else mpi
// when the GPU side's MPI is CUDA-aware, else staged. An explicit request
// that cannot work throws Error(usage) naming the alternatives.
TransportKind choose_transport(TransportKind requested, const RankInfo& a, int gpu_a, const RankInfo& b,
                               int gpu_b);

}  // namespace xb::pingpong
