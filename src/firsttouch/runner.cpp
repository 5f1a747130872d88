#include "firsttouch/runner.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "machine/cuda_check.hpp"
#include "base/fault.hpp"
#include "base/stop.hpp"
#include "base/time_budget.hpp"
#include "base/units.hpp"
#include "firsttouch/path.hpp"
#include "pingpong/nccl_api.hpp"
#include "pingpong/select.hpp"
#include "firsttouch/first_touch_json.hpp"

namespace xb::firsttouch {
namespace {

using Clock = std::chrono::steady_clock;

std::uint64_t free_bytes_of(int device) {
  if (device < 0) {
    const long pages = sysconf(_SC_AVPHYS_PAGES);
    const long page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : 0;
  }
  std::size_t free = 0, total = 0;
  XB_CUDA_CHECK(cudaSetDevice(device));
  XB_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  return free;
}

// The pieces of one rank's part in the run. `path` is null on the ranks
// between the sender and the receiver.
struct Roles {
  comm::Communicator* comm = nullptr;
  std::unique_ptr<Path> path;
  bool sender = false;
  int peer = -1;
  comm::Seconds timeout{60};
};

void check_fits(std::uint64_t need, std::uint64_t free, int device) {
  if (need <= free) return;
  const std::string where = device < 0 ? std::string("host memory") : fmt::format("gpu {}", device);
  fail(ErrorKind::resources,
       fmt::format("a buffer of {} bytes does not fit: {} has {} bytes ({}) free", need, where, free, bytes_label(free)));
}

// This rank's GPU for announce(); only the sender and the receiver touch one.
void local_gpu(pingpong::RankInfo& info, const comm::Communicator& c, const Options& o, const Environment& env) {
  const bool sender = c.rank() == 0;
  if (!sender && c.rank() != c.size() - 1) return;
  int device = -1;
  if (o.memory == Memory::gpu) {
    device = pingpong::resolve_device(pingpong::Endpoint{true, -1}, info.local_rank, env.device_count());
    info.nccl = env.nccl_available();
  }
  (sender ? info.gpu_as_dev1 : info.gpu_as_dev2) = device;
  check_fits(largest_allocation(o), env.free_bytes(device), device);
}

// One timed sub-iteration on the sender: from the start of the send until
// the receiver acknowledges that the message has landed.
double one_send(const Roles& r, std::size_t bytes, int sub, Phases& phases) {
  char ack = 0;
  if (!r.sender) {
    r.path->transfer(bytes, sub, phases);
    r.comm->send(r.peer, kTagAck, &ack, 1, r.timeout);
    return 0;
  }
  const auto t0 = Clock::now();
  r.path->transfer(bytes, sub, phases);
  r.comm->recv(r.peer, kTagAck, &ack, 1, r.timeout);
  return seconds_since(t0);
}

struct Iteration {
  std::vector<double> times_s;
  Phases phases;
};

Iteration run_iteration(const Roles& r, std::uint64_t alloc_bytes, const Options& o) {
  Iteration it;
  comm::agreed_step(*r.comm, r.timeout, [&] {
    if (!r.path) return;
    const double s = r.path->allocate(alloc_bytes);
    (r.sender ? it.phases.alloc_sender_s : it.phases.alloc_receiver_s) = s;
  });
  comm::agreed_step(*r.comm, r.timeout, [&] {
    if (!r.path) return;
    for (int sub = 0; sub < o.sub_iterations; ++sub) {
      const double s = one_send(r, o.p2p_bytes, sub, it.phases);
      if (r.sender) it.times_s.push_back(s);
    }
  });
  // The receiver unmaps before the sender frees what it mapped.
  comm::agreed_step(*r.comm, r.timeout, [&] {
    if (r.path) r.path->unmap();
  });
  if (r.path) r.path->free_buffer();
  return it;
}

Result describe(const Roles& r, const Options& o, const std::vector<pingpong::RankInfo>& infos,
                pingpong::TransportKind kind) {
  Result res;
  res.mode = o.sweep ? "sweep" : "seed";
  res.transport = pingpong::to_string(kind);
  res.world_size = r.comm->size();
  res.sender_rank = 0;
  res.receiver_rank = r.comm->size() - 1;
  res.sender_host = infos.front().host;
  res.receiver_host = infos.back().host;
  res.sender_gpu = infos.front().gpu_as_dev1;
  res.receiver_gpu = infos.back().gpu_as_dev2;
  res.iterations = o.iterations;
  res.sub_iterations = o.sub_iterations;
  res.p2p_bytes = o.p2p_bytes;
  return res;
}

void set_up_path(Roles& r, Result& res, pingpong::TransportKind kind, int device, const Options& o) {
  const bool participant = r.comm->rank() == 0 || r.comm->rank() == r.comm->size() - 1;
  comm::agreed_step(*r.comm, r.timeout, [&] {
    if (!participant) return;
    PathContext ctx{r.comm, r.peer, r.sender, device, o.p2p_bytes, r.timeout};
    r.path = make_path(kind, ctx);
  });
  comm::agreed_step(*r.comm, r.timeout, [&] {
    if (!r.path) return;
    const auto t0 = Clock::now();
    r.path->connect();
    if (kind == pingpong::TransportKind::nccl) res.connect_s = seconds_since(t0);
  });
}

void gather_phases(const Roles& r, Result& res, const std::vector<std::vector<Phases>>& mine) {
  const auto all = r.comm->allgather(records::phases_to_wire(mine), r.timeout);
  for (const auto& wire : all) {
    const auto theirs = records::phases_from_wire(wire);
    for (std::size_t v = 0; v < theirs.size() && v < res.variants.size(); ++v) {
      auto& phases = res.variants[v].phases;
      for (std::size_t i = 0; i < theirs[v].size() && i < phases.size(); ++i) merge(phases[i], theirs[v][i]);
    }
  }
}

// The start of every iteration is a collective agreement (comm::Vote):
// each rank's stop request (signal, deadline) and injected fault, rank 0's
// time-limit decision; all ranks then do the same thing.
comm::Vote agree_iteration(const Roles& r, const std::string& key, const CellCost& next, RunControl* control) {
  comm::Vote mine;
  if (control != nullptr && r.comm->rank() == 0)
    mine.skip = control->decide(key, next) == RunControl::Decision::over_time;
  const FaultKind fault = control != nullptr && !mine.skip ? control->fault({key}) : FaultKind::none;
  mine.error = comm::error_of([&] {
    inject_fault(fault, fmt::format("rank {}, iteration {}", r.comm->rank(), key));
    if (fault == FaultKind::verify)
      fail(ErrorKind::verification, fmt::format("rank {}, iteration {}: injected data check failure", r.comm->rank(), key));
  });
  mine.stop = stop_requested();
  return comm::agree_votes(*r.comm, mine, r.timeout);
}

void notify(const Roles& r, const std::function<void(const Result&)>& fn, const Result& res) {
  if (fn && r.comm->rank() == 0) fn(res);
}

// Every iteration of every variant; returns false when the run stopped.
// The variant is in res.variants from its start, so `obs` sees it grow.
bool run_variant(const Roles& r, const Options& options, const Variant& v, std::size_t vi, RunControl* control,
                 const Observer& obs, Result& res, std::vector<std::vector<Phases>>& mine) {
  res.variants.push_back(VariantResult{variant_label(options, v), options.memory == Memory::gpu ? "gpu" : "host",
                                       v.buffer_bytes, v.overalloc_bytes, {}, {}, {}});
  VariantResult& vr = res.variants.back();
  notify(r, obs.variant_started, res);
  mine.emplace_back();
  bool go_on = true;
  for (int i = 0; i < options.iterations && go_on; ++i) {
    const std::string key = fmt::format("{}/{}", vi, i);
    const CellCost cost{vr.label, static_cast<double>(v.alloc_bytes()), 0};
    const comm::Vote go = agree_iteration(r, key, cost, control);
    if (go.stop != StopReason::none) {
      acknowledge_stop();  // every rank stops at this iteration
      res.completion.stop = go.stop;
      for (int k = i; k < options.iterations; ++k) res.completion.not_run.push_back(fmt::format("{}/{}", vi, k));
      go_on = false;
    } else if (go.skip) {
      res.completion.not_run.push_back(key);
    } else if (go.error) {
      vr.failed.push_back(fmt::format("{}: {}", key, go.error->what()));
    } else {
      const auto t0 = Clock::now();
      Iteration it = run_iteration(r, v.alloc_bytes(), options);
      vr.times_s.push_back(std::move(it.times_s));
      vr.phases.push_back(it.phases);
      mine.back().push_back(std::move(it.phases));
      if (control != nullptr) control->after_cell(CellCost{vr.label, cost.bytes, seconds_since(t0)});
      notify(r, obs.iteration_done, res);
    }
  }
  notify(r, obs.variant_done, res);
  return go_on;
}

}  // namespace

std::unique_ptr<Path> make_path(pingpong::TransportKind kind, const PathContext& ctx) {
  switch (kind) {
    case pingpong::TransportKind::mpi: return make_mpi_path(ctx, false);
    case pingpong::TransportKind::staged: return make_mpi_path(ctx, true);
    case pingpong::TransportKind::ipc: return make_ipc_path(ctx);
    case pingpong::TransportKind::nccl: return make_nccl_path(ctx);
    case pingpong::TransportKind::device:  // refused by validate(): first-touch measures library paths
    case pingpong::TransportKind::automatic: break;
  }
  fail(ErrorKind::internal, "make_path: the transport must be chosen first");
}

Environment default_environment() {
  return Environment{pingpong::device_count_or_zero, pingpong::nccl::available, free_bytes_of};
}

std::uint64_t largest_allocation(const Options& options) {
  std::uint64_t most = options.p2p_bytes;
  for (const auto& v : variants(options)) most = std::max(most, v.alloc_bytes());
  return most;
}

Result run(comm::Communicator& comm, const Options& options, const Environment& env, RunControl* control,
           const Observer& observer) {
  validate(options);
  if (comm.size() < 2) {
    fail(ErrorKind::comm, fmt::format("first-touch needs 2 or more ranks, got {}; launch it with: "
                                      "mpirun -np 2 xferbench first-touch ...",
                                      comm.size()));
  }
  Roles r;
  r.comm = &comm;
  r.sender = comm.rank() == 0;
  r.peer = r.sender ? comm.size() - 1 : 0;
  r.timeout = comm::Seconds(options.timeout_s);
  const auto infos = pingpong::announce(comm, options.cuda_aware, r.timeout, [&](pingpong::RankInfo& info) {
    local_gpu(info, comm, options, env);
  });
  // Every rank decides from the same announcements, so all throw alike.
  const auto kind = pingpong::choose_transport(options.transport, infos.front(), infos.front().gpu_as_dev1,
                                               infos.back(), infos.back().gpu_as_dev2);
  Result res = describe(r, options, infos, kind);
  const int device = r.sender ? res.sender_gpu : res.receiver_gpu;
  set_up_path(r, res, kind, device, options);
  const auto t0 = Clock::now();
  run_iteration(r, options.p2p_bytes, options);
  res.warmup_s = seconds_since(t0);
  std::vector<std::vector<Phases>> mine;
  const auto all = variants(options);
  try {
    for (std::size_t vi = 0; vi < all.size(); ++vi) {
      if (run_variant(r, options, all[vi], vi, control, observer, res, mine)) continue;
      for (std::size_t rest = vi + 1; rest < all.size(); ++rest)
        for (int k = 0; k < options.iterations; ++k) res.completion.not_run.push_back(fmt::format("{}/{}", rest, k));
      break;
    }
  } catch (const Error& e) {
    // Agreed by every rank inside an iteration: keep what was measured.
    // A peer that stopped answering cannot take part in the gathering.
    if (e.kind() == ErrorKind::timeout || e.kind() == ErrorKind::comm) throw;
    res.completion.error = e.what();
    res.completion.error_kind = e.kind();
  }
  gather_phases(r, res, mine);
  settle(res.completion, "iteration");
  return res;
}

}  // namespace xb::firsttouch
