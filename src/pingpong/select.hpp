// Which transport carries a pair, decided identically on both ranks from
// what every rank announced about itself (host, GPUs, NCCL, CUDA-aware MPI).
#pragma once

#include <functional>
#include <string>
#include <vector>

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
  std::uint64_t shm_free = 0;  // bytes free in /dev/shm here
  comm::GpuBuffers mpi_gpu = comm::GpuBuffers::unknown;  // after --cuda-aware
  // PCI bus id of each GPU above, and the bus ids that GPU reaches by peer
  // access (itself included). Bus ids, not CUDA ordinals, because ranks may
  // see different CUDA_VISIBLE_DEVICES.
  std::string bus_as_dev1, bus_as_dev2;
  std::vector<std::string> peers_as_dev1, peers_as_dev2;
};

// A GPU's PCI bus id and the bus ids it can reach by peer access.
struct GpuIdentity {
  std::string bus;
  std::vector<std::string> peers;
};
GpuIdentity gpu_identity(int device);  // asks CUDA
// Number of CUDA devices, 0 when there is no GPU or no usable driver.
int device_count_or_zero() noexcept;

std::string to_json(const RankInfo& info);
RankInfo rank_info_from_json(const std::string& text);

// Collective: every rank's announcement, in rank order. Each rank fills in
// its rank, host and whether MPI takes GPU buffers (`cuda_aware`, or what
// MPI says), then `gpus` adds the GPUs it holds; an error there is agreed
// by all ranks and thrown on each.
std::vector<RankInfo> announce(comm::Communicator& c, CudaAware cuda_aware, comm::Seconds timeout,
                               const std::function<void(RankInfo&)>& gpus);

// Resolves an endpoint on this rank: a GPU without id maps to
// local_rank % device_count. Error(no_device) when a GPU is asked for and
// there is none, Error(usage) when the id is out of range.
int resolve_device(const Endpoint& e, int local_rank, int device_count);

// Whether a's dev1 GPU and b's dev2 GPU are on one host and reach each
// other by peer access (both directions: each side stores into the other).
bool peer_access(const RankInfo& a, const RankInfo& b);

// The transport for initiator `a` (holding dev1's buffer on gpu_a, -1 for
// host) and responder `b`. `requested` automatic picks the best path:
// host-host mpi; GPUs on one host with peer access device, without it ipc;
// a host and a GPU on one host device when a's /dev/shm has `shm_need`
// bytes free (the device path's segment); GPUs on two hosts nccl; else mpi
// when the GPU side's MPI is CUDA-aware, else staged. An explicit request
// that cannot work throws Error(usage) naming the alternatives.
TransportKind choose_transport(TransportKind requested, const RankInfo& a, int gpu_a, const RankInfo& b, int gpu_b,
                               std::uint64_t shm_need = 0);

}  // namespace xb::pingpong
