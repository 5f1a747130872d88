// Nothing measured is lost, without a GPU: the stop state, the
// time limit, the fault hook, and whole commands (run, run --do, sweep)
// driven through a fake sample source, each failure kind checked for the
// cells it must keep, the file it must write and the exit code.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/cli.hpp"
#include "app/interrupt.hpp"
#include "compare/compare_json.hpp"
#include "base/error.hpp"
#include "base/fault.hpp"
#include "base/stop.hpp"
#include "base/time_budget.hpp"
#include "fake_source.hpp"
#include "in_process.hpp"
#include "report/reporter.hpp"

namespace {

using json = nlohmann::json;

// Sets an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (value.empty()) {
      unsetenv(name);
    } else {
      setenv(name, value.c_str(), 1);
    }
  }
  ~ScopedEnv() { unsetenv(name_); }

 private:
  const char* name_;
};

struct CommandRun {
  int code = -1;
  std::string out, err;
  int cells = 0;  // cells the fake source measured
};

// Runs an xferbench command line in-process, as main() does, measuring with
// a FakeSource; XFERBENCH_FAULT is `fault` for the duration.
CommandRun run_command(std::vector<std::string> args, const std::string& fault = "", double sample_s = 0) {
  ScopedEnv env("XFERBENCH_FAULT", fault);
  auto cells = std::make_shared<std::atomic<int>>(0);
  const InProcessRun run = run_in_process(std::move(args), [sample_s, cells](const xb::MeasureOptions&) {
    return std::make_unique<FakeSource>(2, sample_s, cells.get());
  });
  CommandRun r;
  r.code = run.code;
  r.out = run.out;
  r.err = run.err;
  r.cells = *cells;
  return r;
}

std::string temp_path(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "xb_interrupts/";
  mkdir(dir.c_str(), 0755);
  // Named after the test too: ctest runs the tests as parallel processes,
  // and several of them use the same file name.
  const std::string path = dir + ::testing::UnitTest::GetInstance()->current_test_info()->name() + "_" + name;
  std::remove(path.c_str());
  return path;
}

json read_json(const std::string& path) {
  std::ifstream f(path);
  EXPECT_TRUE(f.good()) << path << " was not written";
  return json::parse(f);
}

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// 6 cases, 12 planned cells on 2 fake GPUs (cells numbered #0..#11 in order).
const std::vector<std::string> kCases = {"-t", "host_to_device_memcpy_ce", "device_to_host_memcpy_ce",
                                         "device_to_device_memcpy_read_ce", "device_to_device_bidirectional_memcpy_write_ce",
                                         "host_device_latency_sm", "device_local_copy"};

