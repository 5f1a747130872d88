// The first-touch measurement as one call, collective over the
// communicator: the first rank sends, the last rank receives, any ranks in
// between only take part in the status agreements. Every iteration
// allocates a fresh buffer on both ends, sends SUB_ITERATIONS messages
// from it and frees it. The result is complete on rank 0 (the sender),
// which gathers the receiver's phases. Never prints.
#pragma once

#include <cstdint>
#include <functional>

#include "comm/communicator.hpp"
#include "base/run_control.hpp"
#include "firsttouch/options.hpp"
#include "firsttouch/result.hpp"

namespace xb::firsttouch {

// What the runner asks of the machine, injectable so tests can pretend a
// rank has GPUs or little memory without touching either.
struct Environment {
  std::function<int()> device_count;
  std::function<bool()> nccl_available;
  // Free bytes on GPU `device`, or of host memory for device -1.
  std::function<std::uint64_t(int device)> free_bytes;
};
Environment default_environment();

// Called as the run goes, on rank 0 (which holds the times), so a caller
// can print each iteration as soon as it is measured. The variant meant is
// always so_far.variants.back(). Any member may be empty.
struct Observer {
  // A variant begins, with no iterations yet; before the first one the
  // run's fields and the warm-up ("[-1]") are filled in.
  std::function<void(const Result& so_far)> variant_started;
  // An iteration was measured (the last of the variant's times_s).
  std::function<void(const Result& so_far)> iteration_done;
  // The variant has every iteration it will get.
  std::function<void(const Result& so_far)> variant_done;
};

// Throws the agreed error on every rank: bad options, one rank, no GPU,
// a buffer larger than free memory (Error(resources) naming both sizes),
// an impossible transport, a dead peer.
//
// Every iteration starts with an agreement of all ranks, so a signal to any
// rank (or the time limit's deadline) stops them all at the same
// iteration: the iterations measured are kept, the others listed as not
// run, status interrupted / partial. An error agreed inside an iteration
// ends the run keeping what it measured (Result::error), except a timeout
// or communication failure, which is thrown as before. `control` brings
// the time limit's planning and the fault hook ("VARIANT/ITERATION").
Result run(comm::Communicator& comm, const Options& options, const Environment& env = default_environment(),
           RunControl* control = nullptr, const Observer& observer = {});

// The largest allocation of the run, for the free-memory check.
std::uint64_t largest_allocation(const Options& options);

}  // namespace xb::firsttouch
