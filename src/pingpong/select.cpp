#include "pingpong/select.hpp"

#include <algorithm>

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "machine/cuda_check.hpp"
#include "base/error.hpp"
#include "pingpong/shm.hpp"
#include "pingpong/transport.hpp"

namespace xb::pingpong {

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RankInfo, rank, host, local_rank, gpu_as_dev1, gpu_as_dev2, nccl, shm_free, mpi_gpu,
                                   bus_as_dev1, bus_as_dev2, peers_as_dev1, peers_as_dev2)

std::string to_json(const RankInfo& info) { return nlohmann::json(info).dump(); }
RankInfo rank_info_from_json(const std::string& text) { return nlohmann::json::parse(text).get<RankInfo>(); }

std::vector<RankInfo> announce(comm::Communicator& c, CudaAware cuda_aware, comm::Seconds timeout,
                               const std::function<void(RankInfo&)>& gpus) {
  RankInfo mine;
  mine.rank = c.rank();
  mine.host = c.host_name();
  mine.local_rank = c.local_rank();
  mine.shm_free = shm_free_bytes();
  mine.mpi_gpu = cuda_aware == CudaAware::yes  ? comm::GpuBuffers::yes
                 : cuda_aware == CudaAware::no ? comm::GpuBuffers::no
                                               : c.gpu_buffers();
  comm::agreed_step(c, timeout, [&] { gpus(mine); });
  std::vector<RankInfo> all;
  for (const auto& text : c.allgather(to_json(mine), timeout)) all.push_back(rank_info_from_json(text));
  return all;
}

int device_count_or_zero() noexcept {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no device" error
    return 0;
  }
  return n;
}

GpuIdentity gpu_identity(int device) {
  const auto bus_of = [](int d) {
    char id[32] = {};
    XB_CUDA_CHECK(cudaDeviceGetPCIBusId(id, sizeof id, d));
    return std::string(id);
  };
  GpuIdentity out;
  out.bus = bus_of(device);
  out.peers.push_back(out.bus);
  int count = 0;
  XB_CUDA_CHECK(cudaGetDeviceCount(&count));
  for (int d = 0; d < count; ++d) {
    int can = 0;
    if (d != device) XB_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, device, d));
    if (can != 0) out.peers.push_back(bus_of(d));
  }
  return out;
}

bool peer_access(const RankInfo& a, const RankInfo& b) {
  const auto reaches = [](const std::vector<std::string>& peers, const std::string& bus) {
    return !bus.empty() && std::find(peers.begin(), peers.end(), bus) != peers.end();
  };
  return a.host == b.host && reaches(a.peers_as_dev1, b.bus_as_dev2) && reaches(b.peers_as_dev2, a.bus_as_dev1);
}

int resolve_device(const Endpoint& e, int local_rank, int device_count) {
  if (!e.gpu) return -1;
  if (device_count <= 0) {
    fail(ErrorKind::no_device, fmt::format("{} asked for, but this node has no usable GPU", to_string(e)));
  }
  if (e.device < 0) return local_rank % device_count;
  if (e.device >= device_count) {
    fail(ErrorKind::usage, fmt::format("gpu {} is out of range: this node has {} GPU(s) (ids 0..{})", e.device,
                                       device_count, device_count - 1));
  }
  return e.device;
}