// Without the drift check, so the fake source counts the cells alone
// (test_interrupts_drift.cpp covers the check under stops).
std::vector<std::string> run_args(const std::string& out, std::vector<std::string> extra = {}) {
  std::vector<std::string> a = {"run"};
  a.insert(a.end(), kCases.begin(), kCases.end());
  a.insert(a.end(), {"-o", out, "--drift-check", "off"});
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

// Planned cells present (first matrix of each case), and cells with an error.
int measured_cells(const json& doc) {
  int n = 0;
  for (const auto& c : doc["cases"])
    if (!c["matrices"].empty()) n += static_cast<int>(c["matrices"][0]["cells"].size());
  return n;
}

// ---- pieces ----------------------------------------------------------------

TEST(Interrupts, DurationsParseStrictly) {
  EXPECT_DOUBLE_EQ(xb::parse_duration_s("90s"), 90);
  EXPECT_DOUBLE_EQ(xb::parse_duration_s("5m"), 300);
  EXPECT_DOUBLE_EQ(xb::parse_duration_s("1h"), 3600);
  EXPECT_DOUBLE_EQ(xb::parse_duration_s("1.5h"), 5400);
  EXPECT_DOUBLE_EQ(xb::parse_duration_s("42"), 42);
  for (const char* bad : {"", "s", "5x", "5 m", "-1s", "0", "0s", "1.2.3s", ".5s", "5.s", "5min", "1e3", "99999999h"}) {
    try {
      xb::parse_duration_s(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const xb::Error& e) {
      EXPECT_EQ(e.kind(), xb::ErrorKind::usage);
      EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos) << e.what();
    }
  }
}

TEST(Interrupts, FaultPlanMatchesNumbersNamesSizesAndRanks) {
  xb::FaultPlan p("#2:cuda_error;host_to_device_memcpy_ce[0,1]:verify;4K:timeout@1;case_x:signal_int", 1);
  EXPECT_EQ(p.match({"a"}, 0), xb::FaultKind::none);
  EXPECT_EQ(p.match({"a"}, 2), xb::FaultKind::cuda_error);
  EXPECT_EQ(p.match({"host_to_device_memcpy_ce", "host_to_device_memcpy_ce[0,1]"}, 5), xb::FaultKind::verify);
  EXPECT_EQ(p.match({"4096"}, 7), xb::FaultKind::timeout);  // "4K" names 4096 bytes, rank 1 is this rank
  EXPECT_EQ(p.match({"case_x"}, 8), xb::FaultKind::signal_int);
  EXPECT_EQ(p.match({"case_x"}, 9), xb::FaultKind::none);  // signals fire once
  xb::FaultPlan other_rank("4K:timeout@1", 0);
  EXPECT_EQ(other_rank.match({"4096"}, 0), xb::FaultKind::none);
  for (const char* bad : {"x", ":verify", "a:explode", "#x:verify", "a:verify@r"}) {
    EXPECT_THROW(xb::FaultPlan(bad, -1), xb::Error) << bad;
  }
}

// `mark` changes nothing in the run: it prints one line saying where the
// run is (what tests/test_interrupts_mpi.sh waits for before it signals a
// rank), once, on the rank named.
TEST(Interrupts, FaultMarkPrintsOneLineOnceAndChangesNothing) {
  xb::clear_stop();
  xb::FaultPlan p("8:mark@1", 1);
  EXPECT_EQ(p.match({"8"}, 0), xb::FaultKind::mark);
  EXPECT_EQ(p.match({"8"}, 1), xb::FaultKind::none);  // fires once
  EXPECT_EQ(xb::FaultPlan("8:mark@1", 0).match({"8"}, 0), xb::FaultKind::none);
  ::testing::internal::CaptureStderr();
  EXPECT_NO_THROW(xb::inject_fault(xb::FaultKind::mark, "rank 1 at 8 bytes"));
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "xferbench: XFERBENCH_FAULT mark: rank 1 at 8 bytes starts\n");
  EXPECT_EQ(xb::stop_requested(), xb::StopReason::none);
}

TEST(Interrupts, CostModelScalesTheLastCellOfTheGroup) {
  std::vector<xb::CellCost> done = {{"a", 1000, 1.0}, {"b", 0, 3.0}};
  EXPECT_DOUBLE_EQ(xb::measured_cost_model(done, {"a", 4000, 0}), 1.0);  // one size: its cost
  done.push_back({"a", 2000, 1.5});
  EXPECT_DOUBLE_EQ(xb::measured_cost_model(done, {"a", 4000, 0}), 2.5);  // + 0.5 s per 1000 B
  EXPECT_DOUBLE_EQ(xb::measured_cost_model(done, {"a", 500, 0}), 1.5);   // never below the last
  EXPECT_NEAR(xb::measured_cost_model(done, {"c", 0, 0}), 5.5 / 3, 1e-12);  // unknown group: the mean
  EXPECT_DOUBLE_EQ(xb::measured_cost_model({}, {"c", 0, 0}), 0.0);
  xb::TimeBudget none;
  EXPECT_TRUE(none.fits({"a", 1, 0}));
  xb::TimeBudget tight(10.0, [](const std::vector<xb::CellCost>&, const xb::CellCost& c) { return c.seconds; });
  EXPECT_DOUBLE_EQ(tight.margin_s(), 1.0);
  EXPECT_TRUE(tight.fits({"a", 0, 8.0}));
  EXPECT_FALSE(tight.fits({"a", 0, 9.5}));
}

