// The process-to-process measurement as one call: options and a
// communicator in, the same Result out on every rank. Collective: every
// rank of the communicator must call it. Never prints.
#pragma once

#include <cstdint>
#include <functional>

#include "comm/communicator.hpp"
#include "base/run_control.hpp"
#include "pingpong/options.hpp"
#include "pingpong/result.hpp"
#include "pingpong/select.hpp"
#include "pingpong/transport.hpp"

namespace xb::pingpong {

// What the runner asks of the machine, injectable so tests can pretend a
// rank has GPUs or NCCL without touching either.
struct Environment {
  std::function<int()> device_count;    // default: device_count_or_zero
  std::function<bool()> nccl_available; // default: nccl::available
  std::function<GpuIdentity(int)> gpu_identity;  // default: gpu_identity (bus id, peer access)
  // default: make_transport; tests wrap it to inject faults
  std::function<std::unique_ptr<Transport>(TransportKind, const PairContext&)> make_transport;
};
Environment default_environment();

// Called on the initiating rank of each pair as the run goes, so a caller
// can print rows as soon as they are measured. Any member may be empty.
struct Observer {
  // The pair is connected: hosts, GPUs, transport and path are filled in.
  std::function<void(const PairResult&)> pair_started;
  // Size `index` of `count` (`bytes`) is about to be measured.
  std::function<void(const PairResult&, std::uint64_t bytes, std::size_t index, std::size_t count)> size_started;
  // A size is measured and verified on both ranks, or failed (its error
  // agreed by both); the PairResult holds every size so far.
  std::function<void(const PairResult&, const SizeResult&)> size_done;
};

// Errors that concern the whole run (bad options, a GPU id out of range on
// any rank, a dead peer) are thrown on every rank, agreed over `comm`. In a
// two-rank run a failed pair is thrown too; with --all-pairs it becomes
// data in its PairResult (error) so the other pairs still report, and
// first_failure() gives the exit status. A timeout is thrown at once in
// both cases: a peer that stopped answering would make every later
// collective wait for it too. A pair that fails after some sizes keeps them.
//
// Stops (signals, the time limit's deadline, base/stop.hpp) are agreed
// between the two ranks of a pair before every size and between slices of
// about 0.1 s of a size's timed repetitions (a size stopped in flight is
// not run), and by all ranks at the end of every --all-pairs round: a
// signal to any rank stops them all
// at the same point; the sizes measured are kept and the result says
// interrupted or partial. `control` (optional) brings the time limit's
// per-size planning and the fault hook (sizes in bytes).
Result run(comm::Communicator& comm, const Options& options, const Environment& env = default_environment(),
           const Observer& observer = {}, RunControl* control = nullptr);

// One pair of ranks measured as run() measures each pair (transport chosen
// from `infos`, connected, every size of `options` handshaken, timed in
// slices, verified): `pair.first` initiates, with its gpu_as_dev1, and
// `pair.second` responds, with its gpu_as_dev2. Collective over the two
// ranks of the pair only; the initiator's record holds the sizes. Errors,
// a timeout included, become data in the record (error, error_kind). Used
// by the fabric (src/fabric), which times both directions of a pair.
PairResult measure_one_pair(comm::Communicator& comm, const Options& options, const std::vector<RankInfo>& infos,
                            std::pair<int, int> pair, const Environment& env, RunControl* control = nullptr);

}  // namespace xb::pingpong
