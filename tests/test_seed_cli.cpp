// Seed spellings beyond the README examples (CUts' documented flags,
// multi-gpu-bwtest's --list), bad values that used to be accepted, output
// paths refused before any GPU work, and the message without an NVIDIA
// driver. All in-process; none of it needs a GPU.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <any>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "app/cli.hpp"
#include "app/run_options.hpp"
#include "cli_parse.hpp"
#include "machine/cuda_check.hpp"
#include "base/error.hpp"
#include "machine/topology.hpp"
#include "frontends/spec.hpp"

namespace {

const xb::app::ScenarioPlan* scenario(const Parsed& p) { return std::any_cast<xb::app::ScenarioPlan>(&p.plan); }

TEST(SeedCli, CutsTakesItsOwnShortOptionsWithMinusHForHtod) {
  const Parsed p = parse({"cuts", "-d", "0", "-h", "1", "-p", "1,0", "-i", "5", "-s", "1024", "-n"});
  ASSERT_EQ(p.code, -1) << p.err;
  EXPECT_EQ(p.command, "cuts");
  ASSERT_NE(scenario(p), nullptr);
  const xb::app::ScenarioPlan& plan = *scenario(p);
  EXPECT_EQ(plan.measure.copies_per_sample, 5);
  const xb::Scenario s = xb::expand_requests(plan.requests, 2, plan.streams);
  ASSERT_EQ(s.transfers.size(), 3u);
  EXPECT_EQ(s.transfers[0].label, "gpu0->host");
  EXPECT_EQ(s.transfers[1].label, "host->gpu1");
  EXPECT_EQ(s.transfers[2].label, "gpu0->gpu1");
  for (const auto& t : s.transfers) EXPECT_EQ(t.bytes, 1024u);
  EXPECT_EQ(s.transfers[1].src.numa, xb::kNoNumaPlacement);  // -n
}

TEST(SeedCli, CutsHelpUsageAndVersionFlags) {
  for (const char* flag : {"-?", "--help", "--usage"}) {
    const Parsed p = parse({"cuts", flag});
    EXPECT_EQ(p.code, 0) << flag << ": " << p.err;
    EXPECT_NE(p.out.find("-h,--htod"), std::string::npos) << flag << ": " << p.out;
    EXPECT_FALSE(p.has_action) << flag;
  }
  for (const char* flag : {"-V", "--version"}) {
    const Parsed p = parse({"cuts", flag});
    EXPECT_EQ(p.code, 0) << flag;
    EXPECT_EQ(p.out.rfind(std::string("xferbench ") + XFERBENCH_VERSION, 0), 0u) << flag << ": " << p.out;
  }
  // -h is a transfer, not help, so it needs its GPU id.
  EXPECT_EQ(parse({"cuts", "-h"}).code, 2);
}

TEST(SeedCli, RootListListsDevicesAndRunListListsCases) {
  for (const auto& args :
       std::vector<std::vector<std::string>>{{"--list"}, {"-q", "--list"}, {"--list", "--format", "json"}}) {
    const Parsed p = parse(args);
    EXPECT_EQ(p.code, -1) << args.back() << ": " << p.err;
    EXPECT_EQ(p.command, "list") << args.back();
  }
  const Parsed run = parse({"run", "--list"});
  EXPECT_EQ(run.code, -1) << run.err;
  EXPECT_EQ(run.command, "run");
  EXPECT_FALSE(run.plan.has_value());  // nothing to measure: the catalogue is printed
}

TEST(SeedCli, ValuesThatUsedToSlipThroughAreUsageErrors) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> bad = {
      {{"run", "-i", "-1"}, "invalid -i/--samples '-1'"},
      {{"run", "-i", "x"}, "invalid -i/--samples 'x'"},
      {{"sweep", "--do", "0:HtoD", "--min", "1K", "--max", "2K", "-i", "-1"}, "invalid -i/--samples '-1'"},
      {{"cuts", "--dtoh=0", "--samples", "-1"}, "invalid --samples '-1'"},
      {{"run", "--buffer-size", ""}, "invalid --buffer-size ''"},
      {{"run", "-b", ""}, "invalid -b/--buffer-mib ''"},
      {{"cuts", "--dtoh=0", "-s", ""}, "invalid -s/--size ''"},
      {{"run", "--htod=0", "--size", ""}, "invalid --size ''"},
      {{"run", "-t", "0", "-o", ""}, "invalid -o/--output ''"},
  };
  for (const auto& [args, needle] : bad) {
    const Parsed p = parse(args);
    EXPECT_EQ(p.code, 2) << needle;
    EXPECT_NE(p.err.find(needle), std::string::npos) << p.err;
    EXPECT_EQ(std::count(p.err.begin(), p.err.end(), '\n'), 1) << p.err;
    EXPECT_FALSE(p.has_action) << needle;
  }
  // The adaptive default and a real count still parse.
  EXPECT_EQ(parse({"run", "-t", "0"}).code, -1);
  EXPECT_EQ(parse({"run", "-t", "0", "-i", "3"}).code, -1);
  EXPECT_EQ(parse({"cuts", "--dtoh=0", "--samples", "2"}).code, -1);
}

