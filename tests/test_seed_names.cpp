// Running under the seed tools' names: which name selects which tool, what
// each front-end accepts and refuses before any GPU is touched, and the
// output layouts of bwtest and the overalloc reproducer as their READMEs
// show them.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/nvbandwidth_cli.hpp"
#include "app/seed_names.hpp"
#include "base/error.hpp"
#include "machine/topology.hpp"
#include "report/reporter.hpp"
#include "cli_parse.hpp"

namespace {

using xb::app::SeedTool;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

struct Outcome {
  int code;
  std::string out, err;
};

Outcome front_end(SeedTool tool, const std::vector<std::string>& args) {
  xb::app::Context ctx;
  ctx.argv = {xb::app::seed_tool_name(tool)};
  std::ostringstream out, err;
  const int code = xb::app::run_seed_front_end(tool, ctx, args, out, err);
  return {code, out.str(), err.str()};
}

Outcome nvbandwidth(const std::vector<std::string>& args) {
  xb::app::NvbInvocation inv;
  std::ostringstream out, err;
  const int code = xb::app::parse_nvbandwidth(args, inv, out, err);
  return {code, out.str(), err.str()};
}

bool have_gpu() {
  try {
    return xb::cuda_device_count() > 0;
  } catch (const xb::Error&) {
    return false;
  }
}

}  // namespace

TEST(SeedNames, ProgramNameSelectsTheTool) {
  EXPECT_EQ(xb::app::seed_tool_of("/usr/local/bin/nvbandwidth"), SeedTool::nvbandwidth);
  EXPECT_EQ(xb::app::seed_tool_of("nvbandwidth"), SeedTool::nvbandwidth);
  EXPECT_EQ(xb::app::seed_tool_of("./bwtest"), SeedTool::bwtest);
  EXPECT_EQ(xb::app::seed_tool_of("/opt/x/cuts"), SeedTool::cuts);
  EXPECT_EQ(xb::app::seed_tool_of("gpudirect_p2p_overalloc"), SeedTool::overalloc);
  EXPECT_EQ(xb::app::seed_tool_of("/usr/bin/xferbench"), SeedTool::none);
  EXPECT_EQ(xb::app::seed_tool_of(".devbuild/nvbandwidth-v0.8"), SeedTool::none);
  EXPECT_EQ(xb::app::seed_tool_of("nvbandwidth/xferbench"), SeedTool::none);
}

TEST(SeedNames, VersionSaysWhatTheProgramIs) {
  const Parsed x = parse({"--version"});
  EXPECT_EQ(x.code, 0);
  EXPECT_NE(x.out.find(std::string("xferbench ") + XFERBENCH_VERSION), std::string::npos);
  for (SeedTool t : {SeedTool::nvbandwidth, SeedTool::bwtest, SeedTool::cuts, SeedTool::overalloc}) {
    const Outcome r = front_end(t, {"--version"});
    EXPECT_EQ(r.code, 0);
    EXPECT_NE(r.out.find(std::string("xferbench ") + XFERBENCH_VERSION), std::string::npos);
    EXPECT_NE(r.out.find(std::string("Run as ") + xb::app::seed_tool_name(t)), std::string::npos) << r.out;
  }
  EXPECT_NE(front_end(SeedTool::nvbandwidth, {"--version"}).out.find("not NVIDIA's nvbandwidth"), std::string::npos);
}

TEST(SeedNames, CutsAndOverallocAreXferbenchCommandsWithTheirOwnOutput) {
  using V = std::vector<std::string>;
  EXPECT_EQ(xb::app::seed_command_line(SeedTool::cuts, {"--dtoh=0"}), (V{"cuts", "--format", "cuts", "--dtoh=0"}));
  EXPECT_EQ(xb::app::seed_command_line(SeedTool::cuts, {"--dtoh=0", "-j"}), (V{"cuts", "--dtoh=0", "-j"}));
  EXPECT_EQ(xb::app::seed_command_line(SeedTool::overalloc, {"5", "3", "1024", "1073741824", "1"}),
            (V{"first-touch", "--format", "seed", "5", "3", "1024", "1073741824", "1"}));
  EXPECT_EQ(xb::app::seed_command_line(SeedTool::none, {"-t", "0"}), (V{"-t", "0"}));
  const Parsed cuts = parse({"cuts", "--format", "cuts", "--dtoh=0", "--htod=0"});
  EXPECT_EQ(cuts.code, -1) << cuts.err;
  EXPECT_EQ(parse({"cuts", "--format", "bwtest", "--dtoh=0"}).code, 2);
  EXPECT_EQ(front_end(SeedTool::cuts, {"--dtoh=0"}).code, -1);  // goes on as 'xferbench cuts'
}

