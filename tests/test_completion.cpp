// The one rule from a completion to the verdict and the exit code
// (records/completion.hpp, docs/interrupts.md "Outcome and exit code"):
// the rule itself for every outcome, and for each command run in-process
// on a fake source that the completion in the result it wrote gives the
// exit code it returned (pingpong and first-touch: test_interrupts_ranks.cpp).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fake_source.hpp"
#include "in_process.hpp"
#include "records/completion.hpp"
#include "records/document.hpp"
#include "records/run_json.hpp"

namespace xb {
namespace {

using json = nlohmann::json;

Completion stopped(RunStatus status, StopReason stop) {
  Completion c;
  c.status = status;
  c.stop = stop;
  return c;
}

Completion errored(ErrorKind kind) {
  Completion c;
  c.error = "it broke";
  c.error_kind = kind;
  return c;
}

struct Row {
  const char* what;
  Completion completion;
  bool failed;
  PartialMeans partial;
  Outcome outcome;
  int code;
};

TEST(Completion, OneRuleForEveryOutcome) {
  const auto P = PartialMeans::partial, T = PartialMeans::time_limit_only;
  const RunStatus complete = RunStatus::complete, interrupted = RunStatus::interrupted, partial = RunStatus::partial;
  const std::vector<Row> table = {
      {"complete", {}, false, P, Outcome::passed, 0},
      {"failed", {}, true, P, Outcome::failed, 1},
      {"SIGINT", stopped(interrupted, StopReason::sigint), true, P, Outcome::interrupted, 130},
      {"SIGTERM", stopped(interrupted, StopReason::sigterm), false, P, Outcome::interrupted, 143},
      {"GPU unusable", stopped(interrupted, StopReason::gpu_unusable), true, T, Outcome::interrupted, 8},
      {"time limit", stopped(partial, StopReason::time_limit), false, P, Outcome::partial, 10},
      {"memory", stopped(partial, StopReason::memory), false, P, Outcome::partial, 10},
      {"partial and failed", stopped(partial, StopReason::time_limit), true, P, Outcome::failed, 1},
      {"cuda error", errored(ErrorKind::cuda), false, P, Outcome::failed, 8},
      {"timeout error outranks failed", errored(ErrorKind::timeout), true, P, Outcome::failed, 9},
      {"check: time limit", stopped(partial, StopReason::time_limit), false, T, Outcome::partial, 10},
      {"check: memory is not partial", stopped(partial, StopReason::memory), false, T, Outcome::passed, 0},
      {"nvbandwidth: time limit", stopped(partial, StopReason::time_limit), false, T, Outcome::partial, 10},
      {"nvbandwidth: memory waivers keep 0", stopped(partial, StopReason::memory), false, T, Outcome::passed, 0},
      {"nvbandwidth: memory and failed", stopped(partial, StopReason::memory), true, T, Outcome::failed, 1},
      {"nvbandwidth: SIGINT", stopped(interrupted, StopReason::sigint), false, T, Outcome::interrupted, 130},
      {"no stop", stopped(complete, StopReason::none), false, T, Outcome::passed, 0},
  };
  for (const Row& row : table) {
    const Ending v = ending(row.completion, row.failed, row.partial);
    EXPECT_EQ(v.outcome, row.outcome) << row.what;
    EXPECT_STREQ(to_string(v.outcome), to_string(row.outcome)) << row.what;
    EXPECT_EQ(v.exit_code, row.code) << row.what;
  }
  // A failure of its own kind (pingpong's failed sizes).
  EXPECT_EQ(ending({}, std::optional(ErrorKind::timeout)).exit_code, 9);
  EXPECT_EQ(ending(stopped(partial, StopReason::time_limit), std::nullopt).exit_code, 10);
}

TEST(Completion, AStopRequestIsInterruptedOrPartial) {
  Completion c;
  record_stop(c, Stopped(StopReason::sigterm, "interrupted by SIGTERM"));
  EXPECT_EQ(c.status, RunStatus::interrupted);
  EXPECT_EQ(c.message, "interrupted by SIGTERM");
  record_stop(c, Stopped(StopReason::time_limit, "time limit reached"));
  EXPECT_EQ(c.status, RunStatus::partial);
  EXPECT_EQ(c.stop, StopReason::time_limit);
}

TEST(Completion, TheStopSectionRoundTrips) {
  Completion c = stopped(RunStatus::interrupted, StopReason::sigint);
  c.message = "interrupted by SIGINT";
  c.not_run = {"a", "b"};
  c.time_limit_s = 5;
  const json doc = {{"status", "interrupted"}, {"stop", records::completion_json(c)}};
  Completion back;
  records::decode_completion(records::Fields(doc, ""), back);
  EXPECT_EQ(back.status, c.status);
  EXPECT_EQ(back.stop, c.stop);
  EXPECT_EQ(back.message, c.message);
  EXPECT_EQ(back.not_run, c.not_run);
  EXPECT_EQ(back.time_limit_s, 5);
  EXPECT_EQ(records::completion_json({}), json({{"time_limit_seconds", nullptr}}));
}

// ---- every command: the completion it wrote gives the code it returned ----

struct Written {
  int code = -1;
  json doc;
};

// Runs `args` (which write JSON to `out`) in-process on a fake source with
// XFERBENCH_FAULT set to `fault` (and at most `gpu_bytes` per GPU; 0: no limit).
Written run_command(std::vector<std::string> args, const std::string& out, const std::string& fault,
                    std::uint64_t gpu_bytes = 0) {
  std::remove(out.c_str());
  if (fault.empty()) unsetenv("XFERBENCH_FAULT");
  else setenv("XFERBENCH_FAULT", fault.c_str(), 1);
  const InProcessRun run = run_in_process(std::move(args), [gpu_bytes](const MeasureOptions&) {
    auto src = std::make_unique<FakeSource>(2);
    src->max_gpu_bytes = gpu_bytes;
    return src;
  });
  unsetenv("XFERBENCH_FAULT");
  Written w;
  w.code = run.code;
  std::ifstream f(out);
  EXPECT_TRUE(f.good()) << out << " was not written: " << run.err;
  if (f.good()) w.doc = json::parse(f);
  return w;
}

Completion completion_of(const json& doc) {
  Completion c;
  records::decode_completion(records::Fields(doc, ""), c);
  return c;
}

std::string temp_json(const std::string& name) { return ::testing::TempDir() + "xb_completion_" + name + ".json"; }

struct Case {
  const char* fault;
  int code;  // what the command returns: the rule's answer is checked against it
};

TEST(CompletionCommands, RunExitsAsItsCompletionSays) {
  const std::string out = temp_json("run");
  for (const Case& c : {Case{"", 0}, Case{"#1:verify", 1}, Case{"#1:cuda_error", 1}, Case{"#1:signal_int", 130},
                        Case{"#1:signal_term", 143}, Case{"#1:cuda_sticky", 8}, Case{"memory", 10}}) {
    const bool memory = std::string(c.fault) == "memory";  // local copies need 8 MiB of a GPU: waived
    const Written w = run_command({"run", "-t", "host_to_device_memcpy_ce", "device_local_copy", "--buffer-size", "4M",
                                   "-o", out, "--drift-check", "off"},
                                  out, memory ? "" : c.fault, memory ? 5ull << 20 : 0);
    EXPECT_EQ(w.code, c.code) << c.fault;
    const RunResult r = records::decode_run(w.doc, out);
    EXPECT_EQ(ending(r.completion, !all_passed(r)).exit_code, w.code) << c.fault;
    EXPECT_EQ(w.doc["status"], to_string(ending(r.completion, !all_passed(r)).outcome)) << c.fault;
  }
}

TEST(CompletionCommands, SweepExitsAsItsCompletionSays) {
  const std::string out = temp_json("sweep");
  for (const Case& c : {Case{"", 0}, Case{"4K:verify", 1}, Case{"4K:cuda_error", 1}, Case{"4K:signal_int", 130},
                        Case{"4K:cuda_sticky", 8}}) {
    const Written w = run_command({"sweep", "--do", "0:HtoD", "--min", "1K", "--max", "64K", "-o", out}, out, c.fault);
    EXPECT_EQ(w.code, c.code) << c.fault;
    EXPECT_EQ(ending(completion_of(w.doc), w.doc["status"] == "failed").exit_code, w.code) << c.fault;
  }
}

TEST(CompletionCommands, ScenarioExitsAsItsCompletionSays) {
  const std::string out = temp_json("scenario");
  for (const Case& c : {Case{"", 0}, Case{"scenario:verify", 1}, Case{"scenario:signal_int", 130},
                        Case{"scenario:signal_term", 143}}) {
    for (const char* command : {"run", "cuts"}) {
      std::vector<std::string> args = {command, "--do", "0:HtoD:1M", "-o", out};
      if (std::string(command) == "cuts") args = {"cuts", "--htod", "0", "--size", "1M", "-o", out};
      const Written w = run_command(args, out, c.fault);
      EXPECT_EQ(w.code, c.code) << command << " " << c.fault;
      bool failed = false;
      for (const json& t : w.doc["transfers"]) failed = failed || t["verification"]["status"] == "failed";
      EXPECT_EQ(ending(completion_of(w.doc), failed).exit_code, w.code) << command << " " << c.fault;
    }
  }
}

TEST(CompletionCommands, CheckExitsAsItsRunsCompletionSays) {
  const std::string out = temp_json("check");
  for (const Case& c : {Case{"#3:signal_int", 130}, Case{"#3:signal_term", 143}, Case{"#3:verify", 1},
                        Case{"#3:cuda_sticky", 8}}) {
    const Written w = run_command({"check", "-o", out, "--budget", "0.01"}, out, c.fault);
    EXPECT_EQ(w.code, c.code) << c.fault;
    const RunResult run = records::decode_run(w.doc, out);
    const bool failed = w.doc["check"]["verdict"] == "fail";
    EXPECT_EQ(ending(run.completion, failed, PartialMeans::time_limit_only).exit_code, w.code) << c.fault;
    EXPECT_EQ(w.doc["check"]["exit_code"], w.code) << c.fault;
  }
}

}  // namespace
}  // namespace xb
