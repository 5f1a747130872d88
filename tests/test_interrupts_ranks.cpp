// Nothing measured is lost between processes, over the
// in-process communicator (threads as ranks, host buffers): a signal on any
// rank stops every rank at the same size or iteration with what was
// measured kept; each failure kind marks its size or iteration and the run
// goes on; the time limit leaves out what will not fit.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <map>
#include <thread>

#include "app/interrupt.hpp"
#include "comm/inproc_comm.hpp"
#include "base/fault.hpp"
#include "base/run_control.hpp"
#include "base/stop.hpp"
#include "base/time_budget.hpp"
#include "fault_transports.hpp"
#include "firsttouch/runner.hpp"
#include "pingpong/runner.hpp"
#include "rank_outcomes.hpp"

namespace xb {
namespace {

// A model that says every cell of at least `bytes` takes an hour.
CellCostModel huge_from(double bytes) {
  return [bytes](const std::vector<CellCost>&, const CellCost& next) { return next.bytes >= bytes ? 3600.0 : 0.0; };
}

// ---- pingpong ----------------------------------------------------------------

pingpong::Options pingpong_options(bool all_pairs = false) {
  pingpong::Options o;
  o.num_sizes = 5;  // 8 .. 128 B
  o.loop_count = 3;
  o.warmup = 1;
  o.timeout_s = 5;
  o.all_pairs = all_pairs;
  return o;
}

std::map<int, RankOutcome<pingpong::Result>> pingpong_ranks(int ranks, const pingpong::Options& o,
                                                             const std::string& faults, double limit_s = 0,
                                                             CellCostModel model = measured_cost_model) {
  app::StopSignals signals;  // the fault hook raises real signals
  return run_all_ranks<pingpong::Result>({ranks, {}}, [&](comm::Communicator& c) {
    FaultPlan plan(faults, c.rank());
    TimeBudget budget(limit_s, model);
    RunControl control(&budget, &plan);
    return pingpong::run(c, o, pingpong::default_environment(), {}, &control);
  });
}

std::vector<std::uint64_t> sizes_of(const pingpong::PairResult& p) {
  std::vector<std::uint64_t> out;
  for (const auto& s : p.sizes) out.push_back(s.bytes);
  return out;
}

TEST(InterruptsPingpong, ASignalOnOneRankStopsBothAtTheSameSize) {
  struct Case {
    const char* fault;
    StopReason reason;
    int code;
  };
  for (const Case& c : {Case{"32:signal_int@1", StopReason::sigint, 130}, Case{"32:signal_term@0", StopReason::sigterm, 143}}) {
    const auto out = pingpong_ranks(2, pingpong_options(), c.fault);
    for (const auto& [rank, oc] : out) {
      ASSERT_TRUE(oc.result) << c.fault << " rank " << rank << ": " << oc.error->what();
      const pingpong::Result& r = *oc.result;
      EXPECT_EQ(r.completion.status, RunStatus::interrupted) << c.fault;
      EXPECT_EQ(r.completion.stop, c.reason) << c.fault;
      ASSERT_EQ(r.pairs.size(), 1u);
      EXPECT_EQ(sizes_of(r.pairs[0]), (std::vector<std::uint64_t>{8, 16})) << c.fault;
      EXPECT_EQ(r.pairs[0].not_run, (std::vector<std::uint64_t>{32, 64, 128}));
      EXPECT_EQ(r.completion.not_run.size(), 3u);
      EXPECT_EQ(ending(r.completion, pingpong::failure_kind(r)).exit_code, c.code);
    }
  }
}

TEST(InterruptsPingpong, EachFailureKindMarksItsSizeAndTheRunGoesOn) {
  const std::map<std::string, std::pair<ErrorKind, int>> kinds = {
      {"cuda_error", {ErrorKind::cuda, 8}}, {"timeout", {ErrorKind::timeout, 9}}, {"verify", {ErrorKind::verification, 1}}};
  for (const auto& [kind, expect] : kinds) {
    const auto out = pingpong_ranks(2, pingpong_options(), "16:" + kind + "@1");
    const auto& oc = out.at(0);
    ASSERT_TRUE(oc.result) << kind << ": " << oc.error->what();
    const pingpong::Result& r = *oc.result;
    EXPECT_EQ(r.completion.status, RunStatus::complete) << kind;
    ASSERT_EQ(r.pairs[0].sizes.size(), 5u) << kind;
    const pingpong::SizeResult& bad = r.pairs[0].sizes[1];
    EXPECT_EQ(bad.bytes, 16u);
    if (kind == "verify") {
      EXPECT_FALSE(bad.verified);
      EXPECT_GT(bad.one_way_s.count, 0);
    } else {
      EXPECT_NE(bad.error.find("rank 1"), std::string::npos) << bad.error;
      EXPECT_EQ(bad.error_kind, expect.first);
    }
    for (std::size_t i : {0u, 2u, 3u, 4u}) EXPECT_TRUE(r.pairs[0].sizes[i].verified) << kind << " " << i;
    EXPECT_EQ(ending(r.completion, pingpong::failure_kind(r)).exit_code, expect.second) << kind;
  }
}

TEST(InterruptsPingpong, AllPairsStopTogetherAtTheEndOfTheRound) {
  const auto out = pingpong_ranks(4, pingpong_options(true), "16:signal_term@3");
  for (const auto& [rank, oc] : out) {
    ASSERT_TRUE(oc.result) << "rank " << rank << ": " << oc.error->what();
    const pingpong::Result& r = *oc.result;
    EXPECT_EQ(r.completion.stop, StopReason::sigterm) << rank;
    // Round 0 (two pairs) is measured up to the stop; the two later rounds
    // (four pairs) are not run. (Threads share one stop state, so here the
    // other pair of round 0 may stop early too; every pair accounts for
    // each of its sizes, measured or not run.)
    ASSERT_EQ(r.pairs.size(), 2u) << rank;
    for (const auto& p : r.pairs) EXPECT_EQ(p.sizes.size() + p.not_run.size(), 5u) << rank;
    EXPECT_EQ(r.pairs[0].sizes.size() + r.pairs[1].sizes.size() > 0, true);
    int later_pairs = 0;
    for (const auto& n : r.completion.not_run) later_pairs += n.find('@') == std::string::npos ? 1 : 0;
    EXPECT_EQ(later_pairs, 4) << rank;
  }
}

TEST(InterruptsPingpong, TimeLimitSkipsSizesThatWouldNotFit) {
  const auto out = pingpong_ranks(2, pingpong_options(), "", 3600, huge_from(64));
  ASSERT_TRUE(out.at(0).result) << out.at(0).error->what();
  const pingpong::Result& r = *out.at(0).result;
  EXPECT_EQ(r.completion.status, RunStatus::partial);
  EXPECT_EQ(sizes_of(r.pairs[0]), (std::vector<std::uint64_t>{8, 16, 32}));
  EXPECT_EQ(ending(r.completion, pingpong::failure_kind(r)).exit_code, 10);
  ASSERT_TRUE(out.at(1).result);
  EXPECT_EQ(out.at(1).result->completion.status, RunStatus::partial);
}

// A size whose repetitions take long is not waited for: the pair agrees
// between slices of about 0.1 s, so a signal on one rank ends the size in
// flight on both (it is listed as not run) instead of after its last
// repetition. Each repetition of 64 B here takes 10 ms (30 s for the size).
// The responder counts its runs and repetitions of 64 B, so "ended within
// a slice" is checked by count, not by a wall-clock bound.
class SlowTransport final : public pingpong::ForwardingTransport {
 public:
  SlowTransport(std::unique_ptr<pingpong::Transport> inner, int rank, std::atomic<int>& runs, std::atomic<int>& reps)
      : ForwardingTransport(std::move(inner)), rank_(rank), runs_(runs), reps_(reps) {}
  std::vector<double> run(pingpong::Mode m, std::size_t bytes, int reps, int window) override {
    auto times = inner_->run(m, bytes, reps, window);
    if (bytes != 64) return times;
    std::this_thread::sleep_for(std::chrono::milliseconds(10) * reps);
    for (double& t : times) t = 0.010;
    if (rank_ != 1) return times;
    reps_ += reps;
    // The responder is signalled at the end of its third run of 64 B (the warm-up and two slices).
    if (++runs_ == 3) std::raise(SIGTERM);
    return times;
  }