namespace {

void require_cuda_aware(const RankInfo& r) {
  if (r.mpi_gpu == comm::GpuBuffers::yes) return;
  const char* state = r.mpi_gpu == comm::GpuBuffers::no ? "is not CUDA-aware" : "could not be checked for CUDA support";
  fail(ErrorKind::usage,
       fmt::format("--transport mpi with GPU buffers needs a CUDA-aware MPI, and the MPI of rank {} ({}) {}; "
                   "use --transport staged, ipc or nccl, or --cuda-aware yes if you know it is",
                   r.rank, r.host, state));
}

void require_gpus(const char* name, int gpu_a, int gpu_b) {
  if (gpu_a < 0 || gpu_b < 0) {
    fail(ErrorKind::usage, fmt::format("--transport {} needs GPU buffers on both ranks (--dev1 gpu --dev2 gpu); "
                                       "use mpi for host buffers",
                                       name));
  }
}

void require_one_host(const char* name, const RankInfo& a, const RankInfo& b) {
  if (a.host == b.host) return;
  fail(ErrorKind::usage, fmt::format("--transport {} needs both ranks on one host, but rank {} is on {} and rank {} on "
                                     "{}; use nccl or staged",
                                     name, a.rank, a.host, b.rank, b.host));
}

// Both ranks' GPU buffers on one GPU: two processes' kernels then take turns
// on it (time slices of about 2 ms on an H200, measured 2026-11-23), so two
// persistent kernels that wait for each other measure the scheduler.
bool same_gpu(const RankInfo& a, int gpu_a, const RankInfo& b, int gpu_b) {
  return gpu_a >= 0 && gpu_b >= 0 && a.host == b.host && !a.bus_as_dev1.empty() && a.bus_as_dev1 == b.bus_as_dev2;
}

TransportKind require_device_path(const RankInfo& a, int gpu_a, const RankInfo& b, int gpu_b) {
  if (same_gpu(a, gpu_a, b, gpu_b)) {
    fail(ErrorKind::usage, fmt::format("--transport device needs the two ranks on two GPUs, but rank {} and rank {} "
                                       "both use the GPU at {}: the kernels of two processes take turns on one GPU, "
                                       "so the time would be the scheduler's; use two GPUs, or --transport ipc",
                                       a.rank, b.rank, a.bus_as_dev1));
  }
  require_one_host("device", a, b);
  if (gpu_a >= 0 && gpu_b >= 0 && !peer_access(a, b)) {
    fail(ErrorKind::usage, fmt::format("--transport device needs peer access between gpu {} of rank {} and gpu {} of "
                                       "rank {}, and CUDA reports none; use --transport ipc, nccl or staged",
                                       gpu_a, a.rank, gpu_b, b.rank));
  }
  return TransportKind::device;
}

void require_nccl(const RankInfo& r) {
  if (!r.nccl) {
    fail(ErrorKind::comm, fmt::format("nccl transport unavailable on rank {} ({}): cannot load libnccl.so.2; "
                                      "use --transport staged or ipc",
                                      r.rank, r.host));
  }
}

}  // namespace

TransportKind choose_transport(TransportKind requested, const RankInfo& a, int gpu_a, const RankInfo& b, int gpu_b,
                               std::uint64_t shm_need) {
  const bool any_gpu = gpu_a >= 0 || gpu_b >= 0;
  const bool both_gpu = gpu_a >= 0 && gpu_b >= 0;
  const bool same_host = a.host == b.host;
  switch (requested) {
    case TransportKind::automatic: {
      if (!any_gpu) return TransportKind::mpi;
      // A host and a GPU on one host: the GPU's kernel moves the data through
      // shared memory, when /dev/shm has room for it.
      if (!both_gpu && same_host && a.shm_free >= shm_need) return TransportKind::device;
      if (both_gpu && same_host)
        return peer_access(a, b) && !same_gpu(a, gpu_a, b, gpu_b) ? TransportKind::device : TransportKind::ipc;
      if (both_gpu && a.nccl && b.nccl) return TransportKind::nccl;
      const bool aware = (gpu_a < 0 || a.mpi_gpu == comm::GpuBuffers::yes) &&
                         (gpu_b < 0 || b.mpi_gpu == comm::GpuBuffers::yes);
      return aware ? TransportKind::mpi : TransportKind::staged;
    }
    case TransportKind::mpi:
      if (gpu_a >= 0) require_cuda_aware(a);
      if (gpu_b >= 0) require_cuda_aware(b);
      return TransportKind::mpi;
    case TransportKind::staged:
      // With host buffers on both sides there is nothing to stage.
      return any_gpu ? TransportKind::staged : TransportKind::mpi;
    case TransportKind::ipc:
      require_gpus("ipc", gpu_a, gpu_b);
      require_one_host("ipc", a, b);
      return TransportKind::ipc;
    case TransportKind::nccl:
      require_gpus("nccl", gpu_a, gpu_b);
      require_nccl(a);
      require_nccl(b);
      return TransportKind::nccl;
    case TransportKind::device: return require_device_path(a, gpu_a, b, gpu_b);
  }
  fail(ErrorKind::internal, "unknown transport");
}

std::unique_ptr<Transport> make_transport(TransportKind kind, const PairContext& ctx) {
  switch (kind) {
    case TransportKind::mpi: return make_mpi_transport(ctx);
    case TransportKind::staged: return make_staged_transport(ctx);
    case TransportKind::ipc: return make_ipc_transport(ctx);
    case TransportKind::nccl: return make_nccl_transport(ctx);
    case TransportKind::device: return make_device_transport(ctx);
    case TransportKind::automatic: break;
  }
  fail(ErrorKind::internal, "make_transport: the transport must be chosen first");
}

}  // namespace xb::pingpong