TEST(Interrupts, FirstSignalIsRecordedAndTheSecondEndsTheProcess) {
  {
    xb::app::StopSignals signals;
    EXPECT_EQ(xb::stop_requested(), xb::StopReason::none);
    std::raise(SIGTERM);
    EXPECT_EQ(xb::stop_requested(), xb::StopReason::sigterm);
    EXPECT_THROW(xb::throw_if_stopped(), xb::Stopped);
  }
  xb::clear_stop();
  EXPECT_EXIT(
      {
        xb::app::StopSignals signals;
        std::raise(SIGINT);
        std::raise(SIGINT);
        std::exit(0);  // not reached: the second signal ends the process by SIGINT
      },
      ::testing::KilledBySignal(SIGINT), "");
}

// Slurm signals every task of a cancelled job and srun relays its own
// SIGTERM to them too: the copy must not end the process before it writes.
TEST(Interrupts, ASigtermRightAfterTheFirstIsSrunsCopyNotASecondSignal) {
  xb::clear_stop();
  EXPECT_EXIT(
      {
        xb::app::StopSignals signals;
        std::raise(SIGTERM);
        std::raise(SIGTERM);
        std::exit(xb::stop_requested() == xb::StopReason::sigterm ? 7 : 1);
      },
      ::testing::ExitedWithCode(7), "");
  EXPECT_EXIT(
      {
        xb::app::StopSignals signals;
        std::raise(SIGTERM);
        std::raise(SIGINT);
        std::exit(0);  // not reached: a different signal is a second one
      },
      ::testing::KilledBySignal(SIGINT), "");
}

TEST(Interrupts, DeadlineStopsTheLoops) {
  xb::clear_stop();
  xb::set_stop_deadline(std::chrono::steady_clock::now() - std::chrono::seconds(1));
  EXPECT_EQ(xb::stop_requested(), xb::StopReason::time_limit);
  EXPECT_EQ(xb::stop_exit_code(xb::StopReason::time_limit), 10);
  xb::clear_stop();
  EXPECT_EQ(xb::stop_requested(), xb::StopReason::none);
}

// ---- run: every failure kind keeps the other cells -------------------------

TEST(InterruptsRun, UninterruptedRunMeasuresEveryCell) {
  const std::string out = temp_path("full.json");
  const CommandRun r = run_command(run_args(out));
  EXPECT_EQ(r.code, 0) << r.err;
  const json doc = read_json(out);
  EXPECT_EQ(doc["status"], "passed");
  EXPECT_EQ(measured_cells(doc), 12);
  EXPECT_EQ(r.cells, 12);
  EXPECT_TRUE(doc["stop"]["resumed_from"].is_null());
}

void expect_interrupted_after_three(const CommandRun& r, const std::string& out, const char* signal, int code) {
  EXPECT_EQ(r.code, code) << r.err;
  const json doc = read_json(out);
  EXPECT_EQ(doc["status"], "interrupted");
  EXPECT_EQ(doc["stop"]["reason"], signal);
  EXPECT_EQ(measured_cells(doc), 3);  // #0..#2 measured, #3 abandoned at its first sample
  EXPECT_EQ(doc["cases"][0]["status"], "passed");
  EXPECT_EQ(doc["cases"][1]["status"], "not_run");
  EXPECT_EQ(doc["cases"][1]["matrices"][0]["cells"].size(), 1u);
  for (int c = 2; c < 6; ++c) EXPECT_EQ(doc["cases"][c]["status"], "not_run") << c;
  EXPECT_EQ(doc["stop"]["not_run"].size(), 9u);
  EXPECT_EQ(doc["stop"]["not_run"][0], "device_to_host_memcpy_ce[0,1]");
  EXPECT_NE(r.out.find("# NOT RUN"), std::string::npos);
  EXPECT_NE(r.out.find("# run interrupted"), std::string::npos);
}

TEST(InterruptsRun, SigintKeepsTheCompletedCellsAndExits130) {
  const std::string out = temp_path("sigint.json");
  expect_interrupted_after_three(run_command(run_args(out), "#3:signal_int"), out, "SIGINT", 130);
}

