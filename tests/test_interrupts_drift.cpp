// Where the stops (interrupts, time limits) meet the drift check and the memory budget's waived
// cells, without a GPU (a fake sample source): a stop during the reference
// measurements ends the run cleanly and leaves the check not completed; a
// run that measures nothing has no drift to check; and cells left out by
// the time limit or waived for memory make the one status partial, exit 10.
#include <gtest/gtest.h>

#include <csignal>

#include <nlohmann/json.hpp>

#include "cases/cases.hpp"
#include "cases/runner.hpp"
#include "base/stop.hpp"
#include "base/time_budget.hpp"
#include "fake_source.hpp"
#include "report/reporter.hpp"

namespace {

using json = nlohmann::json;
constexpr std::uint64_t kMiB = 1 << 20;

// A fake source whose n-th measurement (1-based, reference cells included)
// finds a SIGINT recorded, as if one had arrived while it ran.
class StopAtMeasurement : public FakeSource {
 public:
  explicit StopAtMeasurement(int n) : FakeSource(2, 0, &count_), n_(n) {}
  xb::ScenarioSamples run(const xb::Scenario& sc, const xb::SampleMetric& metric) override {
    if (count_ + 1 == n_) xb::request_stop(SIGINT);
    return FakeSource::run(sc, metric);
  }
  int measurements() const { return count_; }

 private:
  std::atomic<int> count_{0};
  int n_;
};

// host_to_device_memcpy_ce on 2 fake GPUs: 2 cells; the drift check's 2
// reference cells (host->gpu0, gpu0->gpu1) are measured before and after.
xb::RunRequest one_case_with_drift_check() {
  xb::RunRequest req;
  req.cases = xb::select_cases({"host_to_device_memcpy_ce"}, {});
  req.buffer_bytes = 4 * kMiB;
  req.stability_check = true;
  return req;
}

class StopState : public ::testing::Test {
 protected:
  void SetUp() override { xb::clear_stop(); }
  void TearDown() override { xb::clear_stop(); }
};

using DriftCheckStops = StopState;
using OnePartial = StopState;

}  // namespace

TEST_F(DriftCheckStops, AnUninterruptedRunMeasuresTheReferencesBeforeAndAfterItsCells) {
  StopAtMeasurement src(0);  // never stops
  const xb::RunResult run = xb::run_cases(src, one_case_with_drift_check(), {}, xb::RunControls{});
  EXPECT_EQ(src.measurements(), 2 + 2 + 2);
  EXPECT_EQ(run.completion.status, xb::RunStatus::complete);
  ASSERT_TRUE(run.stability.checked) << run.stability.error;
  ASSERT_EQ(run.stability.entries.size(), 2u);
  EXPECT_GT(run.stability.entries[0].end_gbps, 0);
  EXPECT_TRUE(run.stability.stable);  // the fake's samples repeat exactly
  EXPECT_EQ(xb::ending(run.completion, !xb::all_passed(run)).exit_code, 0);
}

TEST_F(DriftCheckStops, ASignalDuringTheStartValuesStopsTheRunBeforeAnyCell) {
  StopAtMeasurement src(1);
  const xb::RunResult run = xb::run_cases(src, one_case_with_drift_check(), {}, xb::RunControls{});
  EXPECT_EQ(run.completion.status, xb::RunStatus::interrupted);
  EXPECT_EQ(run.completion.stop, xb::StopReason::sigint);
  ASSERT_EQ(run.cases.size(), 1u);
  EXPECT_EQ(run.cases[0].status, xb::CaseStatus::not_run);
  EXPECT_TRUE(run.cases[0].matrices.empty() || run.cases[0].matrices[0].cells.empty());
  EXPECT_EQ(run.completion.not_run.size(), 2u);  // both cells of the case
  EXPECT_FALSE(run.stability.checked);
  EXPECT_TRUE(run.stability.entries.empty());
  EXPECT_NE(run.stability.error.find("interrupted by SIGINT"), std::string::npos) << run.stability.error;
  EXPECT_EQ(xb::ending(run.completion, !xb::all_passed(run)).exit_code, 130);
}

TEST_F(DriftCheckStops, ASignalDuringTheEndValuesKeepsEveryCellAndLeavesTheCheckNotCompleted) {
  StopAtMeasurement src(5);  // 2 references, 2 cells, then the first reference again
  const xb::RunResult run = xb::run_cases(src, one_case_with_drift_check(), {}, xb::RunControls{});
  EXPECT_EQ(run.completion.status, xb::RunStatus::interrupted);
  ASSERT_EQ(run.cases.size(), 1u);
  EXPECT_EQ(run.cases[0].status, xb::CaseStatus::passed) << run.cases[0].message;
  EXPECT_EQ(run.cases[0].matrices.at(0).cells.size(), 2u);
  EXPECT_TRUE(run.completion.not_run.empty());
  EXPECT_FALSE(run.stability.checked);
  ASSERT_EQ(run.stability.entries.size(), 2u);  // the start values were measured
  EXPECT_GT(run.stability.entries[0].start_gbps, 0);
  EXPECT_NE(run.stability.error.find("before the reference cells were measured again"), std::string::npos);
  EXPECT_EQ(xb::ending(run.completion, !xb::all_passed(run)).exit_code, 130);
  const json j = xb::records::run_json(run);
  EXPECT_EQ(j["status"], "interrupted");
  EXPECT_EQ(j["stability"]["checked"], false);
  EXPECT_TRUE(j["stability"]["references"][0]["end_gbps"].is_null()) << "no end value may read as measured";
  EXPECT_TRUE(j["stability"]["references"][0]["drift_pct"].is_null());
  std::ostringstream text;
  xb::report::make_reporter("text", text)->run(run);
  EXPECT_NE(text.str().find("# drift check: not completed: the run stopped"), std::string::npos) << text.str();
  EXPECT_EQ(text.str().find("# stable"), std::string::npos) << text.str();
}