// Parses and runs the action, as main() does; returns the exit code.
int run_command(const std::vector<std::string>& args, std::string& err) {
  xb::app::Context ctx;
  ctx.argv = {"xferbench"};
  auto app = xb::app::make_app(ctx);
  std::ostringstream out, errs;
  int code = xb::app::parse_args(*app, ctx, args, out, errs);
  if (code < 0) code = xb::app::run_action(ctx, errs);
  err = errs.str();
  return code;
}

// An existing directory as -o ends every command with exit 7 naming it
// before any GPU work: on a machine without a GPU this exits 7, not 3.
TEST(SeedCli, AnOutputDirectoryIsRefusedBeforeAnyWork) {
  std::string dir = ::testing::TempDir() + "/xb_out_XXXXXX";
  ASSERT_NE(mkdtemp(dir.data()), nullptr);
  const std::string d = dir + "/d.json", png = dir + "/d.png";
  ASSERT_EQ(mkdir(d.c_str(), 0755), 0);
  ASSERT_EQ(mkdir(png.c_str(), 0755), 0);
  const std::vector<std::vector<std::string>> commands = {
      {"run", "-t", "0", "-o", d},
      {"-o", d},
      {"run", "--do=0:HtoD", "-o", d},
      {"cuts", "--dtoh=0", "-o", d},
      {"sweep", "--do", "0:HtoD", "--min", "1K", "--max", "2K", "-o", d},
      {"list", "-o", d},
      {"cases", "-o", d},
      {"compare", "old.json", "new.json", "-o", d},
      {"plot", "result.json", "-o", png},
  };
  for (const auto& args : commands) {
    std::string err;
    EXPECT_EQ(run_command(args, err), 7) << args[0] << ": " << err;
    const std::string& path = args.back();
    EXPECT_NE(err.find("cannot write output file '" + path + "': it is a directory"), std::string::npos) << err;
  }
  EXPECT_EQ(std::system(("rm -rf '" + dir + "'").c_str()), 0);
}

// Without libcuda the runtime's own words are "CUDA driver version is
// insufficient"; xferbench says what is missing. Which branch applies
// depends on the machine, and each is checked where it does.
TEST(SeedCli, NoDriverOrGpuIsSaidPlainly) {
  int driver = 0;
  const bool has_driver = cudaDriverGetVersion(&driver) == cudaSuccess && driver > 0;
  const std::string missing = xb::no_gpu_message(cudaErrorInsufficientDriver);
  if (!has_driver) {
    EXPECT_EQ(missing.rfind("no NVIDIA driver or GPU found", 0), 0u) << missing;
    EXPECT_EQ(missing.find("insufficient"), std::string::npos) << missing;
    try {
      xb::cuda_device_count();
      ADD_FAILURE() << "cuda_device_count() found a GPU without a driver";
    } catch (const xb::Error& e) {
      EXPECT_EQ(e.kind(), xb::ErrorKind::no_device);
      EXPECT_NE(std::string(e.what()).find("no NVIDIA driver or GPU found"), std::string::npos) << e.what();
    }
    return;
  }
  EXPECT_NE(missing.find("older than the CUDA"), std::string::npos) << missing;
  EXPECT_EQ(xb::no_gpu_message(cudaErrorNoDevice).rfind("no CUDA GPU found", 0), 0u);
}

}  // namespace