TEST(SeedNames, NvbandwidthUnknownCaseGetsItsOwnErrorLine) {
  // Among known cases: one line on stderr now, as for every other bad
  // input; nvbandwidth's own line comes where the name was listed, while the
  // known cases run (tests/test_nvbandwidth_golden.cpp runs them).
  xb::app::NvbInvocation inv;
  std::ostringstream out, err;
  EXPECT_EQ(xb::app::parse_nvbandwidth({"-t", "host_to_device_memcpy_ce", "nosuch_case", "99"}, inv, out, err), -1);
  EXPECT_EQ(out.str(), "");
  EXPECT_EQ(err.str(), "nvbandwidth (xferbench): error: unknown test case 'nosuch_case', '99'; see nvbandwidth --list\n");
  ASSERT_EQ(inv.print.not_found.size(), 2u);
  EXPECT_EQ(inv.print.not_found[0].name, "nosuch_case");
  EXPECT_EQ(inv.print.not_found[0].before, 1u);
  EXPECT_EQ(inv.print.not_found[1].name, "99");
  EXPECT_EQ(inv.request.cases.size(), 1u);
  EXPECT_EQ(xb::app::nvb_exit_code(inv, 0), 2);
  EXPECT_EQ(xb::app::nvb_exit_code(inv, 1), 2);
  EXPECT_EQ(xb::app::nvb_exit_code(inv, 130), 130);
  EXPECT_EQ(xb::app::nvb_exit_code(xb::app::NvbInvocation{}, 1), 1);
  // Nothing known: the lines now, exit 2, nothing to run.
  const Outcome r = nvbandwidth({"-t", "nosuch_case", "99"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "ERROR: Testcase nosuch_case not found!\nERROR: Testcase index 99 out of bound!\n");
  EXPECT_EQ(r.err, "nvbandwidth (xferbench): error: unknown test case 'nosuch_case', '99'; see nvbandwidth --list\n");
  const Outcome j = nvbandwidth({"-j", "-t", "nosuch_case"});
  EXPECT_EQ(j.code, 2);
  const auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["nvbandwidth"]["testcases"][0]["status"], "Not Found");
  EXPECT_EQ(doc["nvbandwidth"]["testcases"][0]["name"], "nosuch_case");
  EXPECT_TRUE(doc["nvbandwidth"]["CUDA Runtime Version"].is_number_integer());
  EXPECT_TRUE(doc["nvbandwidth"]["Driver Version"].is_string());
}

TEST(SeedNames, NvbandwidthBadValuesGetOneLineAndExitTwo) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> bad = {
      {{"-b", "0"}, "'0'"},
      {{"-b", "lots"}, "lots"},
      {{"-i", "0"}, "--testSamples '0'"},
      {{"-i", "-2"}, "'-2'"},
      {{"--loopCount", "0"}, "--loopCount '0'"},
      {{"-P", "0"}, "-P/--targetNumPairs '0'"},
      {{"-P", "-2"}, "-P/--targetNumPairs '-2'"},
      {{"-t", "0", "-p", "host"}, "not both"},
      {{"-p", "zzz"}, "'zzz'"},
      {{"--bogus"}, "--bogus"},
      {{"-b"}, "-b"},
  };
  for (const auto& [args, needle] : bad) {
    const Outcome r = nvbandwidth(args);
    EXPECT_EQ(r.code, 2) << args[0];
    EXPECT_NE(r.err.find(needle), std::string::npos) << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find("nvbandwidth (xferbench): error: "), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "") << args[0];
  }
  // With -j the error also comes as nvbandwidth's JSON "error" field.
  const Outcome j = nvbandwidth({"-j", "-p", "zzz"});
  EXPECT_EQ(j.code, 2);
  EXPECT_NE(nlohmann::json::parse(j.out)["nvbandwidth"]["error"].get<std::string>().find("zzz"), std::string::npos);
}

