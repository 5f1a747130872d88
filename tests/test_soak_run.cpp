// xferbench soak and check --soak on the fake source, a fake NVML and a
// fake clock: hours of soak in well under a second each. Planted signals
// (a slow drift, a step, a throttle episode, an XID, an ECC increase) must
// be found at the right time and a steady soak must find nothing; a
// SIGKILL keeps every sample written; --resume goes on counting.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "app/cli.hpp"
#include "base/stop.hpp"
#include "check/node.hpp"
#include "records/completion.hpp"
#include "soak/soak_run.hpp"
#include "fake_nvml.hpp"
#include "fake_source.hpp"
#include "in_process.hpp"
#include "soak/soak_analysis.hpp"
#include "soak/soak_record.hpp"

namespace {

using json = nlohmann::json;
constexpr double kHour = 3600;

// FakeSource on a fake clock: every measurement moves the clock on by
// `step_s` and scales the bandwidth by factor(time), with a small
// deterministic noise (+-0.2%) so the analysis sees a realistic series.
class SoakSource : public FakeSource {
 public:
  SoakSource(int gpus, double* now, double step_s, std::function<double(double)> factor)
      : FakeSource(gpus), now_(now), step_s_(step_s), factor_(std::move(factor)) {}
  double limited(double gbps) const override {
    const double noise = 1 + 0.002 * static_cast<double>(static_cast<int>((calls_ * 7919) % 11) - 5) / 5.0;
    return FakeSource::limited(gbps) * factor_(*now_) * noise;
  }
  // A SIGINT arrives once the fake clock passes this time.
  double sigint_at = -1;

  xb::ScenarioSamples run(const xb::Scenario& sc, const xb::SampleMetric& metric) override {
    ++calls_;
    if (sigint_at >= 0 && *now_ >= sigint_at) xb::request_stop(SIGINT);
    xb::ScenarioSamples s = FakeSource::run(sc, metric);
    // A GPU's own memory at 2100 GB/s (FakeSource gives every GPU link
    // 350), so a healthy fake node passes check's device-memory minimum.
    for (std::size_t t = 0; t < sc.transfers.size(); ++t) {
      const xb::Transfer& tr = sc.transfers[t];
      if (tr.src.on_host() || tr.dst.on_host() || tr.src.device != tr.dst.device) continue;
      for (double& sec : s.transfers[t].seconds) sec *= 350.0 / 2100;
      for (double& sec : s.transfers[t].end_s) sec *= 350.0 / 2100;
    }
    for (std::size_t i = 0; i < s.total_seconds.size(); ++i) {
      double last = 0;
      for (const auto& tr : s.transfers) last = std::max(last, tr.end_s[i]);
      s.total_seconds[i] = last;
    }
    *now_ += step_s_;
    return s;
  }
  xb::LatencySamples latency(int gpu, const xb::Location& target, xb::ChaseKind kind) override {
    ++calls_;
    xb::LatencySamples s = FakeSource::latency(gpu, target, kind);
    *now_ += step_s_;
    return s;
  }

 protected:
  double* now_;

 private:
  double step_s_;
  std::function<double(double)> factor_;
  long calls_ = 0;
};

// A command line run in-process on the fake source, NVML and clock.
struct SoakRig {
  double now = 0;
  int gpus = 1;
  double step_s = 120;
  std::function<double(double)> factor = [](double) { return 1.0; };
  std::shared_ptr<FakeSoakNvml> nvml = std::make_shared<FakeSoakNvml>(&now);
  // Builds the source (tests replace it to block).
  std::function<std::unique_ptr<xb::SampleSource>()> make_source = [this] {
    return std::make_unique<SoakSource>(gpus, &now, step_s, factor);
  };

