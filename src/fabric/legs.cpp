#include "fabric/legs.hpp"

#include <fmt/format.h>

namespace xb::fabric {
namespace {

class SlowTransport final : public pingpong::Transport {
 public:
  SlowTransport(std::unique_ptr<pingpong::Transport> inner, double factor) : inner_(std::move(inner)), factor_(factor) {}
  void connect() override { inner_->connect(); }
  void prepare(std::size_t bytes, std::uint64_t seed) override { inner_->prepare(bytes, seed); }
  // The repetitions run and move their data as they would; each is
  // reported `factor` times as long as it took (the fault hook's "as if").
  std::vector<double> run(pingpong::Mode mode, std::size_t bytes, int reps, int window) override {
    std::vector<double> times = inner_->run(mode, bytes, reps, window);
    for (double& t : times) t *= factor_;
    return times;
  }
  std::vector<unsigned char> received(std::size_t bytes) override { return inner_->received(bytes); }
  std::string describe() const override { return inner_->describe(); }

 private:
  std::unique_ptr<pingpong::Transport> inner_;
  double factor_;
};

struct LegPlan {
  int leg;
  int initiator, responder;  // world ranks
  const pingpong::Options* options;
};

// Acts on the slot's fault (slow: the environment's transports are
// slowed; mark and signals as everywhere). Both ranks of the pair read the
// same XFERBENCH_FAULT, so both slow their side alike.
pingpong::Environment slot_environment(const SlotContext& ctx, const Slot& slot, int round, std::size_t ordinal) {
  pingpong::Environment env = ctx.env;
  if (ctx.faults == nullptr) return env;
  const FaultKind kind = ctx.faults->match(fault_names(*ctx.nodes, slot, round), ordinal);
  const auto& nodes = *ctx.nodes;
  if (kind == FaultKind::mark || kind == FaultKind::signal_int || kind == FaultKind::signal_term)
    inject_fault(kind, fmt::format("fabric round {} pair {}-{} rail {}", round, nodes[static_cast<std::size_t>(slot.a)].name,
                                   nodes[static_cast<std::size_t>(slot.b)].name, slot.rail));
  if (kind == FaultKind::slow) {
    auto make = env.make_transport;
    env.make_transport = [make](pingpong::TransportKind k, const pingpong::PairContext& pc) {
      return slowed(make(k, pc), kSlowFactor);
    };
  }
  return env;
}

}  // namespace

std::unique_ptr<pingpong::Transport> slowed(std::unique_ptr<pingpong::Transport> inner, double factor) {
  return std::make_unique<SlowTransport>(std::move(inner), factor);
}

std::vector<std::string> fault_names(const std::vector<Node>& nodes, const Slot& slot, int round) {
  const std::string& a = nodes.at(static_cast<std::size_t>(slot.a)).name;
  const std::string& b = nodes.at(static_cast<std::size_t>(slot.b)).name;
  return {"node:" + a,
          "node:" + b,
          fmt::format("pair:{}-{}", a, b),
          fmt::format("pair:{}-{}", b, a),
          fmt::format("rail:{}", slot.rail),
          fmt::format("round:{}", round)};
}

SlotRun begin_slot(const SlotContext& ctx, const Slot& slot, int round, std::size_t ordinal) {
  return SlotRun{slot_environment(ctx, slot, round, ordinal), false};
}

LegReport measure_stage(const SlotContext& ctx, const Slot& slot, int slot_index, SlotRun& run, int stage) {
  const auto& nodes = *ctx.nodes;
  const int ra = nodes.at(static_cast<std::size_t>(slot.a)).ranks.at(static_cast<std::size_t>(slot.rail));
  const int rb = nodes.at(static_cast<std::size_t>(slot.b)).ranks.at(static_cast<std::size_t>(slot.rail));
  const pingpong::Options bw = bandwidth_leg(*ctx.options), lat = latency_leg(*ctx.options);
  const LegPlan legs[kStages] = {{2, ra, rb, &lat}, {0, ra, rb, &bw}, {1, rb, ra, &bw}};
  const LegPlan& leg = legs[stage];
  const std::uint64_t mark = ctx.nccl_log != nullptr ? ctx.nccl_log->mark() : 0;
  const pingpong::PairResult r =
      pingpong::measure_one_pair(*ctx.comm, *leg.options, *ctx.infos, {leg.initiator, leg.responder}, run.env, ctx.control);
  LegReport rep;
  rep.slot = slot_index;
  rep.leg = leg.leg;
  rep.transport = r.transport;
  rep.path = r.path;
  if (r.transport == "nccl" && ctx.nccl_log != nullptr) rep.path = ctx.nccl_log->path_since(mark);
  if (rep.path.empty()) rep.path = r.transport;  // mpi: the library's own path, which it does not name
  rep.error = r.error;
  rep.error_kind = r.error_kind;
  rep.stop = r.stop;
  // A size's error was agreed by both ranks (pingpong's handshake), so
  // both end the pair here alike.
  const bool size_failed = !r.sizes.empty() && !r.sizes[0].error.empty();
  if (size_failed && rep.error.empty()) {
    rep.error = r.sizes[0].error;
    rep.error_kind = r.sizes[0].error_kind;
  }
  if (ctx.comm->rank() == leg.initiator && !r.sizes.empty() && !size_failed) rep.result = r.sizes[0];
  run.done = !rep.error.empty() || rep.stop != StopReason::none;
  return rep;
}

}  // namespace xb::fabric