TEST(SeedNames, NvbandwidthDefaultsAndList) {
  xb::app::NvbInvocation inv;
  std::ostringstream out, err;
  ASSERT_EQ(xb::app::parse_nvbandwidth({}, inv, out, err), -1) << err.str();
  EXPECT_EQ(inv.request.cases.size(), 35u);
  EXPECT_EQ(inv.request.buffer_bytes, 512ull << 20);
  EXPECT_FALSE(inv.json);
  ASSERT_EQ(xb::app::parse_nvbandwidth({"-p", "device_to_device", "host_device"}, inv, out, err), -1) << err.str();
  // 8 d2d CE/SM copy cases, both latency cases, then xferbench's TMA read,
  // write and latency cases and its four loaded-latency cases of host and
  // peer memory, in catalogue order.
  EXPECT_EQ(inv.request.cases.size(), 17u);
  EXPECT_EQ(inv.request.cases.front()->name, "device_to_device_memcpy_read_ce");
  EXPECT_EQ(inv.request.cases.back()->name, "device_to_device_latency_sm_under_read_ce");
  // v0.9's -H and -P set huge-page host memory and pair sampling.
  ASSERT_EQ(xb::app::parse_nvbandwidth({"-H", "-P", "4"}, inv, out, err), -1) << err.str();
  EXPECT_EQ(inv.request.measure.host_kind, xb::MemKind::hugepages);
  EXPECT_EQ(inv.request.sample_pairs, 4);
  ASSERT_EQ(xb::app::parse_nvbandwidth({"-P", "-1"}, inv, out, err), -1) << err.str();
  EXPECT_EQ(inv.request.sample_pairs, 0);  // every pair
  EXPECT_EQ(inv.request.measure.host_kind, xb::MemKind::pinned);
  // xferbench's --nvbandwidth-version: v0.10's text layout unless 0.8 is asked for; text only.
  EXPECT_EQ(inv.print.layout, xb::report::NvbLayout::v0_10);
  ASSERT_EQ(xb::app::parse_nvbandwidth({"--nvbandwidth-version", "0.8", "-t", "0"}, inv, out, err), -1) << err.str();
  EXPECT_EQ(inv.print.layout, xb::report::NvbLayout::v0_8);
  for (const std::vector<std::string>& bad : {std::vector<std::string>{"--nvbandwidth-version", "0.9"},
                                              {"-j", "--nvbandwidth-version", "0.8"}, {"--nvbandwidth-version", ""}}) {
    std::ostringstream o2, e2;
    xb::app::NvbInvocation i2;
    EXPECT_EQ(xb::app::parse_nvbandwidth(bad, i2, o2, e2), 2) << bad.back();
    EXPECT_NE(e2.str().find("--nvbandwidth-version"), std::string::npos) << e2.str();
  }
  ASSERT_EQ(xb::app::parse_nvbandwidth({"-l"}, inv, out, err), -1);
  std::ostringstream listed;
  auto* old = std::cout.rdbuf(listed.rdbuf());
  const int code = xb::app::run_nvbandwidth(inv, xb::app::Context{});
  std::cout.rdbuf(old);
  EXPECT_EQ(code, 0);
  EXPECT_EQ(lines_of(listed.str()).size(), 2u + 2u * 35u);
  EXPECT_EQ(lines_of(listed.str()).at(2), "0, host_to_device_memcpy_ce:");
}