  InProcessRun run(std::vector<std::string> args) {
    return run_in_process(
        std::move(args), [this](const xb::MeasureOptions&) { return make_source(); },
        [this](xb::app::Context& ctx) {
          ctx.steady_s = [this] { return now; };
          ctx.utc_s = [this] { return 1795000000.0 + now; };  // 2026-11-18
          ctx.open_nvml = [this]() -> std::shared_ptr<xb::NvmlQueries> { return nvml; };
        });
  }
};

std::string temp_path(const std::string& name) {
  const std::string path = ::testing::TempDir() + "xb_soak_" +
                           ::testing::UnitTest::GetInstance()->current_test_info()->name() + "_" + name;
  std::remove(path.c_str());
  return path;
}

const std::string kH2D = "host_to_device_memcpy_ce";
const std::string kCell = "host_to_device_memcpy_ce[0,0]";

// An 8-hour soak of one host-to-GPU cell on the rig; the file's analysis.
struct Soaked {
  InProcessRun run;
  xb::soak::SoakFile file;
  xb::soak::SoakSummary summary;
};
Soaked soak_h2d(SoakRig& rig, const std::string& file, const std::string& duration = "8h") {
  Soaked s;
  s.run = rig.run({"-q", "soak", "-t", kH2D, "--duration", duration, "-o", file});
  s.file = xb::soak::read_soak_file(file);
  s.summary = xb::soak::analyze(s.file);
  return s;
}

const xb::soak::CellSummary* cell_of(const xb::soak::SoakSummary& s, const std::string& name) {
  for (const auto& c : s.cells)
    if (c.cell == name) return &c;
  return nullptr;
}

const xb::soak::Episode* episode_of(const xb::soak::SoakSummary& s, const std::string& kind) {
  for (const auto& e : s.episodes)
    if (e.kind == kind) return &e;
  return nullptr;
}

TEST(SoakRun, SteadySoakFindsNothingAndExitsZero) {
  SoakRig rig;
  const std::string f = temp_path("steady.jsonl");
  const Soaked s = soak_h2d(rig, f);
  EXPECT_EQ(s.run.code, 0) << s.run.err << s.run.out;
  EXPECT_GE(s.file.samples.size(), 200u);  // 8 h of 2-minute cells
  ASSERT_TRUE(s.file.end);
  EXPECT_EQ(s.file.end->status, "completed");
  EXPECT_GE(s.file.end->t_s, 8 * kHour);
  EXPECT_LT(s.file.end->t_s, 8 * kHour + 600);  // ends after the case in flight
  EXPECT_FALSE(s.summary.findings);
  const auto* c = cell_of(s.summary, kCell);
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->drift);
  EXPECT_TRUE(c->steps.empty());
  EXPECT_TRUE(s.summary.episodes.empty());
  EXPECT_EQ(s.file.header.cases, std::vector<std::string>{kH2D});
  // Every sample carries the cell's GPU telemetry.
  ASSERT_FALSE(s.file.samples.empty());
  ASSERT_EQ(s.file.samples[0].telemetry.size(), 1u);
  EXPECT_EQ(s.file.samples[0].telemetry[0].sm_clock_mhz, 1980u);
  EXPECT_TRUE(s.file.samples[0].peak_gbps.has_value());
}

TEST(SoakRun, SlowDriftIsFoundWithItsSignAndSize) {
  SoakRig rig;
  rig.factor = [](double t) { return 1 - 0.005 * t / kHour; };  // -0.5% per hour
  const std::string f = temp_path("drift.jsonl");
  const Soaked s = soak_h2d(rig, f);
  EXPECT_EQ(s.run.code, 1) << s.run.err << s.run.out;
  const auto* c = cell_of(s.summary, kCell);
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(c->drift);
  EXPECT_TRUE(c->worse);
  EXPECT_NEAR(c->slope_pct_per_hour, -0.5, 0.1);
  EXPECT_LE(c->slope_low, c->slope_pct_per_hour);
  EXPECT_GE(c->slope_high, c->slope_pct_per_hour);
  EXPECT_LT(c->slope_high, 0);
  EXPECT_TRUE(s.summary.findings);

  // --summary reads the file again, measures nothing, and prints the same.
  SoakRig again;
  again.make_source = []() -> std::unique_ptr<xb::SampleSource> { throw std::logic_error("--summary measured"); };
  const InProcessRun r = again.run({"soak", "--summary", f});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_EQ(r.out, s.run.out);
  EXPECT_NE(r.out.find(kCell), std::string::npos);
  const InProcessRun mixed = again.run({"soak", "--summary", f, "--duration", "1h"});
  EXPECT_EQ(mixed.code, 2);
  EXPECT_NE(mixed.err.find("--summary '" + f + "' only reads that soak file"), std::string::npos) << mixed.err;
}