TEST(InterruptsRun, SigtermKeepsTheCompletedCellsAndExits143) {
  const std::string out = temp_path("sigterm.json");
  expect_interrupted_after_three(run_command(run_args(out), "#3:signal_term"), out, "SIGTERM", 143);
}

TEST(InterruptsRun, InterruptedCsvKeepsTheCellsToo) {
  const std::string out = temp_path("sigint.csv");
  const CommandRun r = run_command(run_args(out), "#3:signal_int");
  EXPECT_EQ(r.code, 130);
  const std::string csv = slurp(out);
  EXPECT_NE(csv.find("device_to_host_memcpy_ce,not_run,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("device_local_copy,not_run,"), std::string::npos) << csv;
}

// A failing cell is marked; every other cell is still measured.
void expect_one_failed_cell(const std::string& fault, const std::string& text, const std::string& case_status) {
  const std::string out = temp_path("fault.json");
  const CommandRun r = run_command(run_args(out), fault);
  EXPECT_EQ(r.code, 1) << r.err;
  const json doc = read_json(out);
  EXPECT_EQ(doc["status"], "failed");
  EXPECT_EQ(measured_cells(doc), 12) << fault;
  const json& c = doc["cases"][1];
  EXPECT_EQ(c["status"], case_status);
  EXPECT_NE(c["message"].get<std::string>().find(text), std::string::npos) << c["message"];
  for (std::size_t i = 0; i < doc["cases"].size(); ++i) {
    if (i != 1) {
      EXPECT_EQ(doc["cases"][i]["status"], "passed") << i;
    }
  }
}

TEST(InterruptsRun, ACudaErrorMarksOneCell) {
  expect_one_failed_cell("device_to_host_memcpy_ce[0,1]:cuda_error", "injected fault: cudaErrorLaunchFailure", "error");
}

TEST(InterruptsRun, ATimeoutMarksOneCell) {
  expect_one_failed_cell("#3:timeout", "no answer within the timeout", "error");
}

TEST(InterruptsRun, AFailedCheckMarksOneCell) {
  expect_one_failed_cell("device_to_host_memcpy_ce[0,1]:verify", "verification failed", "failed");
}

TEST(InterruptsRun, ErrorCellsCarryTheirErrorAndNoValue) {
  const std::string out = temp_path("errcell.json");
  run_command(run_args(out), "device_to_host_memcpy_ce[0,1]:cuda_error");
  const json cell = read_json(out)["cases"][1]["matrices"][0]["cells"][1];
  EXPECT_EQ(cell["col"], 1);
  EXPECT_NE(cell["error"].get<std::string>().find("cudaErrorLaunchFailure"), std::string::npos);
  EXPECT_EQ(cell["samples"], 0);
}

TEST(InterruptsRun, AStickyCudaErrorStopsTheRunKeepingWhatItHas) {
  const std::string out = temp_path("sticky.json");
  const CommandRun r = run_command(run_args(out), "#2:cuda_sticky");
  EXPECT_EQ(r.code, 8) << r.err;
  const json doc = read_json(out);
  EXPECT_EQ(doc["status"], "interrupted");
  EXPECT_EQ(doc["stop"]["reason"], "gpu_unusable");
  EXPECT_EQ(measured_cells(doc), 3);  // two measured, the failing one with its error
  EXPECT_EQ(doc["cases"][1]["status"], "error");
  EXPECT_EQ(r.cells, 2);
}

// Time-limit tests time real runs: a 10 s limit keeps a 1 s margin (10%)
// for the sample in flight at the deadline (0.4 s) and the writing on a
// loaded machine, and the fake source's sleeps make the whole run longer
// than the limit on any machine (12 cells x 3 samples x 0.4 s = 14.4 s).
constexpr double kLimitS = 10, kSampleS = 0.4;

TEST(InterruptsRun, TimeLimitSkipsWhatWillNotFitAndEndsInTime) {
  const std::string out = temp_path("limited.json");
  const auto t0 = std::chrono::steady_clock::now();
  const CommandRun r = run_command(run_args(out, {"--time-limit", "10s"}), "", kSampleS);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.code, 10) << r.err;
  EXPECT_LT(wall, kLimitS);
  const json doc = read_json(out);
  EXPECT_EQ(doc["status"], "partial");
  EXPECT_EQ(doc["stop"]["reason"], "time_limit");
  EXPECT_DOUBLE_EQ(doc["stop"]["time_limit_seconds"].get<double>(), kLimitS);
  const int kept = measured_cells(doc);
  EXPECT_GE(kept, 2);
  EXPECT_LT(kept, 12);
  EXPECT_EQ(doc["stop"]["not_run"].size(), static_cast<std::size_t>(12 - kept));
}

// ---- resume ------------------------------------------------------------------

TEST(InterruptsResume, ResumeMeasuresOnlyTheMissingCellsAndMatchesAFullRun) {
  const std::string part = temp_path("part.json"), merged = temp_path("merged.json"), full = temp_path("ref.json");
  ASSERT_EQ(run_command(run_args(part), "#5:signal_int").code, 130);
  ASSERT_EQ(run_command(run_args(full)).code, 0);
  const CommandRun r = run_command(run_args(merged, {"--resume", part}));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.cells, 7);  // 12 - the 5 kept
  const json doc = read_json(merged);
  EXPECT_EQ(doc["status"], "passed");
  EXPECT_EQ(doc["stop"]["resumed_from"], part);
  EXPECT_EQ(measured_cells(doc), 12);
  const xb::CompareResult cmp = xb::compare_documents(read_json(full), doc, xb::CompareOptions{});
  EXPECT_FALSE(cmp.regression());
  EXPECT_EQ(cmp.count(xb::Verdict::same), static_cast<int>(cmp.entries.size()));
  EXPECT_EQ(cmp.entries.size(), 16u);  // the bidirectional case reports 3 matrices
  EXPECT_NE(r.out.find("# resumed from"), std::string::npos);
}