TEST_F(DriftCheckStops, AResumeOfACompleteResultMeasuresNothingNotEvenTheReferences) {
  FakeSource first;
  const xb::RunResult complete = xb::run_cases(first, one_case_with_drift_check(), {}, xb::RunControls{});
  ASSERT_EQ(complete.completion.status, xb::RunStatus::complete);
  StopAtMeasurement src(0);
  const xb::RunResult again = xb::run_cases(src, one_case_with_drift_check(), {}, xb::RunControls{nullptr, nullptr, &complete});
  EXPECT_EQ(src.measurements(), 0);
  EXPECT_EQ(again.completion.status, xb::RunStatus::complete);
  EXPECT_EQ(again.cases.at(0).matrices.at(0).cells.size(), 2u);
  EXPECT_FALSE(again.stability.checked);
  EXPECT_TRUE(again.stability.error.empty()) << again.stability.error;
}

TEST_F(DriftCheckStops, TheEndValuesAreLeftOutWhenTheTimeLimitHasNoRoomForThem) {
  // Every cell fits; the references again would take an hour.
  xb::TimeBudget budget(60, [](const std::vector<xb::CellCost>&, const xb::CellCost& next) {
    return next.group == "drift check" ? 3600.0 : 0.0;
  });
  StopAtMeasurement src(0);
  const xb::RunResult run = xb::run_cases(src, one_case_with_drift_check(), {}, xb::RunControls{&budget, nullptr, nullptr});
  EXPECT_EQ(src.measurements(), 2 + 2);
  EXPECT_EQ(run.completion.status, xb::RunStatus::complete);
  EXPECT_FALSE(run.stability.checked);
  EXPECT_NE(run.stability.error.find("time limit"), std::string::npos) << run.stability.error;
}

// ---- one partial status -------------------------------------------------------

namespace {

// host_to_device_memcpy_ce needs one 4 MiB buffer on its GPU per cell,
// device_local_copy two: under a 5 MiB limit per GPU the local copies are
// waived.
xb::RunRequest host_and_local_copy() {
  xb::RunRequest req;
  req.cases = xb::select_cases({"host_to_device_memcpy_ce", "device_local_copy"}, {});
  req.buffer_bytes = 4 * kMiB;
  req.stability_check = false;
  return req;
}

}  // namespace

TEST_F(OnePartial, CellsWaivedForMemoryMakeTheRunPartialAsTheTimeLimitDoes) {
  FakeSource src;
  src.max_gpu_bytes = 5 * kMiB;
  const xb::RunResult waived = xb::run_cases(src, host_and_local_copy(), {}, xb::RunControls{});
  ASSERT_EQ(waived.cases.size(), 2u);
  EXPECT_EQ(waived.cases[0].status, xb::CaseStatus::passed) << waived.cases[0].message;
  EXPECT_EQ(waived.cases[1].status, xb::CaseStatus::waived) << waived.cases[1].message;
  EXPECT_EQ(waived.cases[1].waived_cells.size(), 2u);
  EXPECT_EQ(waived.completion.status, xb::RunStatus::partial);
  EXPECT_EQ(waived.completion.stop, xb::StopReason::memory);
  EXPECT_EQ(waived.completion.not_run, (std::vector<std::string>{"device_local_copy[0,0]", "device_local_copy[0,1]"}));
  EXPECT_EQ(xb::ending(waived.completion, !xb::all_passed(waived)).exit_code, 10);
  const json wj = xb::records::run_json(waived);
  EXPECT_EQ(wj["status"], "partial");
  EXPECT_EQ(wj["stop"]["reason"], "memory");
  EXPECT_EQ(wj["stop"]["not_run"].size(), 2u);

  // The time limit leaves the same cells out (they would take an hour).
  xb::TimeBudget budget(60, [](const std::vector<xb::CellCost>&, const xb::CellCost& next) {
    return next.group == "device_local_copy" ? 3600.0 : 0.0;
  });
  FakeSource roomy;
  const xb::RunResult timed = xb::run_cases(roomy, host_and_local_copy(), {}, xb::RunControls{&budget, nullptr, nullptr});
  EXPECT_EQ(timed.completion.status, xb::RunStatus::partial);
  EXPECT_EQ(timed.completion.stop, xb::StopReason::time_limit);
  EXPECT_EQ(timed.completion.not_run, waived.completion.not_run);
  EXPECT_EQ(xb::ending(timed.completion, !xb::all_passed(timed)).exit_code, 10);
  EXPECT_EQ(xb::records::run_json(timed)["status"], "partial");
}

TEST_F(OnePartial, AFailedCellOutranksPartialAndASignalOutranksBoth) {
  FakeSource src;
  src.max_gpu_bytes = 5 * kMiB;
  xb::RunResult run = xb::run_cases(src, host_and_local_copy(), {}, xb::RunControls{});
  run.cases[0].status = xb::CaseStatus::failed;
  EXPECT_EQ(xb::ending(run.completion, !xb::all_passed(run)).exit_code, 1);
  EXPECT_STREQ(xb::to_string(xb::ending(run.completion, !xb::all_passed(run)).outcome), "failed");
  run.completion.status = xb::RunStatus::interrupted;
  run.completion.stop = xb::StopReason::sigterm;
  EXPECT_EQ(xb::ending(run.completion, !xb::all_passed(run)).exit_code, 143);
  EXPECT_STREQ(xb::to_string(xb::ending(run.completion, !xb::all_passed(run)).outcome), "interrupted");
}
