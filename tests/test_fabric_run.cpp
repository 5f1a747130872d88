// A fabric run in-process: ranks are threads (comm::InprocComm) with
// host buffers over the mpi transport, so the schedule, the coordinator,
// the legs, the fault hook, lost ranks and stops are all exercised without
// MPI or a GPU. Figures that must not depend on this machine's speed come
// from a transport that moves and verifies the data but reports fixed times.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>

#include <chrono>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "base/stop.hpp"
#include "comm/inproc_comm.hpp"
#include "fabric/polled_comm.hpp"
#include "fabric/runner.hpp"
#include "report/fabric_report.hpp"

namespace xb::fabric {
namespace {

Options small() {
  Options o;
  o.buffers = pingpong::parse_endpoint("host");
  o.transport = pingpong::TransportKind::mpi;
  o.bytes = 64 << 10;
  o.window = 2;
  o.bw_reps = 3;
  o.bw_warmup = 1;
  o.latency_reps = 20;
  o.latency_warmup = 2;
  // A peer silent for 3 s inside a pair is a timeout, a rank silent for 8 s
  // is lost: far above what a healthy thread waits even on a loaded machine.
  o.timeout_s = 3;
  o.silence_s = 8;
  return o;
}

comm::InprocOptions world(int nodes, int rails) {
  comm::InprocOptions w{nodes * rails, {}};
  for (int n = 0; n < nodes; ++n)
    for (int r = 0; r < rails; ++r) w.hosts.push_back(fmt::format("n{}", n));
  return w;
}

// Data moves and is verified as usual; each repetition reports 1 ms.
class FixedTime final : public pingpong::Transport {
 public:
  explicit FixedTime(std::unique_ptr<pingpong::Transport> inner) : inner_(std::move(inner)) {}
  void connect() override { inner_->connect(); }
  void prepare(std::size_t bytes, std::uint64_t seed) override { inner_->prepare(bytes, seed); }
  std::vector<double> run(pingpong::Mode m, std::size_t bytes, int reps, int window) override {
    inner_->run(m, bytes, reps, window);
    return std::vector<double>(static_cast<std::size_t>(reps), 1e-3);
  }
  std::vector<unsigned char> received(std::size_t bytes) override { return inner_->received(bytes); }

 private:
  std::unique_ptr<pingpong::Transport> inner_;
};

pingpong::Environment fixed_time_environment() {
  pingpong::Environment env = pingpong::default_environment();
  env.make_transport = [](pingpong::TransportKind k, const pingpong::PairContext& ctx) {
    return std::unique_ptr<pingpong::Transport>(std::make_unique<FixedTime>(pingpong::make_transport(k, ctx)));
  };
  return env;
}

struct Outcome {
  Result result;
  std::map<int, int> codes;            // rank -> what finish() returned
  std::map<int, std::string> errors;   // rank -> what it threw
};

// Runs a fabric over `w`; `tweak(rank, hooks)` adjusts a rank's hooks;
// `dies` ranks return right after the session is set up.
Outcome run_fabric(const comm::InprocOptions& w, const Options& o,
                   const std::function<void(int, Hooks&)>& tweak = {}, std::vector<int> dies = {}) {
  Outcome out;
  std::mutex m;
  comm::run_ranks(w, [&](comm::Communicator& c) {
    try {
      PolledComm pc(c);
      Hooks h;
      h.env = pingpong::default_environment();
      if (tweak) tweak(c.rank(), h);
      Session s(pc, o, h);
      if (std::find(dies.begin(), dies.end(), c.rank()) != dies.end()) return;
      Result r = s.run();
      const int code = s.finish(c.rank() == 0 ? 42 : 0);
      std::lock_guard<std::mutex> lock(m);
      if (c.rank() == 0) out.result = std::move(r);
      out.codes[c.rank()] = code;
    } catch (const Error& e) {
      std::lock_guard<std::mutex> lock(m);
      out.errors[c.rank()] = e.what();
    }
  });
  return out;
}

bool complete_leg(const std::optional<Leg>& l) { return l && measured(*l) && l->verified; }

TEST(FabricRun, EveryPairOfEveryRailIsMeasuredBothWaysVerifiedAndNamed) {
  const Outcome out = run_fabric(world(4, 2), small());
  EXPECT_TRUE(out.errors.empty()) << out.errors.begin()->second;
  const Result& r = out.result;
  ASSERT_EQ(r.nodes.size(), 4u);
  EXPECT_EQ(r.nodes[2].name, "n2");
  EXPECT_EQ(r.nodes[2].ranks, (std::vector<int>{4, 5}));
  EXPECT_EQ(r.plan.rounds, 3);
  ASSERT_EQ(r.pairs.size(), 12u);  // 6 node pairs x 2 rails
  for (const PairRecord& p : r.pairs) {
    EXPECT_TRUE(complete_leg(p.ab) && complete_leg(p.ba) && complete_leg(p.latency)) << pair_name(r, p) << ": " << p.error;
    EXPECT_EQ(p.transport, "mpi");
    EXPECT_EQ(p.ab->bytes, 64u << 10);
    EXPECT_EQ(p.latency->bytes, 8u);
    EXPECT_EQ(p.latency->one_way_s.count, 20);
    EXPECT_EQ(r.nodes[static_cast<std::size_t>(p.a)].ranks[static_cast<std::size_t>(p.rail)], p.rank_a);
  }
  EXPECT_EQ(r.completion.status, RunStatus::complete);
  EXPECT_TRUE(r.lost.empty());
  for (int rank = 0; rank < 8; ++rank) EXPECT_EQ(out.codes.at(rank), 42) << "rank 0's code on rank " << rank;
}

// Records when each of a rank's transports runs: its ordinal on the rank
// (0 the latency leg, 1 a->b, 2 b->a) and a global sequence number at the
// start and end of each run() (an order of events, not a time).
struct StageLog {
  std::mutex m;
  std::atomic<long> seq{0};
  std::map<int, long> first_start, last_end;  // ordinal -> earliest start, latest end
  void note(int ordinal, long start, long end) {
    std::lock_guard<std::mutex> lock(m);
    auto [s, fresh] = first_start.emplace(ordinal, start);
    if (!fresh) s->second = std::min(s->second, start);
    auto [e, efresh] = last_end.emplace(ordinal, end);
    if (!efresh) e->second = std::max(e->second, end);
  }
};

class Logged final : public pingpong::Transport {
 public:
  Logged(std::unique_ptr<pingpong::Transport> inner, StageLog& log, int ordinal, bool held)
      : inner_(std::move(inner)), log_(log), ordinal_(ordinal), held_(held) {}
  void connect() override { inner_->connect(); }
  void prepare(std::size_t bytes, std::uint64_t seed) override { inner_->prepare(bytes, seed); }
  std::vector<double> run(pingpong::Mode m, std::size_t bytes, int reps, int window) override {
    const long start = log_.seq++;
    // The held rail's latency leg lasts longer than the other rail's whole
    // slot would: without the stages, the other rail streams meanwhile.
    if (held_) std::this_thread::sleep_for(std::chrono::milliseconds(300));
    auto t = inner_->run(m, bytes, reps, window);
    log_.note(ordinal_, start, log_.seq++);
    return t;
  }
  std::vector<unsigned char> received(std::size_t bytes) override { return inner_->received(bytes); }