TEST(InterruptsResume, ComparingWithAPartialResultSkipsWhatWasNotRun) {
  const std::string part = temp_path("cmp_part.json"), full = temp_path("cmp_full.json");
  ASSERT_EQ(run_command(run_args(part), "#5:signal_int").code, 130);
  ASSERT_EQ(run_command(run_args(full)).code, 0);
  const xb::CompareResult cmp = xb::compare_documents(read_json(full), read_json(part), xb::CompareOptions{});
  EXPECT_EQ(cmp.count(xb::Verdict::same), 5);
  EXPECT_EQ(cmp.count(xb::Verdict::skipped), 11);  // the 7 cells not run (the bidirectional ones in 3 matrices)
  EXPECT_FALSE(cmp.regression());
}

TEST(InterruptsResume, ResumeIntoTheSameFileAndAgainWhenComplete) {
  const std::string file = temp_path("inplace.json");
  ASSERT_EQ(run_command(run_args(file), "#7:signal_term").code, 143);
  EXPECT_EQ(run_command(run_args(file, {"--resume", file})).code, 0);
  EXPECT_EQ(read_json(file)["status"], "passed");
  const CommandRun again = run_command(run_args(file, {"--resume", file}));
  EXPECT_EQ(again.code, 0);
  EXPECT_EQ(again.cells, 0);
  EXPECT_EQ(measured_cells(read_json(file)), 12);
}

TEST(InterruptsResume, AFailedCellStaysFailedAfterResume) {
  const std::string part = temp_path("part_fail.json"), merged = temp_path("merged_fail.json");
  ASSERT_EQ(run_command(run_args(part), "#1:cuda_error;#4:signal_int").code, 130);
  const CommandRun r = run_command(run_args(merged, {"--resume", part}));
  EXPECT_EQ(r.code, 1);
  const json doc = read_json(merged);
  EXPECT_EQ(doc["cases"][0]["status"], "error");
  EXPECT_EQ(measured_cells(doc), 12);
}

