// The mpi and staged first-touch paths. mpi hands the fresh buffer itself
// to MPI (GPU pointers need a CUDA-aware MPI), so whatever MPI does on the
// first use of a buffer (registration, IPC export in its GPU protocol) is
// inside the first copy: MPI does not expose it as a separate step. staged
// copies GPU -> pinned host -> MPI -> pinned host -> GPU; the pinned
// staging buffers are allocated once, as a staging user would.
#include "base/time_budget.hpp"
#include "machine/cuda_check.hpp"
#include "firsttouch/path.hpp"

namespace xb::firsttouch {

double Path::allocate(std::uint64_t bytes) {
  buf_ = Buffer();
  const auto t0 = std::chrono::steady_clock::now();
  buf_ = Buffer(ctx_.device >= 0 ? device_memory(ctx_.device) : host_memory(MemKind::pageable, kNoNumaPlacement),
                bytes, FaultIn::on_first_use);
  return seconds_since(t0);
}

namespace {

class MpiPath final : public Path {
 public:
  MpiPath(const PathContext& ctx, bool staging) : Path(ctx), stage_(staging && ctx.device >= 0) {
    if (stage_) staging_ = Buffer(host_memory(MemKind::mapped, kNoNumaPlacement), ctx.p2p_bytes);
  }

  void transfer(std::size_t bytes, int sub, Phases& phases) override {
    if (ctx_.sender) {
      const auto t0 = std::chrono::steady_clock::now();
      const void* src = buf_.ptr();
      if (stage_) {
        XB_CUDA_CHECK(cudaMemcpy(staging_.ptr(), buf_.ptr(), bytes, cudaMemcpyDeviceToHost));
        src = staging_.ptr();
      }
      ctx_.comm->send(ctx_.peer, kTagData, src, bytes, ctx_.timeout);
      record_copy(phases, sub, seconds_since(t0));
      return;
    }
    ctx_.comm->recv(ctx_.peer, kTagData, stage_ ? staging_.ptr() : buf_.ptr(), bytes, ctx_.timeout);
    if (stage_) XB_CUDA_CHECK(cudaMemcpy(buf_.ptr(), staging_.ptr(), bytes, cudaMemcpyHostToDevice));
  }

 private:
  bool stage_;
  Buffer staging_;
};

}  // namespace

std::unique_ptr<Path> make_mpi_path(const PathContext& ctx, bool staging) {
  return std::make_unique<MpiPath>(ctx, staging);
}

}  // namespace xb::firsttouch