 private:
  std::unique_ptr<pingpong::Transport> inner_;
  StageLog& log_;
  int ordinal_;
  bool held_;
};

TEST(FabricRun, EveryPairOfARoundRunsTheSameStageAtOnce) {
  StageLog log;
  // 2 nodes x 2 rails: one round, two pairs at once (rail 0: ranks 0 and 2; rail 1: ranks 1 and 3).
  const Outcome out = run_fabric(world(2, 2), small(), [&](int rank, Hooks& h) {
    auto made = std::make_shared<int>(0);
    const bool rail0 = rank % 2 == 0;
    h.env.make_transport = [&log, made, rail0](pingpong::TransportKind k, const pingpong::PairContext& ctx) {
      const int ordinal = (*made)++;
      return std::unique_ptr<pingpong::Transport>(
          std::make_unique<Logged>(pingpong::make_transport(k, ctx), log, ordinal, rail0 && ordinal == 0));
    };
  });
  ASSERT_TRUE(out.errors.empty()) << out.errors.begin()->second;
  for (const PairRecord& p : out.result.pairs)
    EXPECT_TRUE(complete_leg(p.ab) && complete_leg(p.ba) && complete_leg(p.latency)) << p.error;
  ASSERT_EQ(log.first_start.size(), 3u);
  for (int stage = 0; stage + 1 < 3; ++stage)
    EXPECT_LT(log.last_end.at(stage), log.first_start.at(stage + 1))
        << "a run of stage " << stage + 1 << " started before every pair had ended stage " << stage;
}

TEST(FabricRun, TheSlowFaultOfANodeNamesThatNode) {
  FaultPlan plan("node:n1:slow");
  const Outcome out = run_fabric(world(4, 1), small(), [&](int, Hooks& h) {
    h.env = fixed_time_environment();
    h.faults = &plan;  // read-only use differs per rank only by its counters
  });
  ASSERT_TRUE(out.errors.empty()) << out.errors.begin()->second;
  const Result& r = out.result;
  ASSERT_EQ(r.findings.culprits.size(), 1u);
  EXPECT_EQ(r.findings.culprits[0].what, "node n1");
  for (const PairRecord& p : r.pairs) {
    const bool slow = p.a == 1 || p.b == 1;
    EXPECT_NEAR(p.ab->one_way_s.median, (slow ? kSlowFactor : 1.0) * 1e-3 / 2, 1e-12) << pair_name(r, p);
  }
}

TEST(FabricRun, TheSlowFaultOfAPairAndOfARailNamesThem) {
  FaultPlan pair_plan("pair:n3-n0:slow"), rail_plan("rail:2:slow");
  const Outcome pair = run_fabric(world(6, 1), small(), [&](int, Hooks& h) {
    h.env = fixed_time_environment();
    h.faults = &pair_plan;
  });
  ASSERT_EQ(pair.result.findings.culprits.size(), 1u);
  EXPECT_EQ(pair.result.findings.culprits[0].what, "pair n0-n3 rail 0");
  const Outcome rail = run_fabric(world(4, 3), small(), [&](int, Hooks& h) {
    h.env = fixed_time_environment();
    h.faults = &rail_plan;
  });
  ASSERT_EQ(rail.result.findings.culprits.size(), 1u);
  EXPECT_EQ(rail.result.findings.culprits[0].what, "rail 2");
}

TEST(FabricRun, ADeadRankIsReportedWithItsNodeAndTheOtherPairsComplete) {
  const Outcome out = run_fabric(world(4, 2), small(), {}, {5});  // n2, rail 1
  const Result& r = out.result;
  ASSERT_EQ(r.lost.size(), 1u);
  EXPECT_EQ(r.lost[0].rank, 5);
  EXPECT_EQ(r.nodes[static_cast<std::size_t>(r.lost[0].node)].name, "n2");
  EXPECT_EQ(r.lost[0].rail, 1);
  EXPECT_EQ(r.lost[0].round, 0);
  int measured_pairs = 0;
  for (const PairRecord& p : r.pairs) {
    const bool with_dead = p.rank_a == 5 || p.rank_b == 5;
    if (with_dead) {
      EXPECT_FALSE(p.error.empty()) << pair_name(r, p);
    } else {
      EXPECT_TRUE(complete_leg(p.ab) && complete_leg(p.ba) && complete_leg(p.latency)) << pair_name(r, p) << ": " << p.error;
      ++measured_pairs;
    }
  }
  EXPECT_EQ(measured_pairs, 9);  // 12 pairs, 3 of them with rank 5
  EXPECT_EQ(failure_kind(r), ErrorKind::timeout);
  EXPECT_EQ(report::fabric_exit_code(r), 9);
  for (const auto& [rank, code] : out.codes) EXPECT_EQ(code, 42) << "rank " << rank;
  EXPECT_EQ(out.codes.size(), 7u);
}

TEST(FabricRun, AHungRankIsLostAndTheRunGoesOn) {
  const auto hang_once = [](int rank, Hooks& h) {
    if (rank != 3) return;  // n1, rail 1
    auto make = h.env.make_transport;
    auto hung = std::make_shared<bool>(false);
    h.env.make_transport = [make, hung](pingpong::TransportKind k, const pingpong::PairContext& ctx) {
      if (!*hung) {
        *hung = true;
        std::this_thread::sleep_for(std::chrono::seconds(11));  // a hang: past the 8 s of silence
      }
      return make(k, ctx);
    };
  };
  const Outcome out = run_fabric(world(4, 2), small(), hang_once);
  const Result& r = out.result;
  ASSERT_EQ(r.lost.size(), 1u) << (out.errors.empty() ? "" : out.errors.begin()->second);
  EXPECT_EQ(r.lost[0].rank, 3);
  EXPECT_EQ(r.nodes[static_cast<std::size_t>(r.lost[0].node)].name, "n1");
  EXPECT_NE(r.lost[0].why.find("dead, or hung"), std::string::npos);
  for (const PairRecord& p : r.pairs) {
    if (p.rank_a != 3 && p.rank_b != 3) {
      EXPECT_TRUE(complete_leg(p.ab)) << pair_name(r, p) << ": " << p.error;
    }
  }
  for (int rank : {0, 1, 2, 4, 5, 6, 7}) EXPECT_EQ(out.codes.at(rank), 42) << "rank " << rank;
}

TEST(FabricRun, ASignalKeepsTheRoundsFinished) {
  const Outcome out = run_fabric(world(4, 1), small(), [](int rank, Hooks& h) {
    if (rank == 0) h.progress = [](const Result&) { request_stop(SIGTERM); };  // after the first round
  });
  clear_stop();
  ASSERT_TRUE(out.errors.empty()) << out.errors.begin()->second;
  const Result& r = out.result;
  EXPECT_EQ(r.completion.status, RunStatus::interrupted);
  EXPECT_EQ(r.completion.stop, StopReason::sigterm);
  ASSERT_EQ(r.pairs.size(), 2u);  // round 0 of 3
  for (const PairRecord& p : r.pairs) EXPECT_TRUE(complete_leg(p.ab) && complete_leg(p.latency));
  EXPECT_EQ(r.completion.not_run.size(), 4u);  // rounds 1 and 2
  EXPECT_EQ(report::fabric_exit_code(r), 143);
  for (int rank = 0; rank < 4; ++rank) EXPECT_EQ(out.codes.at(rank), 42);
}

TEST(FabricRun, OneNodeIsAUsageErrorOnEveryRank) {
  const Outcome out = run_fabric(world(1, 3), small());
  ASSERT_EQ(out.errors.size(), 3u);
  EXPECT_NE(out.errors.at(0).find("all 3 ranks are on one node (n0)"), std::string::npos) << out.errors.at(0);
}

}  // namespace
}  // namespace xb::fabric