void expect_refusal(const std::function<void(json&)>& change, std::vector<std::string> extra, const std::string& why) {
  const std::string part = temp_path("refuse.json"), out = temp_path("refuse_out.json");
  ASSERT_EQ(run_command(run_args(part), "#3:signal_int").code, 130);
  json doc = read_json(part);
  change(doc);
  std::ofstream(part) << doc.dump(2);
  extra.insert(extra.end(), {"--resume", part});
  const CommandRun r = run_command(run_args(out, extra));
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("cannot resume"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(why), std::string::npos) << r.err;
  EXPECT_EQ(r.cells, 0);
}

TEST(InterruptsResume, RefusesAnotherMachineBuildOrSettings) {
  expect_refusal([](json& d) { d["environment"]["hostname"] = "elsewhere"; }, {}, "another machine");
  expect_refusal([](json& d) { d["environment"]["gpus"][1]["uuid"] = "GPU-other"; }, {}, "other GPUs");
  expect_refusal([](json& d) { d["environment"]["gpus"].erase(1); }, {}, "1 GPU(s)");
  expect_refusal([](json& d) { d["tool"]["version"] = "0.0.1"; }, {}, "another build");
  expect_refusal([](json&) {}, {"-b", "64"}, "other settings");
}

TEST(InterruptsResume, RefusesWhatIsNotARunResult) {
  const std::string bad = temp_path("notjson.json"), out = temp_path("o.json");
  std::ofstream(bad) << "{ nope";
  CommandRun r = run_command(run_args(out, {"--resume", bad}));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("is not JSON"), std::string::npos) << r.err;
  r = run_command(run_args(out, {"--resume", temp_path("missing.json")}));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("cannot read --resume file"), std::string::npos) << r.err;
}

// ---- sweep -------------------------------------------------------------------

std::vector<std::string> sweep_args(const std::string& out, std::vector<std::string> extra = {}) {
  std::vector<std::string> a = {"sweep", "--do", "0:HtoD", "--min", "1K", "--max", "1M", "-o", out};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

std::size_t rows(const json& doc) { return doc["series"].empty() ? 0 : doc["series"][0]["rows"].size(); }

TEST(InterruptsSweep, SignalKeepsTheSizesMeasuredAndResumeCompletesThem) {
  const std::string part = temp_path("sweep_part.json"), merged = temp_path("sweep_merged.json");
  const CommandRun r = run_command(sweep_args(part), "16K:signal_term");
  EXPECT_EQ(r.code, 143) << r.err;
  json doc = read_json(part);
  EXPECT_EQ(doc["status"], "interrupted");
  EXPECT_EQ(rows(doc), 4u);  // 1K .. 8K
  EXPECT_EQ(doc["stop"]["not_run_bytes"].size(), 7u);
  EXPECT_NE(r.out.find("# sweep interrupted"), std::string::npos);
  const CommandRun resumed = run_command(sweep_args(merged, {"--resume", part}));
  EXPECT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_EQ(resumed.cells, 7);
  doc = read_json(merged);
  EXPECT_EQ(doc["status"], "passed");
  EXPECT_EQ(rows(doc), 11u);
  EXPECT_EQ(doc["series"][0]["rows"][4]["bytes"], 16384);
  EXPECT_FALSE(doc["series"][0]["fit"].is_null());
}

TEST(InterruptsSweep, EachFailureKindKeepsTheOtherSizes) {
  for (const std::string kind : {"cuda_error", "timeout", "verify"}) {
    const std::string out = temp_path("sweep_" + kind + ".json");
    const CommandRun r = run_command(sweep_args(out), "4K:" + kind);
    EXPECT_EQ(r.code, 1) << kind << ": " << r.err;
    const json doc = read_json(out);
    EXPECT_EQ(doc["status"], "failed") << kind;
    EXPECT_EQ(rows(doc), kind == "verify" ? 11u : 10u) << kind;
    EXPECT_NE(doc["messages"][0].get<std::string>().find("at 4096 bytes"), std::string::npos) << kind;
  }
}

// 11 sizes of 3 samples of 0.4 s: at least 13.2 s, beyond the 10 s limit.
TEST(InterruptsSweep, TimeLimitEndsInTime) {
  const std::string out = temp_path("sweep_limit.json");
  const auto t0 = std::chrono::steady_clock::now();
  const CommandRun r = run_command(sweep_args(out, {"--time-limit", "10s"}), "", kSampleS);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.code, 10) << r.err;
  EXPECT_LT(wall, kLimitS);
  const json doc = read_json(out);
  EXPECT_EQ(doc["status"], "partial");
  EXPECT_GE(rows(doc), 2u);
  EXPECT_EQ(rows(doc) + doc["stop"]["not_run_bytes"].size(), 11u);
}

