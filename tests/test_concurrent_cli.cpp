// The concurrent-transfer command line ('run --do', CUts flags in 'run',
// 'xferbench cuts'), parsed in-process: every error is found before any GPU
// is touched. Also the progress indicator, and one real scenario on a GPU
// (skipped visibly without one).
#include <algorithm>
#include <chrono>
#include <sstream>
#include <thread>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "app/cli.hpp"
#include "app/progress.hpp"
#include "app/run_options.hpp"
#include "cases/concurrent.hpp"
#include "machine/topology.hpp"
#include "measure/sample_source.hpp"
#include "frontends/spec.hpp"
#include "cli_parse.hpp"

namespace {

// Parses `args` with the 'run' options and returns the plan, as the run
// subcommand's callback does.
xb::app::ScenarioPlan plan_of(std::vector<std::string> args) {
  xb::app::RunOptions o;
  CLI::App sub;
  xb::app::add_run_options(sub, o);
  std::reverse(args.begin(), args.end());  // CLI11 consumes the vector from the back
  sub.parse(args);
  xb::app::record_cuts_order(sub, o.cuts_flags, o.concurrent);
  return xb::app::build_scenario_plan(o, {});
}

TEST(ConcurrentCli, EveryBwtestReadmeExampleParses) {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"run", "--do=all:1024:both"},
           {"run", "--do=0:DtoH:6684672:mapped", "--do=2:1024:HtoD"},
           {"run", "--do=0:HtoD", "--streams=per-device"},
           {"run", "--do", "1:reverse:32M:wc", "--streams", "only-one"},
       }) {
    const Parsed p = parse(args);
    EXPECT_EQ(p.code, -1) << args.back() << ": " << p.err;
    EXPECT_TRUE(p.has_action);
  }
}

TEST(ConcurrentCli, EveryCutsReadmeExampleParses) {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"cuts", "--dtod=1,0", "--dtod=0,1"},
           {"cuts", "--dtoh=0"},
           {"cuts", "--dtoh=0", "--htod=0"},
           {"cuts", "--dtoh=0", "--dtoh=1"},
           {"cuts", "--dtoh=0", "--htod=1", "--dtoh=2", "--htod=3", "--dtoh=4", "--htod=5", "--dtod=6,7"},
           {"cuts", "-d", "0", "-p", "1,0", "-i", "10", "-s", "64M", "-n"},
           {"cuts", "--dtoh=0", "--iter=5", "--size=1048576", "--no-numa-affinity"},
           {"run", "--htod=0", "--dtod=1,0", "--iterations", "10", "--size", "1G", "-n"},
       }) {
    const Parsed p = parse(args);
    EXPECT_EQ(p.code, -1) << args.back() << ": " << p.err;
    EXPECT_TRUE(p.has_action);
  }
}

TEST(ConcurrentCli, ErrorsQuoteTheOffendingTextAndExitTwo) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> bad = {
      {{"run", "--do=0:HtoX"}, "unknown direction 'HtoX'"},
      {{"run", "--do=0:HtoD:12Q"}, "'12Q'"},
      {{"run", "--do=x:HtoD"}, "invalid device 'x'"},
      {{"run", "--do=0:HtoD:fast"}, "unknown memory option 'fast'"},
      {{"run", "--do=0:HtoD:pageable,engine=sm"}, "engine=sm"},
      {{"run", "--do=0:HtoD", "--streams=two"}, "invalid stream mode 'two'"},
      {{"run", "--do=0:HtoD", "-t", "0"}, "cannot be mixed"},
      {{"run", "--htod=0", "--suite", "full"}, "cannot be mixed"},
      {{"run", "--do=0:HtoD", "--htod=0"}, "--do '0:HtoD' and CUts flags"},
      {{"run", "--do=0:HtoD", "-b", "64"}, "carries its own size"},
      {{"run", "--do=0:HtoD", "--size", "1G"}, "--size '1G' applies to CUts transfers"},
      {{"run", "-t", "0", "--iterations", "5"}, "--iterations '5' applies to CUts"},
      {{"run", "-t", "0", "--streams", "per-device"}, "--streams 'per-device' applies to transfers"},
      {{"run", "--htod=0", "--iterations", "5", "--copies", "3"}, "--iterations or --copies"},
      {{"run", "--htod=x"}, "invalid --htod 'x'"},
      {{"cuts", "--dtod=1"}, "invalid --dtod '1'"},
      {{"cuts", "--dtod=1,1"}, "same GPU"},
      {{"cuts", "-d", "-1"}, "-1"},
      {{"cuts", "--dtoh=0", "-s", "0"}, "--size '0'"},
      {{"cuts", "--dtoh=0", "-i", "0"}, "'0'"},
      {{"cuts", "--dtoh=0", "-i", "many"}, "'many'"},
      {{"cuts"}, "no transfer given"},
  };
  for (const auto& [args, needle] : bad) {
    const Parsed p = parse(args);
    EXPECT_EQ(p.code, 2) << args.back() << ": " << p.err;
    EXPECT_NE(p.err.find(needle), std::string::npos) << "want '" << needle << "' in: " << p.err;
    EXPECT_FALSE(p.has_action);
  }
}