 private:
  int rank_;
  std::atomic<int>& runs_;
  std::atomic<int>& reps_;
};

TEST(InterruptsPingpong, ASignalDuringALongSizeEndsItWithinASlice) {
  pingpong::Options o = pingpong_options();
  o.loop_count = 3000;
  o.warmup = 2;
  std::atomic<int> runs{0}, reps{0};
  const pingpong::Environment env = pingpong::default_environment();
  const auto make = env.make_transport;
  app::StopSignals signals;
  const auto out = run_all_ranks<pingpong::Result>({2, {}}, [&](comm::Communicator& c) {
    pingpong::Environment mine = env;
    mine.make_transport = [&, rank = c.rank()](pingpong::TransportKind k, const pingpong::PairContext& ctx) {
      return std::unique_ptr<pingpong::Transport>(std::make_unique<SlowTransport>(make(k, ctx), rank, runs, reps));
    };
    RunControl control;
    return pingpong::run(c, o, mine, {}, &control);
  });
  for (const auto& [rank, oc] : out) {
    ASSERT_TRUE(oc.result) << "rank " << rank << ": " << oc.error->what();
    const pingpong::Result& r = *oc.result;
    EXPECT_EQ(r.completion.status, RunStatus::interrupted) << rank;
    EXPECT_EQ(r.completion.stop, StopReason::sigterm) << rank;
    EXPECT_EQ(sizes_of(r.pairs[0]), (std::vector<std::uint64_t>{8, 16, 32})) << rank;
    EXPECT_EQ(r.pairs[0].not_run, (std::vector<std::uint64_t>{64, 128})) << rank;
    EXPECT_EQ(ending(r.completion, pingpong::failure_kind(r)).exit_code, 143);
  }
  EXPECT_EQ(runs, 3);  // no slice of 64 B after the signal
  // Slices of about 0.1 s (10 repetitions of 10 ms), not the whole size:
  // the warm-up's 2 and two slices.
  EXPECT_LE(reps, 2 + 2 * 10);
}

// ---- first-touch ---------------------------------------------------------------

firsttouch::Options first_touch_options() {
  firsttouch::Options o;
  o.iterations = 3;
  o.sub_iterations = 2;
  o.p2p_bytes = 1024;
  o.buffer_sizes = {64 * 1024};
  o.overallocs = {1};
  o.memory = firsttouch::Memory::host;
  o.timeout_s = 5;
  return o;
}

std::map<int, RankOutcome<firsttouch::Result>> first_touch_ranks(const std::string& faults, double limit_s = 0,
                                                                 CellCostModel model = measured_cost_model) {
  app::StopSignals signals;
  const firsttouch::Environment env{[] { return 0; }, [] { return false; }, [](int) { return 1ULL << 40; }};
  return run_all_ranks<firsttouch::Result>({2, {}}, [&](comm::Communicator& c) {
    FaultPlan plan(faults, c.rank());
    TimeBudget budget(limit_s, model);
    RunControl control(&budget, &plan);
    return firsttouch::run(c, first_touch_options(), env, &control);
  });
}

TEST(InterruptsFirstTouch, ASignalOnOneRankStopsBothAtTheSameIteration) {
  const auto out = first_touch_ranks("0/2:signal_int@1");
  for (const auto& [rank, oc] : out) {
    ASSERT_TRUE(oc.result) << "rank " << rank << ": " << oc.error->what();
    const firsttouch::Result& r = *oc.result;
    EXPECT_EQ(r.completion.status, RunStatus::interrupted);
    EXPECT_EQ(r.completion.stop, StopReason::sigint);
    ASSERT_EQ(r.variants.size(), 1u);
    EXPECT_EQ(r.variants[0].times_s.size(), 2u);
    EXPECT_EQ(r.completion.not_run, (std::vector<std::string>{"0/2", "1/0", "1/1", "1/2"}));
    EXPECT_EQ(ending(r.completion, firsttouch::any_failed(r)).exit_code, 130);
  }
  // Rank 0 holds the receiver's phases of the iterations kept.
  EXPECT_GE(out.at(0).result->variants[0].phases[1].alloc_receiver_s, 0);
}

TEST(InterruptsFirstTouch, EachFailureKindMarksItsIterationAndTheRunGoesOn) {
  for (const std::string kind : {"cuda_error", "timeout", "verify"}) {
    const auto out = first_touch_ranks("1/0:" + kind + "@0");
    const auto& oc = out.at(0);
    ASSERT_TRUE(oc.result) << kind << ": " << oc.error->what();
    const firsttouch::Result& r = *oc.result;
    EXPECT_EQ(r.completion.status, RunStatus::complete) << kind;
    ASSERT_EQ(r.variants.size(), 2u);
    EXPECT_EQ(r.variants[0].times_s.size(), 3u);
    EXPECT_EQ(r.variants[1].times_s.size(), 2u);
    ASSERT_EQ(r.variants[1].failed.size(), 1u);
    EXPECT_EQ(r.variants[1].failed[0].rfind("1/0: ", 0), 0u) << r.variants[1].failed[0];
    EXPECT_EQ(ending(r.completion, firsttouch::any_failed(r)).exit_code, 1);
  }
}

TEST(InterruptsFirstTouch, TimeLimitSkipsIterationsThatWouldNotFit) {
  // The second variant allocates 64 KiB, the first 64 KiB + 1 B: only the first fits.
  const auto out = first_touch_ranks("", 3600, huge_from(64 * 1024 + 1));
  ASSERT_TRUE(out.at(0).result) << out.at(0).error->what();
  const firsttouch::Result& r = *out.at(0).result;
  EXPECT_EQ(r.completion.status, RunStatus::partial);
  EXPECT_EQ(r.variants[0].times_s.size(), 0u);
  EXPECT_EQ(r.variants[1].times_s.size(), 3u);
  EXPECT_EQ(r.completion.not_run.size(), 3u);
  EXPECT_EQ(ending(r.completion, firsttouch::any_failed(r)).exit_code, 10);
}

}  // namespace
}  // namespace xb