// ---- run --do (one cell) ---------------------------------------------------

TEST(InterruptsScenario, SignalWritesTheScenarioAsNotMeasured) {
  const std::string out = temp_path("do.json");
  const CommandRun r = run_command({"run", "--do", "all:1M:both", "-o", out}, "scenario:signal_int");
  EXPECT_EQ(r.code, 130) << r.err;
  const json doc = read_json(out);
  EXPECT_EQ(doc["status"], "interrupted");
  EXPECT_EQ(doc["stop"]["reason"], "SIGINT");
  ASSERT_EQ(doc["transfers"].size(), 4u);
  EXPECT_TRUE(doc["transfers"][0]["bandwidth_gbps"].is_null());
  EXPECT_TRUE(doc["scenario"].is_null());
  EXPECT_NE(r.out.find("# NOT RUN"), std::string::npos);
}

TEST(InterruptsScenario, ErrorsAndFailedChecksAreWritten) {
  const std::string out = temp_path("do_err.json");
  CommandRun r = run_command({"run", "--do", "0:HtoD:1M", "-o", out}, "scenario:cuda_error");
  EXPECT_EQ(r.code, 8) << r.err;
  json doc = read_json(out);
  EXPECT_EQ(doc["status"], "failed");
  EXPECT_NE(doc["error"].get<std::string>().find("injected fault"), std::string::npos);
  r = run_command({"run", "--do", "0:HtoD:1M", "-o", out}, "scenario:verify");
  EXPECT_EQ(r.code, 1) << r.err;
  doc = read_json(out);
  EXPECT_EQ(doc["transfers"][0]["verification"]["status"], "failed");
  EXPECT_GT(doc["transfers"][0]["bandwidth_gbps"].get<double>(), 0);
}

TEST(InterruptsScenario, ResumeRunsAnInterruptedScenarioAgain) {
  const std::string part = temp_path("do_part.json"), out = temp_path("do_full.json");
  ASSERT_EQ(run_command({"run", "--do", "0:HtoD:1M", "-o", part}, "scenario:signal_term").code, 143);
  const CommandRun r = run_command({"run", "--do", "0:HtoD:1M", "-o", out, "--resume", part});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(read_json(out)["status"], "passed");
  // Complete: read back as its record and written again as it was, to the
  // screen and the file, byte for byte.
  const std::string before = slurp(out);
  const CommandRun again = run_command({"run", "--do", "0:HtoD:1M", "-o", out, "--resume", out, "--format", "json"});
  EXPECT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(again.cells, 0);
  EXPECT_EQ(again.out, before);
  EXPECT_EQ(slurp(out), before);
}

}  // namespace

// ---- check -----------------------------------------------------------------

// `xferbench check` on 2 fake GPUs: the judged cells of the measured part.
int check_cells(const json& doc) { return static_cast<int>(doc["check"]["cells"].size()); }

TEST(InterruptsCheck, UninterruptedCheckMeasuresAndJudgesEveryCell) {
  const std::string out = temp_path("check.json");
  const CommandRun r = run_command({"check", "-o", out, "--budget", "0.01"});
  const json doc = read_json(out);
  EXPECT_EQ(r.code, doc["check"]["verdict"] == "pass" ? 0 : 1) << r.err;
  EXPECT_NE(doc["check"]["verdict"], "interrupted");
  EXPECT_NE(doc["check"]["verdict"], "partial");
  EXPECT_FALSE(doc["stop"].contains("not_run"));
  EXPECT_GT(check_cells(doc), 10);
}