TEST(SeedNames, XferbenchRunTakesNvbandwidthSpellingsAndFormats) {
  EXPECT_EQ(parse({"run", "--bufferSize", "64", "--testcase", "0", "1", "--testSamples", "3", "--useMean",
                   "--skipVerification", "--disableAffinity", "--loopCount", "4", "-v"}).code, -1);
  EXPECT_EQ(parse({"run", "--testcasePrefixes", "host_to", "--format", "nvbandwidth"}).code, -1);
  EXPECT_EQ(parse({"run", "-t", "0", "--format", "nvbandwidth-json"}).code, -1);
  EXPECT_EQ(parse({"run", "-P", "8", "-H", "-p", "device_to_device"}).code, -1);
  EXPECT_EQ(parse({"run", "-P", "-1", "--useHugePages"}).code, -1);
  EXPECT_EQ(parse({"run", "-t", "0", "--format", "nvbandwidth", "--nvbandwidth-version", "0.8"}).code, -1);
  for (const auto& [args, needle] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"run", "--loopCount", "0"}, "--loopCount '0'"},
           {{"run", "-P", "0"}, "'0'"},
           {{"run", "-P", "8", "--pair", "0,1"}, "not both"},
           {{"run", "--useHugePages", "--do=0:HtoD"}, "--host-mem 'hugepages' applies to named cases"},
           {{"run", "--bufferSize", "0"}, "'0'"},
           {{"run", "--testSamples", "0"}, "'0'"},
           {{"run", "--do=0:HtoD", "--format", "nvbandwidth"}, "--format nvbandwidth applies to named cases"},
           {{"run", "--htod=0", "-v"}, "-v/--verbose applies to named cases"},
           {{"run", "-t", "0", "--format", "nvbandwidth", "--nvbandwidth-version", "0.9"},
            "invalid --nvbandwidth-version '0.9': use 0.8 or 0.10"},
           {{"run", "-t", "0", "--nvbandwidth-version", "0.8"}, "--nvbandwidth-version applies to --format nvbandwidth"}}) {
    const Parsed p = parse(args);
    EXPECT_EQ(p.code, 2) << args[1];
    EXPECT_NE(p.err.find(needle), std::string::npos) << p.err;
  }
}