TEST(ConcurrentCli, CutsDefaultsAndFlagOrder) {
  const auto plan = plan_of({"--dtoh=0", "--htod=1", "--dtod=1,0", "--dtoh=2"});
  EXPECT_EQ(plan.front_end, "cuts");
  ASSERT_EQ(plan.requests.size(), 4u);
  EXPECT_EQ(plan.requests[0].direction, xb::Direction::dtoh);
  EXPECT_EQ(plan.requests[1].direction, xb::Direction::htod);
  EXPECT_EQ(plan.requests[2].direction, xb::Direction::dtod);
  EXPECT_EQ(plan.requests[2].peer, 1);
  EXPECT_EQ(plan.requests[3].device, 2);
  EXPECT_EQ(plan.requests[0].bytes, 1ull << 30);
  EXPECT_EQ(plan.measure.copies_per_sample, 100);
  EXPECT_EQ(plan.measure.min_samples, 1);
  EXPECT_EQ(plan.measure.max_samples, 1);
  const auto sampled = plan_of({"--htod=0", "--iterations", "7", "--size", "4K", "-i", "5", "-n"});
  EXPECT_EQ(sampled.measure.copies_per_sample, 7);
  EXPECT_EQ(sampled.measure.min_samples, 5);
  EXPECT_EQ(sampled.requests[0].bytes, 4096u);
  EXPECT_EQ(sampled.requests[0].numa, xb::kNoNumaPlacement);
}

TEST(ConcurrentCli, DoSpecsKeepAdaptiveSampling) {
  const auto plan = plan_of({"--do=all:1024:both", "--do=0:DtoH:64K", "--streams=per-device"});
  EXPECT_EQ(plan.front_end, "bwtest");
  EXPECT_EQ(plan.requests.size(), 2u);
  EXPECT_EQ(plan.streams, xb::StreamMode::per_device);
  EXPECT_EQ(plan.measure.copies_per_sample, 0);
  EXPECT_GT(plan.measure.max_samples, plan.measure.min_samples);
}

TEST(Progress, DisabledWritesNothingAndRunsPrintsDirectly) {
  std::ostringstream err;
  int printed = 0;
  {
    xb::app::Progress p(false, err, 0.0, 0.001);
    p.update("scenario", 3);
    p.print_above([&] { ++printed; });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(printed, 1);
  EXPECT_TRUE(err.str().empty());
}

// Waits until the line is drawn (looked at under the progress lock, via
// print_above), not for a fixed time a loaded machine may not give the
// drawing thread; the 60 s bound only turns "never drawn" into a failure.
TEST(Progress, DrawsAfterTheDelayAndErasesAtTheEnd) {
  std::ostringstream err;
  {
    xb::app::Progress p(true, err, 0.0, 0.005);
    p.update("[2/9] host_to_device_memcpy_ce", 4);
    const auto bound = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    bool drawn = false;
    while (!drawn && std::chrono::steady_clock::now() < bound) {
      p.print_above([&] { drawn = err.str().find("\r[2/9] ") != std::string::npos; });
      if (!drawn) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    p.finish();
    p.finish();  // idempotent
  }
  const std::string s = err.str();
  EXPECT_NE(s.find("\r[2/9] host_to_device_memcpy_ce, 4 samples, "), std::string::npos) << s;
  EXPECT_EQ(s.back(), '\r');  // the line is erased when the run ends
  EXPECT_EQ(s.find('\n'), std::string::npos);
}

TEST(Progress, NothingBeforeTheDelay) {
  std::ostringstream err;
  {
    xb::app::Progress p(true, err, 60.0, 0.001);
    p.update("scenario", 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(err.str().empty());
  EXPECT_EQ(xb::app::progress_line("CUts scenario, 2 transfers", 1, 3.04), "CUts scenario, 2 transfers, 1 sample, 3.0 s");
  EXPECT_EQ(xb::app::progress_line("[1/3] x", -1, 12.25), "[1/3] x, 12.2 s");
}

TEST(ConcurrentGpu, AllGpusBothDirectionsRunsAndOverlaps) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    (void)cudaGetLastError();
    GTEST_SKIP() << "no CUDA GPU: " << cudaGetErrorName(e);
  }
  const xb::System sys = xb::discover_system(false);
  xb::MeasureOptions mo;
  mo.min_samples = mo.max_samples = 3;
  xb::Measurer m(sys, mo);
  xb::ScenarioRequest req;
  req.scenario = xb::expand_requests(xb::parse_transfer_spec("all:16M:both"), sys.gpu_count(),
                                     xb::StreamMode::per_transfer);
  int last_sample = 0;
  xb::GpuSource src(m);
  const xb::ScenarioResult r = xb::run_scenario(src, req, [&](int s) { last_sample = s; });
  EXPECT_EQ(last_sample, 3);
  ASSERT_EQ(r.transfers.size(), static_cast<std::size_t>(2 * sys.gpu_count()));
  EXPECT_TRUE(xb::all_valid(r));
  EXPECT_GT(r.aggregate_bandwidth_gbps, 0.0);
  EXPECT_GT(r.span_s, 0.0);
  for (const auto& t : r.transfers) {
    EXPECT_GT(t.bandwidth_gbps, 0.0);
    EXPECT_GE(t.end_s, t.start_s);
    EXPECT_LE(t.end_s, r.span_s * 1.01 + 20e-6);  // a few microseconds of skew between gates
  }
  // HtoD and DtoH of one GPU use separate copy engines and must overlap.
  EXPECT_GT(r.overlap_fraction, 0.5);
}

}  // namespace
