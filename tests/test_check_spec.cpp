// The check spec parser: the shipped specs, good inline specs and every kind
// of bad input (exit 2 naming file, line and key).
#include <gtest/gtest.h>

#include <filesystem>

#include "check/spec.hpp"
#include "base/error.hpp"

namespace {

using namespace xb::check;

const std::string kShare = XFERBENCH_SOURCE_DIR "/share/xferbench/check/";

// The usage error a spec text raises, or "" when it parses.
std::string error_of(const std::string& text) {
  try {
    parse_spec_text(text, "bad.toml");
  } catch (const xb::Error& e) {
    EXPECT_EQ(e.kind(), xb::ErrorKind::usage);
    return e.what();
  }
  return "";
}

TEST(CheckSpec, ShippedSpecsParse) {
  for (const char* name : {"h200.toml", "h100.toml"}) {
    const CheckSpec s = parse_spec_file(kShare + name);
    EXPECT_FALSE(s.model.empty()) << name;
    EXPECT_EQ(s.lint.nvlinks_per_gpu, 18) << name;
    EXPECT_GE(s.expect.size(), 14u) << name;
    for (const auto& e : s.expect) EXPECT_FALSE(e.why.empty()) << name << " " << e.where;
  }
}

// Every H100 threshold cites the recorded H100 runs it was set from, and
// those folders exist; the GPU-to-GPU ones cite the 4 x H100 node (a
// single GPU has no peer). tests/check_cli_checks.sh judges every cited run
// against the spec.
TEST(CheckSpec, H100SpecCitesTheRunsItWasSetFrom) {
  const CheckSpec s = parse_spec_file(kShare + "h100.toml");
  ASSERT_FALSE(s.expect.empty());
  const std::string one = "bench/results/2026-11-23-h100/", four = "bench/results/2026-11-27-h100x4-whole-node/";
  for (const std::string& dir : {one, four})
    EXPECT_TRUE(std::filesystem::is_directory(XFERBENCH_SOURCE_DIR "/" + dir)) << dir;
  for (const auto& e : s.expect) {
    EXPECT_EQ(e.why.find("TO BE SET"), std::string::npos) << e.where;
    const bool gpu_pair = e.case_name.find("device_to_device_memcpy") == 0 ||
                          e.case_name.find("device_to_device_bidirectional") == 0 ||
                          e.case_name.find("all_to_one") == 0 || e.case_name.find("one_to_all") == 0;
    EXPECT_NE(e.why.find(four), std::string::npos) << e.where;
    if (!gpu_pair) {
      EXPECT_NE(e.why.find(one), std::string::npos) << e.where;
    }
  }
}

TEST(CheckSpec, GoodSpec) {
  const CheckSpec s = parse_spec_text(R"(
model = "H200"
[lint]
nvlinks_per_gpu = 12
severity = { persistence_mode = "error", pcie_acs = "warn" }
[peers]
bandwidth_min = "90%"
latency_max = "120%"
[[expect]]
case = "host_to_device_memcpy_ce"
link = "pcie"
min = "52.5 GB/s"
[[expect]]
case = "*"
link = "nvlink"
min = "80%"
[[expect]]
case = "device_to_device_latency_sm"
max = "1.2 us"
[[expect]]
case = "device_to_device_bidirectional_memcpy_write_ce"
matrix = "total"
min = "700 GB/s"
)", "good.toml");
  EXPECT_EQ(s.model, "H200");
  EXPECT_EQ(s.lint.nvlinks_per_gpu, 12);
  EXPECT_EQ(s.lint.severity_override.at("persistence_mode"), Severity::error);
  EXPECT_DOUBLE_EQ(*s.peer_bandwidth_min_pct, 90);
  EXPECT_DOUBLE_EQ(*s.peer_latency_max_pct, 120);
  ASSERT_EQ(s.expect.size(), 4u);
  EXPECT_EQ(s.expect[0].threshold.unit, Threshold::Unit::gbps);
  EXPECT_DOUBLE_EQ(s.expect[0].threshold.value, 52.5);
  EXPECT_EQ(s.expect[0].where, "good.toml:9");
  EXPECT_EQ(s.expect[1].threshold.unit, Threshold::Unit::percent_of_peak);
  EXPECT_DOUBLE_EQ(s.expect[2].threshold.value, 1200);
  EXPECT_TRUE(s.expect[2].latency);

  // Most specific wins: the exact case beats "*", the matrix entry beats none.
  EXPECT_EQ(find_expectation(s, "device_to_device_memcpy_read_ce", "", LinkClass::nvlink, false), &s.expect[1]);
  EXPECT_EQ(find_expectation(s, "device_to_device_bidirectional_memcpy_write_ce", "total", LinkClass::nvlink, false),
            &s.expect[3]);
  EXPECT_EQ(find_expectation(s, "device_to_device_bidirectional_memcpy_write_ce", "write1", LinkClass::nvlink, false),
            &s.expect[1]);
  EXPECT_EQ(find_expectation(s, "host_to_device_memcpy_sm", "", LinkClass::pcie, false), nullptr);
  EXPECT_EQ(find_expectation(s, "device_to_device_latency_sm", "", LinkClass::nvlink, true), &s.expect[2]);
}

TEST(CheckSpec, SyntaxErrorNamesFileAndLine) {
  EXPECT_EQ(error_of("model = \"H200\"\n[[expect]\ncase = 1\n").rfind("bad.toml:2: not valid TOML", 0), 0u);
}

TEST(CheckSpec, UnknownCaseLinkUnitAndKey) {
  EXPECT_EQ(error_of("[[expect]]\ncase = \"host_to_gpu\"\nmin = \"5 GB/s\"\n"),
            "bad.toml:2: key 'case': unknown case 'host_to_gpu' (see 'xferbench cases')");
  EXPECT_NE(error_of("[[expect]]\nlink = \"infiniband\"\nmin = \"5 GB/s\"\n")
                .find("bad.toml:2: key 'link': unknown link kind 'infiniband'"), std::string::npos);
  EXPECT_NE(error_of("[[expect]]\nmin = \"5 MB/s\"\n").find("bad.toml:2: key 'min': '5 MB/s': unknown unit 'mb/s'"),
            std::string::npos);
  EXPECT_NE(error_of("[[expect]]\nmin = \"5 GB/s\"\nminn = 3\n").find("bad.toml:3: unknown key 'minn' in [[expect]]"),
            std::string::npos);
  EXPECT_NE(error_of("modle = \"H200\"\n").find("bad.toml:1: unknown key 'modle'"), std::string::npos);
  EXPECT_NE(error_of("[lint.severity]\npcie_lnk = \"warn\"\n").find("bad.toml:2: key 'severity.pcie_lnk': unknown lint rule"),
            std::string::npos);
  EXPECT_NE(error_of("[lint.severity]\npcie_link = \"fatal\"\n").find("unknown severity 'fatal'"), std::string::npos);
}

TEST(CheckSpec, ValuesThatCannotBeMeant) {
  EXPECT_NE(error_of("[[expect]]\nmin = 52\n").find("bad.toml:2: key 'min' needs a value with a unit"), std::string::npos);
  EXPECT_NE(error_of("[[expect]]\nmin = \"120%\"\n").find("above 100% of the theoretical peak"), std::string::npos);
  EXPECT_NE(error_of("[[expect]]\nmin = \"-3 GB/s\"\n").find("not a positive number"), std::string::npos);
  EXPECT_NE(error_of("[[expect]]\ncase = \"*\"\n").find("bad.toml:1: an [[expect]] entry needs exactly one of"),
            std::string::npos);
  EXPECT_NE(error_of("[[expect]]\nmin = \"5 GB/s\"\nmax = \"3 ns\"\n").find("exactly one of"), std::string::npos);
  EXPECT_NE(error_of("[[expect]]\nmax = \"50 GB/s\"\n").find("unknown unit 'gb/s' (expected ns or us, for a latency)"),
            std::string::npos);
  EXPECT_NE(error_of("[[expect]]\ncase = \"host_device_latency_sm\"\nmin = \"5 GB/s\"\n")
                .find("case 'host_device_latency_sm' reports a latency (ns), so give 'max'"), std::string::npos);
  EXPECT_NE(error_of("[peers]\nbandwidth_min = \"85\"\n").find("not a percentage"), std::string::npos);
  EXPECT_NE(error_of("[lint]\nnvlinks_per_gpu = \"18\"\n").find("must be an integer"), std::string::npos);
}

// Peer limits past 100% the wrong way would fail even the median cell, so
// every cell of every node (docs/check.md).
TEST(CheckSpec, PeerPercentagesOutsideTheirRange) {
  EXPECT_NE(error_of("[peers]\nbandwidth_min = \"500%\"\n")
                .find("bad.toml:2: key 'bandwidth_min': '500%' is out of range: give more than 0% and at most 100%"),
            std::string::npos);
  EXPECT_NE(error_of("[peers]\nbandwidth_min = \"0%\"\n").find("out of range"), std::string::npos);
  EXPECT_NE(error_of("[peers]\nlatency_max = \"50%\"\n")
                .find("key 'latency_max': '50%' is out of range: give 100% to 1000%"),
            std::string::npos);
  EXPECT_NE(error_of("[peers]\nlatency_max = \"5000%\"\n").find("out of range"), std::string::npos);
  const CheckSpec edges = parse_spec_text("[peers]\nbandwidth_min = \"100%\"\nlatency_max = \"100%\"\n", "e.toml");
  EXPECT_DOUBLE_EQ(*edges.peer_bandwidth_min_pct, 100);
  EXPECT_DOUBLE_EQ(*edges.peer_latency_max_pct, 100);
}

// An input file that cannot be read is the user's to fix: exit 2 (usage),
// naming the option, the path and the system's reason; exit 7 is for outputs.
std::string file_error(const std::string& path) {
  try {
    parse_spec_file(path);
  } catch (const xb::Error& e) {
    EXPECT_EQ(e.kind(), xb::ErrorKind::usage) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error for " << path;
  return "";
}

TEST(CheckSpec, MissingFileIsAUsageErrorWithTheReason) {
  EXPECT_EQ(file_error("/nonexistent/spec.toml"),
            "cannot read --spec file '/nonexistent/spec.toml': No such file or directory");
}

// A directory read as an empty spec judged against the built-ins and passed.
TEST(CheckSpec, DirectoryIsRefused) {
  const std::string dir = ::testing::TempDir();
  EXPECT_EQ(file_error(dir), "cannot read --spec file '" + dir + "': Is a directory");
}

}  // namespace
