// One node pair on one rail, as its two ranks measure it: the one-way
// latency (round trips), then bandwidth a->b and b->a (osu_bw's windowed
// stream), each leg pingpong's measurement of one pair (pingpong::
// measure_one_pair) on the transport pingpong would pick, verified.
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

// A slot's legs run in stages, each stage on every pair of the round at
// once (the coordinator starts a stage when every rank has reported the one
// before): 0 the one-way latency, 1 bandwidth a->b, 2 bandwidth b->a. So a
// pair's bandwidth is always measured while the round's other pairs stream
// too, and its latency while they run only their own round trips.
inline constexpr int kStages = 3;

// A slot as its rank carries it through the stages: its environment (the
// fault hook acted on once, at stage 0) and whether a leg ended it.
struct SlotRun {
  pingpong::Environment env;
  bool done = false;
};

// Stage 0 of a slot (`ordinal`: its index among every slot so far, for the
// fault hook's #N).
SlotRun begin_slot(const SlotContext& ctx, const Slot& slot, int round, std::size_t ordinal);

// This rank's part of one stage of a slot (`slot_index`: the pair's index
// in its round). Collective over the pair's two ranks. A leg that fails or
// stops marks the run done: its later stages would wait for the same peer.
LegReport measure_stage(const SlotContext& ctx, const Slot& slot, int slot_index, SlotRun& run, int stage);

// The fault hook's names of a slot: node:A, node:B, pair:A-B, pair:B-A, rail:R, round:K.
std::vector<std::string> fault_names(const std::vector<Node>& nodes, const Slot& slot, int round);

// How many times as long FaultKind::slow (XFERBENCH_FAULT=node:NAME:slow,
// pair:A-B, rail:R, round:K) reports a pair's repetitions: the data moves
// and is verified as usual, and the pair looks that much slower.
inline constexpr double kSlowFactor = 10.0;

// A transport whose repetitions are reported `factor` times as long (FaultKind::slow).
std::unique_ptr<pingpong::Transport> slowed(std::unique_ptr<pingpong::Transport> inner, double factor);

}  // namespace xb::fabric