TEST(SeedNames, BwtestFrontEnd) {
  const Outcome help = front_end(SeedTool::bwtest, {"--help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("--do"), std::string::npos);
  EXPECT_NE(help.out.find("--streams"), std::string::npos);
  EXPECT_EQ(front_end(SeedTool::bwtest, {"--do=0:sideways"}).code, 2);
  EXPECT_EQ(front_end(SeedTool::bwtest, {"--streams=many", "--do=0"}).code, 2);
  const Outcome none = front_end(SeedTool::bwtest, {});
  EXPECT_EQ(none.code, 2);
  EXPECT_NE(none.err.find("no transfer given"), std::string::npos) << none.err;
  EXPECT_EQ(front_end(SeedTool::bwtest, {"--bogus"}).code, 2);
  if (!have_gpu()) {
    const Outcome list = front_end(SeedTool::bwtest, {"--list"});
    EXPECT_EQ(list.code, 3);
    EXPECT_NE(list.err.find("no NVIDIA driver or GPU found"), std::string::npos) << list.err;
  }
}

// The layout lines of multi-gpu-bwtest's README, and rows rebuilt from the
// values it shows.
TEST(SeedNames, BwtestTableAsItsReadmeShowsIt) {
  xb::ScenarioResult r;
  r.command_line = {"bwtest", "--do=0:DtoH:6684672:mapped", "--do=2:1024:HtoD"};
  xb::TransferResult a, b;
  a.device = 0;
  a.device_name = b.device_name = "Tesla K40c";
  a.bytes = 64 * 1024 * 102;
  a.direction = "DtoH";
  a.elapsed_s = 658.8e-6;
  a.bandwidth_gbps = 10.14699;
  b.device = 2;
  b.bytes = 1024;
  b.direction = "HtoD";
  b.elapsed_s = 24.9e-6;
  b.bandwidth_gbps = 0.04113;
  r.transfers = {a, b};
  r.copies_per_sample = 1;
  r.span_s = 698e-6;
  r.aggregate_bandwidth_gbps = 9.57682;
  std::ostringstream os;
  xb::report::make_reporter("bwtest", os)->scenario(r);
  const std::vector<std::string> want = {
      "Allocating buffers......DONE",
      "Allocating buffers......DONE",
      "Executing transfers.....DONE",
      "Synchronizing streams...DONE",
      "",
      "=====================================================================================",
      " ID   Device name       Transfer size   Direction   Time elapsed   Bandwidth ",
      "-------------------------------------------------------------------------------------",
      "  0   Tesla K40c             6.38 MiB        DtoH         659 µs      10146.99 MiB/s ",
      "  2   Tesla K40c             1.00 KiB        HtoD          25 µs         41.13 MiB/s ",
      "=====================================================================================",
      "",
      "Aggregated total time      :          684 µs",
      "Aggregated total bandwidth :      9778.70 MiB/s",
      "Estimated elapsed time     :          698 µs",
      "Timed total bandwidth      :      9576.82 MiB/s",
  };
  EXPECT_EQ(lines_of(os.str()), want);
  EXPECT_EQ(xb::report::bwtest_size(512), "512.00 B");
  EXPECT_EQ(xb::report::bwtest_size(3ull << 30), "3.00 GiB");
}

TEST(SeedNames, BwtestListAsItsReadmeShowsIt) {
  xb::System sys;
  xb::GpuInfo k40, gtx;
  k40.index = 0;
  k40.name = "Tesla K40c";
  k40.pci_bus_id = "0000:08:00.0";
  k40.cc_major = 3;
  k40.cc_minor = 5;
  k40.managed_memory = k40.unified_addressing = k40.can_map_host_memory = true;
  k40.copy_engines = 2;
  gtx = k40;
  gtx.index = 3;
  gtx.name = "GeForce GTX 750";
  gtx.pci_bus_id = "0000:04:01.0";
  gtx.cc_major = 5;
  gtx.cc_minor = 0;
  gtx.copy_engines = 1;
  sys.gpus = {k40, gtx};
  std::ostringstream os;
  xb::report::make_reporter("bwtest", os)->system(sys);
  const std::vector<std::string> want = {
      "",
      " ID   Device name       IO addr     Compute   Managed   Unified   Mappable    #",
      "-------------------------------------------------------------------------------",
      "  0   Tesla K40c        08:00.0        3.5        yes       yes        yes    2",
      "  3   GeForce GTX 750   04:01.0        5.0        yes       yes        yes    1",
      "",
  };
  EXPECT_EQ(lines_of(os.str()), want);
}

TEST(SeedNames, OverallocSeedLinesOnly) {
  xb::firsttouch::Result r;
  r.mode = "seed";
  r.transport = "mpi";
  r.sender_rank = 0;
  r.receiver_rank = 1;
  r.iterations = 2;
  r.sub_iterations = 3;
  r.p2p_bytes = 1024;
  r.warmup_s = 2.17581;
  xb::firsttouch::VariantResult with, without;
  with.label = "with overalloc";
  with.buffer_bytes = without.buffer_bytes = 1ull << 30;
  with.overalloc_bytes = 1;
  with.times_s = {{0.454265, 2.8895e-05, 1.9328e-05}, {0.456158, 0.00184436, 3.4303e-05}};
  without.label = "without overalloc";
  without.times_s = {{0.000880008, 2.192e-05, 1.8527e-05}, {0.00345239, 2.1087e-05, 1.9071e-05}};
  r.variants = {with, without};
  std::ostringstream seed;
  xb::report::make_reporter("seed", seed)->first_touch(r, {});
  const auto lines = lines_of(seed.str());
  ASSERT_EQ(lines.size(), 4u + 2u * (1u + 6u));
  EXPECT_EQ(lines[0], "p2p_size: 1024");
  EXPECT_EQ(lines[1], "buffer_size: 1073741824");
  EXPECT_EQ(lines[2], "overalloc_size: 1");
  EXPECT_EQ(lines[3], "[-1] time: 2.17581");
  static const std::regex doing(
      R"(Doing .* from rank 0 to rank 1, of 1024 bytes from a buffer of 1073741825 bytes \(with overalloc\)\.)");
  EXPECT_TRUE(std::regex_match(lines[4], doing)) << lines[4];
  EXPECT_EQ(lines[5], "[0:0] time: 0.454265");
  EXPECT_EQ(lines[10], "[1:2] time: 3.4303e-05");
  EXPECT_NE(lines[11].find("of 1073741824 bytes (without overalloc)."), std::string::npos) << lines[11];
  for (const auto& l : lines) EXPECT_NE(l.rfind("#", 0), 0u) << l;
}
