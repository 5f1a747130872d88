// One node pair on one rail, as its two ranks measure it: the one-way
// latency (round trips), then bandwidth a->b and b->a (osu_bw's windowed
// stream), each leg pingpong's measurement of one pair (pingpong::
// measure_one_pair) on the transport pingpong would pick, verified. A leg
// that fails or stops ends the pair (its other legs would wait for the
// same peer).
#pragma once

#include <vector>

#include "base/fault.hpp"
#include "base/run_control.hpp"
#include "fabric/fabric_json.hpp"
#include "fabric/nccl_log.hpp"
#include "fabric/schedule.hpp"
#include "pingpong/runner.hpp"

namespace xb::fabric {

struct SlotContext {
  comm::Communicator* comm = nullptr;
  const Options* options = nullptr;
  const std::vector<pingpong::RankInfo>* infos = nullptr;
  const std::vector<Node>* nodes = nullptr;
  pingpong::Environment env;
  FaultPlan* faults = nullptr;   // may be null
  RunControl* control = nullptr; // size faults (XFERBENCH_FAULT by size), may be null
  const NcclLog* nccl_log = nullptr;
};

// The legs this rank took part in, as it saw them (`slot`: the pair's
// index in its round; `ordinal`: its index among every slot so far, for
// the fault hook's #N). Collective over the pair's two ranks.
std::vector<LegReport> measure_slot(const SlotContext& ctx, const Slot& slot, int slot_index, int round,
                                    std::size_t ordinal);

// The fault hook's names of a slot: node:A, node:B, pair:A-B, pair:B-A, rail:R, round:K.
std::vector<std::string> fault_names(const std::vector<Node>& nodes, const Slot& slot, int round);

// How many times as long FaultKind::slow (XFERBENCH_FAULT=node:NAME:slow,
// pair:A-B, rail:R, round:K) reports a pair's repetitions: the data moves
// and is verified as usual, and the pair looks that much slower.
inline constexpr double kSlowFactor = 10.0;

// A transport whose repetitions are reported `factor` times as long (FaultKind::slow).
std::unique_ptr<pingpong::Transport> slowed(std::unique_ptr<pingpong::Transport> inner, double factor);

}  // namespace xb::fabric