TEST(SoakRun, StepIsFoundAtItsTime) {
  SoakRig rig;
  rig.factor = [](double t) { return t < 3 * kHour ? 1.0 : 0.9; };
  const Soaked s = soak_h2d(rig, temp_path("step.jsonl"));
  EXPECT_EQ(s.run.code, 1) << s.run.err;
  const auto* c = cell_of(s.summary, kCell);
  ASSERT_NE(c, nullptr);
  ASSERT_FALSE(c->steps.empty());
  EXPECT_NEAR(c->steps[0].t_s, 3 * kHour, 600);
  EXPECT_NEAR(c->steps[0].change_pct, -10, 1.5);
}

TEST(SoakRun, ThrottleEpisodeAndXidAreFoundAtTheirTimes) {
  SoakRig rig;
  const std::string bus = fake_system(1).gpus[0].pci_bus_id;
  rig.nvml->throttles.push_back({bus, 2 * kHour, 2.5 * kHour, xb::clock_reason::hw_slowdown});
  rig.nvml->xids.push_back({bus, 5 * kHour, 79});
  const Soaked s = soak_h2d(rig, temp_path("episodes.jsonl"));
  EXPECT_EQ(s.run.code, 1) << s.run.err;
  const auto* th = episode_of(s.summary, "throttle");
  ASSERT_NE(th, nullptr);
  EXPECT_EQ(th->gpu, 0);
  EXPECT_NEAR(th->start_s, 2 * kHour, 300);
  EXPECT_NEAR(th->end_s, 2.5 * kHour, 300);
  EXPECT_GT(th->samples, 0);
  const auto* xid = episode_of(s.summary, "xid");
  ASSERT_NE(xid, nullptr);
  EXPECT_NEAR(xid->start_s, 5 * kHour, 300);
  EXPECT_NE(xid->detail.find("79"), std::string::npos) << xid->detail;
  // The XID is in exactly one sample's telemetry.
  int with_xid = 0;
  for (const auto& smp : s.file.samples)
    for (const auto& t : smp.telemetry) with_xid += t.xids.empty() ? 0 : 1;
  EXPECT_EQ(with_xid, 1);
}

TEST(SoakRun, EccIncreaseIsAnEpisode) {
  SoakRig rig;
  rig.nvml->ecc.push_back({fake_system(1).gpus[0].pci_bus_id, 4 * kHour, 0, 2});
  const Soaked s = soak_h2d(rig, temp_path("ecc.jsonl"));
  EXPECT_EQ(s.run.code, 1) << s.run.err;
  const auto* e = episode_of(s.summary, "ecc");
  ASSERT_NE(e, nullptr);
  EXPECT_NEAR(e->start_s, 4 * kHour, 300);
}

// Loaded-latency samples carry their idle figure and their load; a load
// under half its link's peak is a finding of the soak.
TEST(SoakRun, LoadedLatencySamplesCarryTheirLoadAndAWeakLoadIsAFinding) {
  const std::string name = "host_device_latency_sm_under_host_to_device_ce";
  for (const double share : {1.0, 0.3}) {
    SoakRig rig;
    rig.make_source = [&rig, share] {
      auto src = std::make_unique<SoakSource>(rig.gpus, &rig.now, rig.step_s, rig.factor);
      src->load_share = share;
      return src;
    };
    const std::string f = temp_path(share < 1 ? "weak.jsonl" : "full.jsonl");
    const InProcessRun r = rig.run({"-q", "soak", "-t", name, "--duration", "1h", "-o", f});
    const xb::soak::SoakFile file = xb::soak::read_soak_file(f);
    int loaded = 0;
    for (const auto& smp : file.samples) {
      if (smp.cell != name + "[0,0]") continue;
      ++loaded;
      ASSERT_TRUE(smp.idle_ns && smp.load_gbps && smp.load_pct) << smp.cell;
      EXPECT_NEAR(smp.value / *smp.idle_ns, 2.8, 1e-6);
      EXPECT_EQ(*smp.load_pct < 50, share < 1) << *smp.load_pct;
    }
    EXPECT_GT(loaded, 2);
    const xb::soak::SoakSummary summary = xb::soak::analyze(file);
    const auto cell = std::find_if(summary.cells.begin(), summary.cells.end(),
                                   [&](const xb::soak::CellSummary& c) { return c.cell == name + "[0,0]"; });
    ASSERT_NE(cell, summary.cells.end());
    EXPECT_EQ(cell->weak_load_samples, share < 1 ? loaded : 0);
    EXPECT_EQ(r.code, share < 1 ? 1 : 0) << r.err << r.out;
  }
}

