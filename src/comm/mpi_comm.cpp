// MPI implementation of the communicator: the only file that includes <mpi.h>.
#include "comm/mpi_comm.hpp"

#include <dlfcn.h>

// The deprecated MPI C++ bindings are not used, and their headers do not
// compile warning-free.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "base/stop.hpp"
#include "comm/launch_env.hpp"

namespace xb::comm {
namespace {

static_assert(sizeof(MPI_Request) <= sizeof(Request::storage));

// After a signal, a call blocked on a peer for longer than this (Watchdog)
// waits for a peer that has gone.
bool abandoned_after_signal(int rank, double stuck_s) {
  return signal_stop() != StopReason::none && !stop_relayed() && !stop_acknowledged() &&
         stuck_s > (rank == 0 ? 2.0 : 0.3);
}

[[noreturn]] void exit_abandoned(int rank, int peer) {
  std::fprintf(stderr, "xferbench: rank %d: stopping: rank %d stopped answering after the signal\n", rank, peer);
  std::fflush(stderr);
  _exit(stop_exit_code(signal_stop()));
}

// MPI counts are ints.
int mpi_count(std::size_t bytes) {
  if (bytes > INT_MAX) fail(ErrorKind::usage, fmt::format("message of {} bytes is above MPI's 2 GiB count", bytes));
  return static_cast<int>(bytes);
}

std::string mpi_error_text(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) return fmt::format("MPI error {}", code);
  return std::string(text, static_cast<std::size_t>(len));
}

void check(int code, const char* what) {
  if (code != MPI_SUCCESS) fail(ErrorKind::comm, fmt::format("{} failed: {}", what, mpi_error_text(code)));
}

MPI_Request get(const Request& r) {
  MPI_Request m;
  std::memcpy(&m, r.storage.data(), sizeof m);
  return m;
}

// Open MPI exports MPIX_Query_cuda_support from its CUDA extension; looking
// it up at run time asks the library actually loaded (the one on the GPU
// machine may differ from the one this binary was built against).
GpuBuffers query_cuda_support() {
  using QueryFn = int (*)();
  void* sym = dlsym(RTLD_DEFAULT, "MPIX_Query_cuda_support");
  if (sym == nullptr) return GpuBuffers::unknown;
  QueryFn fn = nullptr;
  std::memcpy(&fn, &sym, sizeof fn);
  return fn() == 1 ? GpuBuffers::yes : GpuBuffers::no;
}

// Blocking MPI_Send/MPI_Recv are what a bare ping-pong uses; polling a
// request instead costs about 25% more per small message. To keep blocking
// calls safe against a dead peer, a watchdog thread checks that the call in
// progress changes at least once per timeout; if one stays blocked longer,
// it prints which peer did not answer and ends the process with the timeout
// exit code (mpirun then ends the other ranks). The hot path only stores a
// sequence number and a flag.
//
// After a signal (base/stop.hpp) the wait is much shorter: the ranks stop
// together at the next point where they agree, so a call still blocked
// kStopWaitS later waits for a peer that has already gone (mpirun ended it,
// or it wrote its emergency result); the process then ends with the
// signal's code. Rank 0 waits longer, so its own emergency write
// (app/interrupt.hpp) comes first. Once the ranks have agreed to stop
// (acknowledge_stop), waits are the orderly ending and this does not apply.
class Watchdog {
 public:
  explicit Watchdog(int rank) : rank_(rank), thread_([this] { loop(); }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  void begin(int peer, Seconds timeout) {
    peer_.store(peer, std::memory_order_relaxed);
    timeout_s_.store(timeout.count(), std::memory_order_relaxed);
    seq_.store(++local_seq_, std::memory_order_relaxed);
    active_.store(true, std::memory_order_release);
  }
  void end() { active_.store(false, std::memory_order_release); }

 private:
  void loop() {
    using Clock = std::chrono::steady_clock;
    std::uint64_t seen = 0;
    Clock::time_point since = Clock::now();
    std::unique_lock<std::mutex> lock(mutex_);
    while (!wake_.wait_for(lock, std::chrono::milliseconds(100), [this] { return stop_; })) {
      const std::uint64_t seq = seq_.load(std::memory_order_relaxed);
      if (!active_.load(std::memory_order_acquire) || seq != seen) {
        seen = seq;
        since = Clock::now();
        continue;
      }
      const double limit = timeout_s_.load(std::memory_order_relaxed);
      const double stuck = std::chrono::duration<double>(Clock::now() - since).count();
      if (abandoned_after_signal(rank_, stuck)) exit_abandoned(rank_, peer_.load(std::memory_order_relaxed));
      if (stuck > limit) {
        std::fprintf(stderr, "xferbench: error: rank %d: rank %d did not answer within %.0f s\n", rank_,
                     peer_.load(std::memory_order_relaxed), limit);
        std::fflush(stderr);
        _exit(exit_code(ErrorKind::timeout));
      }
    }
  }

  int rank_;
  std::uint64_t local_seq_ = 0;
  std::atomic<std::uint64_t> seq_{0};
  std::atomic<bool> active_{false};
  std::atomic<int> peer_{-1};
  std::atomic<double> timeout_s_{0};
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

// Splits a node's communicator by a name every rank gives (the first rank
// with the same name picks the color), so one machine can stand for several
// nodes in tests. Frees `local`.
MPI_Comm split_by_name(MPI_Comm local, const std::string& name) {
  int size = 0, me = 0;
  MPI_Comm_size(local, &size);
  MPI_Comm_rank(local, &me);
  std::vector<char> mine(MPI_MAX_PROCESSOR_NAME, '\0'), all(static_cast<std::size_t>(size) * MPI_MAX_PROCESSOR_NAME);
  std::memcpy(mine.data(), name.data(), std::min<std::size_t>(name.size(), MPI_MAX_PROCESSOR_NAME - 1));
  check(MPI_Allgather(mine.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, local),
        "MPI_Allgather");
  int color = me;
  for (int r = 0; r < size; ++r) {
    if (std::memcmp(all.data() + static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME, mine.data(),
                    MPI_MAX_PROCESSOR_NAME) == 0) {
      color = r;
      break;
    }
  }
  MPI_Comm split;
  check(MPI_Comm_split(local, color, me, &split), "MPI_Comm_split");
  MPI_Comm_free(&local);
  return split;
}

// World ranks of the members of `local`, ascending.
std::vector<int> world_ranks_of(MPI_Comm local, int world_rank) {
  int size = 0;
  MPI_Comm_size(local, &size);
  std::vector<int> ranks(static_cast<std::size_t>(size));
  check(MPI_Allgather(&world_rank, 1, MPI_INT, ranks.data(), 1, MPI_INT, local), "MPI_Allgather");
  std::sort(ranks.begin(), ranks.end());
  return ranks;
}

class MpiComm final : public Communicator {
 public:
  MpiComm();
  ~MpiComm() override;
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const override { return local_rank_; }
  int local_size() const override { return local_size_; }
  std::string host_name() const override { return host_; }
  GpuBuffers gpu_buffers() const override { return gpu_buffers_; }
  std::string name() const override { return "mpi"; }

  Request isend(int peer, int tag, const void* data, std::size_t bytes) override;
  Request irecv(int peer, int tag, void* data, std::size_t bytes) override;
  void wait_all(Request* requests, std::size_t count, Seconds timeout) override;
  void mark_peer_lost() override { healthy_ = false; }
  void send(int peer, int tag, const void* data, std::size_t bytes, Seconds timeout) override;
  void recv(int peer, int tag, void* data, std::size_t bytes, Seconds timeout) override;
  std::vector<int> node_ranks() const override { return node_ranks_; }
  bool test(Request& request) override;
  void cancel(Request& request) override;

 private:
  [[noreturn]] void give_up(Request* requests, std::size_t count, Seconds timeout);
  // A blocking MPI call under the watchdog.
  template <typename Call>
  void guarded(int peer, std::size_t bytes, Seconds timeout, const char* what, Call call);

  int rank_ = 0, size_ = 0, local_rank_ = 0, local_size_ = 1;
  std::string host_;
  std::vector<int> node_ranks_;
  GpuBuffers gpu_buffers_ = GpuBuffers::unknown;
  bool initialized_here_ = false;
  // After a timeout a peer may be dead; MPI_Finalize would then wait for it
  // forever, so the destructor skips it and lets the launcher clean up.
  bool healthy_ = true;
  std::unique_ptr<Watchdog> watchdog_;
};

MpiComm::MpiComm() {
  int already = 0;
  MPI_Initialized(&already);
  if (!already) {
    // Only the main thread calls MPI (CUDA's threads and the watchdog never
    // do). Asking for MPI_THREAD_FUNNELED instead of the default level made
    // Open MPI 4.1 about 30% slower per small message (bench/probes/mpi_bare_pingpong.cpp
    // with MPI_Init_thread, 2026-11-21), so plain MPI_Init it is.
    check(MPI_Init(nullptr, nullptr), "MPI_Init");
    initialized_here_ = true;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm local;
  check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local),
        "MPI_Comm_split_type");
  char name[MPI_MAX_PROCESSOR_NAME];
  int len = 0;
  MPI_Get_processor_name(name, &len);
  host_.assign(name, static_cast<std::size_t>(len));
  // A node name from the environment (XFERBENCH_NODE_NAME, srun's
  // SLURMD_NODENAME) names the node, and processes with different names are
  // different nodes even on one machine.
  if (const std::string node = node_name_from_env(process_getenv); !node.empty()) {
    local = split_by_name(local, node);
    host_ = node;
  }
  MPI_Comm_rank(local, &local_rank_);
  MPI_Comm_size(local, &local_size_);
  node_ranks_ = world_ranks_of(local, rank_);
  MPI_Comm_free(&local);
  gpu_buffers_ = query_cuda_support();
}

MpiComm::~MpiComm() {
  if (initialized_here_ && healthy_) MPI_Finalize();
}

template <typename Call>
void MpiComm::guarded(int peer, std::size_t bytes, Seconds timeout, const char* what, Call call) {
  const int n = mpi_count(bytes);
  if (!watchdog_) watchdog_ = std::make_unique<Watchdog>(rank_);
  watchdog_->begin(peer, timeout);
  const int rc = call(n);
  watchdog_->end();
  check(rc, what);
}

void MpiComm::send(int peer, int tag, const void* data, std::size_t bytes, Seconds timeout) {
  guarded(peer, bytes, timeout, "MPI_Send",
          [&](int n) { return MPI_Send(data, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD); });
}

void MpiComm::recv(int peer, int tag, void* data, std::size_t bytes, Seconds timeout) {
  guarded(peer, bytes, timeout, "MPI_Recv",
          [&](int n) { return MPI_Recv(data, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE); });
}

namespace {

// Starts a nonblocking MPI call and wraps its request.
template <typename Start>
Request post(int peer, int tag, std::size_t bytes, const char* what, Start start) {
  MPI_Request m;
  check(start(mpi_count(bytes), &m), what);
  Request r;
  std::memcpy(r.storage.data(), &m, sizeof m);
  r.peer = peer;
  r.tag = tag;
  r.active = true;
  return r;
}

}  // namespace

Request MpiComm::isend(int peer, int tag, const void* data, std::size_t bytes) {
  return post(peer, tag, bytes, "MPI_Isend", [&](int n, MPI_Request* m) {
    return MPI_Isend(data, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, m);
  });
}

Request MpiComm::irecv(int peer, int tag, void* data, std::size_t bytes) {
  return post(peer, tag, bytes, "MPI_Irecv", [&](int n, MPI_Request* m) {
    return MPI_Irecv(data, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, m);
  });
}

void MpiComm::wait_all(Request* requests, std::size_t count, Seconds timeout) {
  // Polling with MPI_Test (instead of a blocking MPI_Wait) is what lets a
  // dead peer become a timeout; the clock is read only every 256 polls so
  // small-message latency stays that of a plain MPI_Recv loop.
  const auto started = std::chrono::steady_clock::now();
  const auto deadline = started + std::chrono::duration_cast<std::chrono::nanoseconds>(timeout);
  std::size_t pending = 0;
  for (std::size_t i = 0; i < count; ++i) pending += requests[i].active ? 1 : 0;
  for (unsigned polls = 0; pending > 0; ++polls) {
    for (std::size_t i = 0; i < count; ++i) {
      if (requests[i].active && test(requests[i])) --pending;
    }
    if (pending > 0 && (polls & 255U) == 255U) {
      const auto now = std::chrono::steady_clock::now();
      if (now > deadline) give_up(requests, count, timeout);
      // As the watchdog does for blocking calls: after a signal, a peer
      // that does not answer has gone.
      if (abandoned_after_signal(rank_, std::chrono::duration<double>(now - started).count()))
        exit_abandoned(rank_, requests[0].peer);
    }
  }
}

bool MpiComm::test(Request& request) {
  if (!request.active) return true;
  MPI_Request m = get(request);
  int done = 0;
  check(MPI_Test(&m, &done, MPI_STATUS_IGNORE), "MPI_Test");
  std::memcpy(request.storage.data(), &m, sizeof m);
  if (done) request.active = false;
  return done != 0;
}

void MpiComm::cancel(Request& request) {
  // The peer may be dead: MPI_Finalize could then wait for it forever.
  healthy_ = false;
  if (!request.active) return;
  MPI_Request m = get(request);
  MPI_Cancel(&m);
  MPI_Request_free(&m);
  request.active = false;
}

void MpiComm::give_up(Request* requests, std::size_t count, Seconds timeout) {
  healthy_ = false;
  int peer = -1, tag = -1;
  for (std::size_t i = 0; i < count; ++i) {
    if (!requests[i].active) continue;
    if (peer < 0) {
      peer = requests[i].peer;
      tag = requests[i].tag;
    }
    cancel(requests[i]);  // so a late message cannot land in a buffer the caller frees
  }
  fail(ErrorKind::timeout, timeout_message(rank_, peer, tag, timeout));
}

// Open MPI 5 has only PMIx. Open MPI 4 reads Slurm's PMI-1 / PMI-2 through
// its pmix/s1 and pmix/s2 components, in the folder of the other mca_pmix_*
// components next to libmpi (openmpi/; Debian: openmpi/lib/openmpi3/); not
// finding that folder leaves the question open (pmix_only false). Asked of
// the library actually loaded, before MPI_Init.
MpiLibrary loaded_mpi_library() {
  MpiLibrary lib;
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  if (MPI_Get_library_version(version, &len) != MPI_SUCCESS) return lib;
  int major = 0;
  lib.open_mpi = std::sscanf(version, "Open MPI v%d", &major) == 1;
  if (!lib.open_mpi) return lib;
  if (major >= 5) {
    lib.pmix_only = true;
    return lib;
  }
  Dl_info info{};
  void* init = nullptr;
  const auto init_fn = &MPI_Init;
  std::memcpy(&init, &init_fn, sizeof init);
  if (dladdr(init, &info) == 0 || info.dli_fname == nullptr) return lib;
  namespace fs = std::filesystem;
  std::error_code ec;
  bool pmix_components = false, slurm_pmi = false;
  const fs::path libdir = fs::path(info.dli_fname).parent_path();
  for (const fs::path& parent : {libdir, libdir / "openmpi" / "lib"}) {
    for (const auto& dir : fs::directory_iterator(parent, ec)) {
      if (dir.path().filename().string().rfind("openmpi", 0) != 0) continue;
      pmix_components |= fs::exists(dir.path() / "mca_pmix_isolated.so", ec);
      slurm_pmi |= fs::exists(dir.path() / "mca_pmix_s1.so", ec) || fs::exists(dir.path() / "mca_pmix_s2.so", ec);
    }
  }
  lib.pmix_only = pmix_components && !slurm_pmi;
  return lib;
}

}  // namespace

bool started_by_launcher(const char* (*getenv_fn)(const char*)) {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "SLURM_NTASKS"}) {
    const char* v = getenv_fn(var);
    if (v != nullptr && *v != '\0') return true;
  }
  return false;
}

std::unique_ptr<Communicator> make_mpi_communicator(int min_ranks) {
  const auto env = [](const char* name) -> const char* { return std::getenv(name); };
  if (!started_by_launcher(env)) {
    fail(ErrorKind::comm, fmt::format("this command needs {} or more MPI processes; {}", min_ranks, kLaunchHint));
  }
  if (const std::string why = srun_without_pmix(env, loaded_mpi_library()); !why.empty()) {
    // Every rank finds the same; the first says it (an empty message is not
    // printed), so srun shows one line.
    fail(ErrorKind::comm, launcher_world_rank(env) > 0 ? std::string() : why);
  }
  auto comm = std::make_unique<MpiComm>();
  if (comm->size() < min_ranks) {
    fail(ErrorKind::comm, fmt::format("started with {} MPI process(es), {} or more are needed; {}",
                                      comm->size(), min_ranks, kLaunchHint));
  }
  return comm;
}

}  // namespace xb::comm
