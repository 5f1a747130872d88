// The loaded-latency sample's feeding policy (measure/load_feed.hpp) on a
// simulated device. The failure it replaces: on gpu1 of an H200
// x2, `device_local_latency_sm_under_local_copy_ce` failed with "the load
// (16384 copies of gpu1->gpu1) did not cover the chase" after doubling its
// copies six times. The old policy queued every copy of a sample before the
// chase; a copy within one GPU's memory that holds the SMs while it runs
// keeps the chase's blocks waiting behind every copy queued before them, so
// the chase ran after the last copy however many there were.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "base/error.hpp"
#include "measure/load_feed.hpp"

namespace {

// Copies on each load stream run back to back, `copy_s` each. The chase
// runs `chase_s` once the first copy of every load has ended; with
// `copies_hold_chase`, also not before every copy queued ahead of it has
// ended (a copy that runs as a kernel on the chase's GPU).
class SimDevice final : public xb::LoadDriver {
 public:
  SimDevice(std::size_t loads, double copy_s, double chase_s, bool copies_hold_chase)
      : copy_s_(copy_s), chase_s_(chase_s), hold_(copies_hold_chase), ends_(loads), ended_(loads, 0) {}

  std::size_t loads() const override { return ends_.size(); }
  void begin_sample() override {
    for (auto& e : ends_) e.clear();
    ended_.assign(ends_.size(), 0);
    chase_start_ = chase_end_ = -1;
    t0_ = now_;
  }
  void queue_copy(std::size_t l) override {
    const double start = std::max(now_, ends_[l].empty() ? now_ : ends_[l].back());
    ends_[l].push_back(start + copy_s_);
  }
  std::size_t queued(std::size_t l) const override { return ends_[l].size(); }
  std::size_t ended(std::size_t l) override {
    while (ended_[l] < ends_[l].size() && ends_[l][ended_[l]] <= now_) ++ended_[l];
    return ended_[l];
  }
  void start_chase() override {
    double start = now_;
    for (const auto& e : ends_) start = std::max(start, hold_ ? e.back() : e.front());
    chase_start_ = start;
    chase_end_ = start + chase_s_;
  }
  bool chase_done() override { return now_ >= chase_end_; }
  void finish_copies() override {
    for (const auto& e : ends_) now_ = std::max(now_, e.back());
  }
  bool covered() override {
    for (const auto& e : ends_)
      if (e.front() > chase_start_ || e.back() <= chase_end_) return false;
    return true;
  }
  double elapsed_s() override { return now_ - t0_; }
  void pause() override { now_ += 20e-6; }

  // The old policy: every copy queued first, then the chase, then a wait.
  bool old_sample(std::size_t copies) {
    begin_sample();
    for (std::size_t l = 0; l < loads(); ++l)
      for (std::size_t j = 0; j < copies; ++j) queue_copy(l);
    start_chase();
    now_ = std::max(now_, chase_end_);
    finish_copies();
    return covered();
  }

 private:
  double copy_s_, chase_s_;
  bool hold_;
  std::vector<std::vector<double>> ends_;
  std::vector<std::size_t> ended_;
  double now_ = 0, t0_ = 0, chase_start_ = -1, chase_end_ = -1;
};

TEST(LoadFeed, OldPolicyNeverCoveredAChaseThatWaitsBehindItsCopies) {
  // 512 MiB copies within an H200's memory (~0.3 ms), a chase of ~0.1 s.
  SimDevice gpu(1, 3e-4, 0.1, true);
  std::size_t copies = 1000;  // 3x the idle chase's worth, as the old policy sized it
  bool covered = false;
  for (int attempt = 0; attempt <= 6 && !covered; ++attempt, copies *= 2)
    covered = gpu.old_sample(std::min<std::size_t>(copies, 1 << 14));
  EXPECT_FALSE(covered);
}

TEST(LoadFeed, KeepsCopiesInFlightUntilTheChaseStops) {
  for (const bool hold : {true, false}) {
    SimDevice gpu(2, 3e-4, 0.1, hold);
    EXPECT_TRUE(xb::feed_loaded_sample(gpu, 4, 60)) << hold;
    // Copies queued only while needed: the chase's length plus what was in flight.
    for (std::size_t l = 0; l < 2; ++l) EXPECT_LT(gpu.queued(l), 0.1 / 3e-4 + 16) << hold;
  }
  // A chase many times longer than a copy, and copies longer than the chase.
  SimDevice long_chase(1, 1e-3, 5.0, true);
  EXPECT_TRUE(xb::feed_loaded_sample(long_chase, 2, 60));
  SimDevice long_copies(3, 0.05, 0.01, false);
  EXPECT_TRUE(xb::feed_loaded_sample(long_copies, 2, 60));
}

TEST(LoadFeed, AChaseThatNeverEndsIsATimeoutNotAHang) {
  SimDevice stuck(1, 1e-3, 1e9, false);
  try {
    xb::feed_loaded_sample(stuck, 2, 1.0);
    FAIL() << "no timeout";
  } catch (const xb::Error& e) {
    EXPECT_EQ(e.kind(), xb::ErrorKind::timeout);
    EXPECT_NE(std::string(e.what()).find("did not end within 1 s"), std::string::npos) << e.what();
  }
}

}  // namespace
