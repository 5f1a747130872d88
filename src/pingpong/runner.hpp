// The process-to-process measurement as one call: options and a
// communicator in, the same Result out on every rank. Collective: every
// rank of the communicator must call it. Never prints.
#pragma once

#include <functional>

#include "comm/communicator.hpp"
#include "core/run_control.hpp"
#include "pingpong/options.hpp"
#include "pingpong/result.hpp"

namespace xb::pingpong {

// What the runner asks of the machine, injectable so tests can pretend a
// rank has GPUs or NCCL without touching either.
struct Environment {
  std::function<int()> device_count;    // default: device_count_or_zero
  std::function<bool()> nccl_available; // default: nccl::available
  // Called on the initiator after each size with the pair's record so far
  // (the command keeps a copy for an emergency write, app/interrupt.hpp).
  std::function<void(const PairResult&)> on_size;
};
Environment default_environment();

// Errors that concern the whole run (bad options, a GPU id out of range on
// any rank, a dead peer) are thrown on every rank, agreed over `comm`. In a
// two-rank run a failed pair is thrown too; with --all-pairs it becomes
// data in its PairResult (error) so the other pairs still report, and
// first_failure() gives the exit status.
//
// Stops (signals, the time limit's deadline, core/stop.hpp) are agreed
// between the two ranks of a pair before every size, and by all ranks at
// the end of every --all-pairs round: a signal to any rank stops them all
// at the same point; the sizes measured are kept and the result says
// interrupted or partial. `control` (optional) brings the time limit's
// per-size planning and the fault hook (sizes in bytes).
Result run(comm::Communicator& comm, const Options& options, const Environment& env = default_environment(),
           RunControl* control = nullptr);

}  // namespace xb::pingpong