void expect_check_interrupted(const std::string& fault, const char* signal, int code) {
  const std::string out = temp_path("check_signal.json");
  const CommandRun r = run_command({"check", "-o", out, "--budget", "0.01"}, fault);
  EXPECT_EQ(r.code, code) << r.err;
  const json doc = read_json(out);
  EXPECT_EQ(doc["status"], "interrupted");
  EXPECT_EQ(doc["check"]["verdict"], "interrupted");
  EXPECT_EQ(doc["check"]["exit_code"], code);
  EXPECT_EQ(doc["stop"]["reason"], signal);
  EXPECT_EQ(measured_cells(doc), 3);  // #0..#2 measured, #3 abandoned at its first sample
  EXPECT_GE(check_cells(doc), 1);     // what was measured is judged
  EXPECT_FALSE(doc["stop"]["not_run"].empty());
  EXPECT_EQ(doc["cases"][0]["status"], "passed");
  EXPECT_NE(r.out.find("xferbench check: INTERRUPTED (interrupted by " + std::string(signal) + ")"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("# NOT RUN"), std::string::npos);
  EXPECT_NE(r.out.find("not accepted"), std::string::npos);
}

TEST(InterruptsCheck, SigintKeepsWhatWasJudgedAndExits130) { expect_check_interrupted("#3:signal_int", "SIGINT", 130); }

TEST(InterruptsCheck, SigtermKeepsWhatWasJudgedAndExits143) { expect_check_interrupted("#3:signal_term", "SIGTERM", 143); }

TEST(InterruptsCheck, EachFailureKindMarksOneCellAndTheCheckGoesOn) {
  for (const std::string kind : {"cuda_error", "timeout", "verify"}) {
    const std::string out = temp_path("check_fault.json");
    const CommandRun r = run_command({"check", "-o", out, "--budget", "0.01"}, "#1:" + kind);
    EXPECT_EQ(r.code, 1) << kind << ": " << r.err;
    const json doc = read_json(out);
    EXPECT_EQ(doc["check"]["verdict"], "fail") << kind;
    EXPECT_FALSE(doc["stop"].contains("not_run")) << kind;  // every other cell measured
    const json& problems = doc["check"]["case_problems"];
    ASSERT_EQ(problems.size(), 1u) << kind << ": " << problems.dump();
    EXPECT_NE(problems[0]["message"].get<std::string>().find(kind == "verify" ? "verification failed" : "injected fault"),
              std::string::npos) << kind << ": " << problems.dump();
  }
}

// More than 10 cells of 3 samples of 0.4 s: beyond the 10 s limit.
TEST(InterruptsCheck, TimeLimitEndsInTimeAsPartialAndIsNotAccepted) {
  const std::string out = temp_path("check_limited.json");
  const auto t0 = std::chrono::steady_clock::now();
  const CommandRun r = run_command({"check", "-o", out, "--time-limit", "10s"}, "", kSampleS);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(wall, kLimitS);
  const json doc = read_json(out);
  EXPECT_EQ(doc["stop"]["reason"], "time_limit");
  EXPECT_FALSE(doc["stop"]["not_run"].empty());
  // Partial (exit 10) unless a measured cell failed (exit 1); never a PASS.
  const std::string verdict = doc["check"]["verdict"];
  EXPECT_TRUE(verdict == "partial" || verdict == "fail") << verdict;
  EXPECT_EQ(r.code, verdict == "partial" ? 10 : 1) << r.err;
  EXPECT_NE(r.out.find(verdict == "partial" ? "PARTIAL" : "FAIL"), std::string::npos) << r.out;
}

TEST(InterruptsCheck, AJudgedRecordingOfAnInterruptedRunIsNotAPass) {
  const std::string run_file = temp_path("run_for_judge.json");
  const CommandRun first = run_command(run_args(run_file), "#3:signal_int");
  ASSERT_EQ(first.code, 130);
  const std::string out = temp_path("judged.json");
  const CommandRun r = run_command({"check", "--judge", run_file, "-o", out});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_EQ(read_json(out)["check"]["verdict"], "interrupted");
}