TEST(SoakRun, JsonSummaryOnStdout) {
  SoakRig rig;
  const std::string f = temp_path("json.jsonl");
  const InProcessRun r = rig.run({"-q", "soak", "-t", kH2D, "--duration", "1h", "-o", f, "--format", "json"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(json::accept(r.out)) << r.out;
}

TEST(SoakRun, ResumeContinuesRoundsAndTime) {
  SoakRig rig;
  const std::string f = temp_path("resume.jsonl");
  ASSERT_EQ(rig.run({"-q", "soak", "-t", kH2D, "--duration", "1h", "-o", f}).code, 0);
  const xb::soak::SoakFile first = xb::soak::read_soak_file(f);
  ASSERT_FALSE(first.samples.empty());
  const double last_t = first.end->t_s;
  const int last_round = first.samples.back().round;
  rig.now += 5 * kHour;  // the machine went on; the soak's clock did not
  const InProcessRun r = rig.run({"-q", "soak", "--resume", f, "--duration", "2h"});
  EXPECT_EQ(r.code, 0) << r.err;
  const xb::soak::SoakFile both = xb::soak::read_soak_file(f);
  ASSERT_EQ(both.resumed_at_s.size(), 1u);
  EXPECT_DOUBLE_EQ(both.resumed_at_s[0], last_t);
  ASSERT_GT(both.samples.size(), first.samples.size());
  const auto& next = both.samples[first.samples.size()];
  EXPECT_EQ(next.round, last_round + 1);
  EXPECT_GE(next.t_s, last_t);
  EXPECT_LT(next.t_s, last_t + 600);
  ASSERT_TRUE(both.end);
  EXPECT_GE(both.end->t_s, 2 * kHour);
  EXPECT_LT(both.end->t_s, 2 * kHour + 600);  // the duration counts from the file's start
  for (std::size_t i = 1; i < both.samples.size(); ++i) EXPECT_GE(both.samples[i].t_s, both.samples[i - 1].t_s);
  EXPECT_EQ(both.header.cases, std::vector<std::string>{kH2D});
}

TEST(SoakRun, SigintWritesTheEndLineAndTheSummary) {
  SoakRig rig;
  rig.make_source = [&rig] {
    auto src = std::make_unique<SoakSource>(1, &rig.now, rig.step_s, rig.factor);
    src->sigint_at = kHour;
    return src;
  };
  const std::string f = temp_path("sigint.jsonl");
  const InProcessRun r = rig.run({"-q", "soak", "-t", kH2D, "--duration", "8h", "-o", f});
  EXPECT_EQ(r.code, 130) << r.err;
  EXPECT_NE(r.out.find("xferbench soak"), std::string::npos) << r.out;
  const xb::soak::SoakFile back = xb::soak::read_soak_file(f);
  ASSERT_TRUE(back.end);
  EXPECT_EQ(back.end->status, "interrupted");
  EXPECT_NE(back.end->reason.find("SIGINT"), std::string::npos) << back.end->reason;
  EXPECT_NEAR(back.end->t_s, kHour, 300);
  EXPECT_GE(back.samples.size(), 25u);
}

TEST(SoakRun, ResumeWithOtherCasesIsRefused) {
  SoakRig rig;
  const std::string f = temp_path("other.jsonl");
  ASSERT_EQ(rig.run({"-q", "soak", "-t", kH2D, "--duration", "1h", "-o", f}).code, 0);
  const InProcessRun r = rig.run({"-q", "soak", "--resume", f, "-t", "device_to_host_memcpy_ce"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("other cases"), std::string::npos) << r.err;
}

TEST(SoakRun, BadDurationsAreUsageErrors) {
  for (const std::string d : {"0", "0s", "5x", "1h30", "h", "-1h", "1m1h"}) {
    SoakRig rig;
    const InProcessRun r = rig.run({"soak", "--duration", d, "-o", temp_path("bad.jsonl")});
    EXPECT_EQ(r.code, 2) << d << ": " << r.err;
    EXPECT_NE(r.err.find("'" + d + "'"), std::string::npos) << r.err;
  }
  for (const std::string d : {"90s", "30m", "8h", "1h30m", "600", "2h15m30s"})
    EXPECT_GT(xb::soak::parse_duration(d, "--duration"), 0) << d;
  EXPECT_DOUBLE_EQ(xb::soak::parse_duration("1h30m", "--duration"), 5400);
  EXPECT_DOUBLE_EQ(xb::soak::parse_duration("2h15m30s", "--duration"), 8130);
}

// ---- the preset over the case runner, without the command ---------------

// run_soak on a one-case preset, its lines collected from the sink.
struct DirectSoak {
  std::vector<std::string> lines;
  xb::soak::SoakOutcome outcome;
};
DirectSoak soak_directly(SoakSource& src, double& now, const std::string& case_name, std::uint64_t bytes) {
  xb::soak::SoakRequest req;
  req.preset.cases = xb::select_cases({case_name}, {});
  req.preset.buffer_bytes = bytes;
  req.preset.measure = xb::check::check_measure_options();
  req.duration_s = 2 * kHour;
  const xb::soak::SoakClock clock{[&now] { return now; }, [&now] { return 1795000000.0 + now; }};
  DirectSoak d;
  const xb::soak::LineSink sink = [&d](const std::string& line) { d.lines.push_back(line); };
  d.outcome = xb::soak::run_soak(src, nullptr, req, sink, clock);
  return d;
}

std::string type_of(const std::string& line) { return json::parse(line).at("type").get<std::string>(); }

// Every round is the preset run by the ordinary case runner (its buffer
// size in the first round's settings); the lines go to the sink in order;
// the soak ends with a completion that the one exit rule reads.
TEST(SoakPreset, RoundsRunThePresetThroughTheCaseRunner) {
  double now = 0;
  SoakSource src(1, &now, 120, [](double) { return 1.0; });
  const DirectSoak d = soak_directly(src, now, kH2D, 64ull << 20);
  ASSERT_GE(d.lines.size(), 3u);
  EXPECT_EQ(type_of(d.lines.front()), "header");
  EXPECT_EQ(type_of(d.lines.back()), "end");
  for (std::size_t i = 1; i + 1 < d.lines.size(); ++i) EXPECT_EQ(type_of(d.lines[i]), "sample") << d.lines[i];
  EXPECT_EQ(json::parse(d.lines.back()).at("status"), "completed");
  const xb::soak::SoakOutcome& o = d.outcome;
  EXPECT_EQ(o.completion.status, xb::RunStatus::complete);
  EXPECT_EQ(o.completion.stop, xb::StopReason::none);
  EXPECT_TRUE(o.completion.error.empty());
  EXPECT_EQ(xb::ending(o.completion, o.summary.findings).exit_code, 0);
  ASSERT_EQ(o.first_round.cases.size(), 1u);
  EXPECT_EQ(o.first_round.cases[0].name, kH2D);
  EXPECT_EQ(o.first_round.settings.buffer_bytes, 64ull << 20);
  EXPECT_EQ(o.summary.rounds, static_cast<int>(d.lines.size()) - 2);  // one cell per round
}

TEST(SoakPreset, ASignalEndsItInterruptedAndTheRuleGivesItsCode) {
  double now = 0;
  SoakSource src(1, &now, 120, [](double) { return 1.0; });
  src.sigint_at = kHour;
  const DirectSoak d = soak_directly(src, now, kH2D, 64ull << 20);
  xb::clear_stop();
  const xb::soak::SoakOutcome& o = d.outcome;
  EXPECT_EQ(o.completion.status, xb::RunStatus::interrupted);
  EXPECT_EQ(o.completion.stop, xb::StopReason::sigint);
  EXPECT_EQ(xb::ending(o.completion, o.summary.findings).exit_code, 130);
  EXPECT_EQ(o.first_round.completion.stop, xb::StopReason::sigint);
  EXPECT_EQ(json::parse(d.lines.back()).at("status"), "interrupted");
}

// Every case waived here (a GPU pair on one GPU): the round measured
// nothing, the soak ends there with an error, exit 1 by the one rule.
TEST(SoakPreset, ARoundThatMeasuredNothingIsAnError) {
  double now = 0;
  SoakSource src(1, &now, 120, [](double) { return 1.0; });
  const DirectSoak d = soak_directly(src, now, "device_to_device_memcpy_read_ce", 64ull << 20);
  const xb::soak::SoakOutcome& o = d.outcome;
  EXPECT_NE(o.completion.error.find("a whole round measured nothing"), std::string::npos) << o.completion.error;
  EXPECT_EQ(xb::ending(o.completion, o.summary.findings).exit_code, 1);
  ASSERT_EQ(d.lines.size(), 2u);  // the header and the end line
  const json end = json::parse(d.lines.back());
  EXPECT_EQ(end.at("status"), "error");
  EXPECT_EQ(end.at("reason"), o.completion.error);

  SoakRig rig;
  testing::internal::CaptureStderr();
  const InProcessRun r = rig.run({"-q", "soak", "-t", "device_to_device_memcpy_read_ce", "--duration", "1h", "-o",
                                  temp_path("waived.jsonl")});
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(r.code, 1) << err;
  EXPECT_NE(err.find("xferbench: error: a whole round measured nothing"), std::string::npos) << err;
  EXPECT_NE(r.out.find("# xferbench soak on"), std::string::npos) << r.out;
}

// -o through a symbolic link and to this process's own descriptor, by the
// rules of every output file: the link stays a link and its target holds
// the soak; /dev/fd/N is written through the descriptor already open.
TEST(SoakRun, TheSoakFileFollowsTheOutputFileRules) {
  SoakRig rig;
  const std::string target = temp_path("target.jsonl"), link = temp_path("link.jsonl");
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  ASSERT_EQ(rig.run({"-q", "soak", "-t", kH2D, "--duration", "30m", "-o", link}).code, 0);
  struct stat st {};
  ASSERT_EQ(::lstat(link.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_FALSE(xb::soak::read_soak_file(target).samples.empty());

  const std::string log = temp_path("log.jsonl");
  const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  const InProcessRun r = rig.run({"-q", "soak", "-t", kH2D, "--duration", "30m", "-o", "/dev/fd/" + std::to_string(fd)});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(::write(fd, "", 0), 0) << "the soak closed a descriptor it did not open";
  ::close(fd);
  const xb::soak::SoakFile back = xb::soak::read_soak_file(log);
  EXPECT_FALSE(back.samples.empty());
  ASSERT_TRUE(back.end);
  EXPECT_EQ(back.end->status, "completed");
}

// Two GPUs (two latency cells per case and round); the source blocks, for
// ever, in the measurement after `n` latency cells.
class BlockingSource : public SoakSource {
 public:
  BlockingSource(double* now, int n, int fd) : SoakSource(2, now, 60, [](double) { return 1.0; }), n_(n), fd_(fd) {}
  xb::LatencySamples latency(int gpu, const xb::Location& target, xb::ChaseKind kind) override {
    if (++cells_ > n_) {
      char ch = 0;
      while (::read(fd_, &ch, 1) != 0) {}  // the parent holds the write end and never writes
    }
    return SoakSource::latency(gpu, target, kind);
  }

 private:
  int n_, fd_, cells_ = 0;
};

std::size_t lines_in(const std::string& path) {
  std::ifstream in(path);
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) n += in.eof() ? 0 : 1;  // a line without its '\n' is in flight
  return n;
}

TEST(SoakRun, SigkillKeepsEverySampleWritten) {
  const std::string f = temp_path("killed.jsonl");
  static constexpr int kSamples = 5;
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(fds[1]);
    SoakRig rig;
    rig.make_source = [&rig, fd = fds[0]] { return std::make_unique<BlockingSource>(&rig.now, kSamples, fd); };
    rig.run({"-q", "soak", "-t", "host_device_latency_sm", "--duration", "8h", "-o", f});
    ::_exit(99);  // never reached: the source blocks
  }
  ::close(fds[0]);
  // Wait for the header and the samples (a generous cap; never a fixed sleep).
  const auto cap = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (lines_in(f) < 1 + kSamples && std::chrono::steady_clock::now() < cap)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_EQ(lines_in(f), 1u + kSamples) << "the child did not write its samples in time";
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  ::close(fds[1]);
  const xb::soak::SoakFile back = xb::soak::read_soak_file(f);
  // Every cell measured is in the file, also the first cell of the case in
  // flight (round 3): lines are written per cell, not per case.
  ASSERT_EQ(back.samples.size(), static_cast<std::size_t>(kSamples));
  for (int i = 0; i < kSamples; ++i) {
    EXPECT_EQ(back.samples[static_cast<std::size_t>(i)].round, i / 2 + 1);
    EXPECT_EQ(back.samples[static_cast<std::size_t>(i)].unit, "ns");
  }
  EXPECT_FALSE(back.end);
  EXPECT_EQ(back.torn_lines, 0);

  // A torn last line (cut mid-line) still reads with every earlier sample,
  std::ifstream in(f, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string torn = temp_path("torn.jsonl");
  std::ofstream(torn, std::ios::binary) << text.substr(0, text.size() - 20);
  const xb::soak::SoakFile cut = xb::soak::read_soak_file(torn);
  EXPECT_EQ(cut.samples.size(), static_cast<std::size_t>(kSamples - 1));
  EXPECT_EQ(cut.torn_lines, 1);
  // and --resume cuts the torn line before it appends.
  SoakRig rig;
  const InProcessRun r = rig.run({"-q", "soak", "--resume", torn, "--duration", "1h"});
  EXPECT_EQ(r.code, 0) << r.err;
  const xb::soak::SoakFile resumed = xb::soak::read_soak_file(torn);
  EXPECT_EQ(resumed.torn_lines, 0);
  EXPECT_GT(resumed.samples.size(), static_cast<std::size_t>(kSamples - 1));
  EXPECT_EQ(resumed.resumed_at_s.size(), 1u);
}

TEST(SoakRun, DefaultFileIsNewAndNamedOnStderr) {
  std::string dir = ::testing::TempDir() + "xb_soak_default_XXXXXX";
  ASSERT_NE(::mkdtemp(dir.data()), nullptr);
  char old[4096];
  ASSERT_NE(::getcwd(old, sizeof(old)), nullptr);
  ASSERT_EQ(::chdir(dir.c_str()), 0);
  SoakRig rig;
  testing::internal::CaptureStderr();
  const InProcessRun r = rig.run({"-q", "soak", "-t", kH2D, "--duration", "1h"});
  const std::string err = testing::internal::GetCapturedStderr();
  ASSERT_EQ(::chdir(old), 0);
  EXPECT_EQ(r.code, 0) << r.err;
  const auto at = err.find("xferbench-soak-");
  ASSERT_NE(at, std::string::npos) << err;
  const std::string name = err.substr(at, err.find('\n', at) - at);
  EXPECT_EQ(xb::soak::read_soak_file(dir + "/" + name).header.cases, std::vector<std::string>{kH2D});
}

// `soak -o FILE` appended to an existing FILE, mixing two soaks
// into one file that reads back as neither. A file that holds anything is
// refused before any measuring; --resume continues it, --overwrite starts
// it anew.
TEST(SoakRun, AnExistingSoakFileIsRefusedWithoutResumeOrOverwrite) {
  SoakRig rig;
  const std::string f = temp_path("reused.jsonl");
  ASSERT_EQ(rig.run({"-q", "soak", "-t", kH2D, "--duration", "1h", "-o", f}).code, 0);
  const xb::soak::SoakFile first = xb::soak::read_soak_file(f);
  SoakRig again;
  again.make_source = []() -> std::unique_ptr<xb::SampleSource> { throw std::logic_error("measured"); };
  const InProcessRun r = again.run({"-q", "soak", "-t", kH2D, "--duration", "1h", "-o", f});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("-o '" + f + "' already holds"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--resume '" + f + "' continues that soak, --overwrite starts it anew"), std::string::npos)
      << r.err;
  const xb::soak::SoakFile kept = xb::soak::read_soak_file(f);
  EXPECT_EQ(kept.samples.size(), first.samples.size());
  EXPECT_TRUE(kept.resumed_at_s.empty());

  // --overwrite starts anew: one header, this soak's samples only.
  SoakRig anew;
  anew.now = 7 * kHour;
  const InProcessRun o = anew.run({"-q", "soak", "-t", kH2D, "--duration", "30m", "-o", f, "--overwrite"});
  EXPECT_EQ(o.code, 0) << o.err;
  const xb::soak::SoakFile fresh = xb::soak::read_soak_file(f);
  EXPECT_LT(fresh.samples.size(), first.samples.size());
  EXPECT_EQ(fresh.header.duration_s, 1800);
  ASSERT_TRUE(fresh.end);
  EXPECT_LT(fresh.end->t_s, kHour);

  // An empty file is no soak: it is written.
  const std::string empty = temp_path("empty.jsonl");
  std::ofstream(empty).flush();
  EXPECT_EQ(rig.run({"-q", "soak", "-t", kH2D, "--duration", "30m", "-o", empty}).code, 0);
  EXPECT_FALSE(xb::soak::read_soak_file(empty).samples.empty());

  // --overwrite with --resume, or without -o, is a usage error.
  EXPECT_EQ(again.run({"-q", "soak", "--resume", f, "--overwrite"}).code, 2);
  const InProcessRun no_o = again.run({"-q", "soak", "-t", kH2D, "--duration", "1h", "--overwrite"});
  EXPECT_EQ(no_o.code, 2);
  EXPECT_NE(no_o.err.find("--overwrite starts the -o FILE anew"), std::string::npos) << no_o.err;
}

TEST(SoakRun, CheckSoakFileIsCheckedBeforeAnyMeasuring) {
  SoakRig rig;
  const std::string f = temp_path("check.jsonl");
  ASSERT_EQ(rig.run({"-q", "soak", "-t", kH2D, "--duration", "1h", "-o", f}).code, 0);
  SoakRig again;
  again.make_source = []() -> std::unique_ptr<xb::SampleSource> { throw std::logic_error("measured"); };
  const InProcessRun r = again.run({"-q", "check", "--soak", "1h", "--soak-file", f});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("--soak-file '" + f + "' already holds"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--overwrite starts it anew"), std::string::npos) << r.err;
  const InProcessRun dir = again.run({"-q", "check", "--soak", "1h", "--soak-file", ::testing::TempDir()});
  EXPECT_EQ(dir.code, 7) << dir.err;
}

// ---- check --soak -----------------------------------------------------------

json check_soak(SoakRig& rig, const std::string& name, InProcessRun& r) {
  const std::string out = temp_path(name + ".json"), file = temp_path(name + ".jsonl");
  rig.gpus = 2;
  rig.step_s = 60;
  r = rig.run({"-q", "check", "--soak", "2h", "--soak-file", file, "-o", out});
  std::ifstream in(out);
  EXPECT_TRUE(in.good()) << out << " not written: " << r.err;
  return in.good() ? json::parse(in) : json();
}

// Lint reads this machine's /sys and /proc: its errors fail any check.
bool lint_errors(const json& doc) {
  for (const auto& f : doc["check"]["lint"]["findings"])
    if (f["severity"] == "error") return true;
  return false;
}

TEST(SoakCheck, HealthyNodePasses) {
  SoakRig rig;
  InProcessRun r;
  const json doc = check_soak(rig, "healthy", r);
  ASSERT_TRUE(doc.contains("check")) << r.err;
  ASSERT_TRUE(doc["check"].contains("soak")) << doc["check"].dump().substr(0, 400);
  for (const auto& c : doc["check"]["cells"]) EXPECT_NE(c["verdict"], "fail") << c.dump();
  EXPECT_EQ(r.code, lint_errors(doc) ? 1 : 0) << r.out << r.err;
  EXPECT_GT(doc["check"]["cells"].size(), 10u);
}

TEST(SoakCheck, PlantedStepFails) {
  SoakRig rig;
  rig.factor = [](double t) { return t < kHour ? 1.0 : 0.9; };
  InProcessRun r;
  const json doc = check_soak(rig, "step", r);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_EQ(doc["check"]["verdict"], "fail");
}

TEST(SoakCheck, PlantedXidFails) {
  SoakRig rig;
  rig.nvml->xids.push_back({fake_system(2).gpus[1].pci_bus_id, kHour, 79});
  InProcessRun r;
  const json doc = check_soak(rig, "xid", r);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_EQ(doc["check"]["verdict"], "fail");
}

TEST(SoakCheck, SoakAndJudgeDoNotMix) {
  SoakRig rig;
  const InProcessRun r = rig.run({"check", "--soak", "10m", "--judge", "x.json"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--soak"), std::string::npos) << r.err;
}

}  // namespace
