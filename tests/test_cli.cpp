#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "app/cli.hpp"
#include "app/run_options.hpp"
#include "base/error.hpp"
#include "base/printable.hpp"
#include "base/time_budget.hpp"
#include "cli_parse.hpp"

TEST(Cli, HelpAndVersionExitZero) {
  auto h = parse({"--help"});
  EXPECT_EQ(h.code, 0);
  EXPECT_NE(h.out.find("list"), std::string::npos);
  EXPECT_NE(h.out.find("Exit codes"), std::string::npos);
  auto rh = parse({"run", "--help"});
  EXPECT_EQ(rh.code, 0);
  EXPECT_NE(rh.out.find("--skip-verification"), std::string::npos);
  EXPECT_EQ(parse({"--version"}).code, 0);
}

TEST(Cli, NoArgumentsMeansTheDefaultSuite) {
  auto p = parse({});
  EXPECT_EQ(p.code, -1);
  EXPECT_TRUE(p.has_action);
}

TEST(Cli, OptionsWithoutACommandGoToRun) {
  auto p = parse({"-q", "-o", "quick.json", "-t", "0"});
  EXPECT_EQ(p.code, -1) << p.err;
  EXPECT_TRUE(p.has_action);
  EXPECT_EQ(parse({"-b", "0"}).code, 2);
  // A command named after a root option keeps it: '-q cases' lists cases.
  auto q = parse({"-q", "cases"});
  EXPECT_EQ(q.code, -1) << q.err;
}

TEST(Cli, ValidRunParsesWithoutTouchingAGpu) {
  auto p = parse({"run", "-t", "device_local_copy", "0", "-b", "64", "-i", "5", "-m", "-s", "-d"});
  EXPECT_EQ(p.code, -1) << p.err;
  EXPECT_TRUE(p.has_action);
}

TEST(Cli, UsageErrorsExitTwoWithTheBadValue) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> bad = {
      {{"run", "-t", "nosuch_case"}, "nosuch_case"},
      {{"run", "-t", "9999"}, "9999"},
      {{"run", "-p", "zzz"}, "zzz"},
      {{"run", "-b", "0"}, "0"},
      {{"run", "-b", "12x"}, "12x"},
      {{"run", "--buffer-size", "1.5G"}, "1.5G"},
      {{"run", "-i", "0"}, "-i/--samples"},
      {{"run", "--suite", "medium"}, "medium"},
      {{"run", "--sm-config", "1,2,3"}, "1,2,3"},
      {{"run", "--format", "xml"}, "xml"},
      {{"run", "-t", "0", "-p", "host"}, "not both"},
      {{"frobnicate"}, "frobnicate"},
  };
  for (const auto& [args, needle] : bad) {
    auto p = parse(args);
    EXPECT_EQ(p.code, 2) << args.back();
    EXPECT_NE(p.err.find(needle), std::string::npos) << p.err;
    EXPECT_EQ(p.err.find('\n'), p.err.rfind('\n') == std::string::npos ? std::string::npos : p.err.find('\n'));
  }
}

TEST(RunOptions, AdaptiveAndFixedSampling) {
  xb::app::RunOptions o;
  auto adaptive = xb::app::build_request(o, {});
  EXPECT_EQ(adaptive.measure.min_samples, 3);
  EXPECT_GT(adaptive.measure.max_samples, 3);
  EXPECT_EQ(adaptive.buffer_bytes, 512ull << 20);
  EXPECT_EQ(adaptive.cases.size(), 9u);
  o.samples = 7;
  o.buffer_mib = "64";
  auto fixed = xb::app::build_request(o, {});
  EXPECT_EQ(fixed.measure.min_samples, 7);
  EXPECT_EQ(fixed.measure.max_samples, 7);
  EXPECT_EQ(fixed.buffer_bytes, 64ull << 20);
}

TEST(RunOptions, SmConfig) {
  xb::app::RunOptions o;
  o.sm_config = "2,256,8,streaming";
  auto r = xb::app::build_request(o, {});
  EXPECT_EQ(r.measure.sm.blocks_per_sm, 2);
  EXPECT_EQ(r.measure.sm.threads, 256);
  EXPECT_EQ(r.measure.sm.unroll, 8);
  EXPECT_TRUE(r.measure.sm.streaming);
}

TEST(RunOptions, SmConfigTakesNvbandwidthsDepthAndRefusesOthers) {
  xb::app::RunOptions o;
  o.sm_config = "1,512,12";  // nvbandwidth's striding kernel: one 512-thread block per SM, 12 vectors deep
  auto r = xb::app::build_request(o, {});
  EXPECT_EQ(r.measure.sm.blocks_per_sm, 1);
  EXPECT_EQ(r.measure.sm.threads, 512);
  EXPECT_EQ(r.measure.sm.unroll, 12);
  for (const char* bad : {"1,512,3", "1,512,6", "1,512,32"}) {
    const Parsed p = parse({"run", "--sm-config", bad});
    EXPECT_EQ(p.code, 2) << bad;
    EXPECT_NE(p.err.find(bad), std::string::npos) << p.err;
    EXPECT_NE(p.err.find("8, 12 or 16"), std::string::npos) << p.err;
  }
}

TEST(RunOptions, SmLaunchPerCopy) {
  xb::app::RunOptions o;
  EXPECT_TRUE(xb::app::build_request(o, {}).measure.sm_repeat_in_kernel);
  o.sm_launch_per_copy = true;
  EXPECT_FALSE(xb::app::build_request(o, {}).measure.sm_repeat_in_kernel);
  const Parsed p = parse({"run", "-t", "device_to_device_memcpy_read_sm", "--sm-launch-per-copy"});
  EXPECT_EQ(p.code, -1) << p.err;
  EXPECT_TRUE(p.has_action);
}

// "" read as "not given" and fell back to the default without a word
// (check --spec '' judged against the built-ins and passed).
TEST(Cli, EmptyValuesAreErrorsNamingTheOption) {
  const std::vector<std::vector<std::string>> bad = {
      {"check", "--spec", ""},          {"check", "--baseline", ""},     {"check", "--judge", ""},
      {"check", "--junit", ""},         {"check", "--buffer-size", ""},  {"check", "--time-limit", ""},
      {"run", "--suite", ""},           {"run", "--host-mem", ""},       {"run", "--seed", ""},
      {"run", "--sm-config", ""},       {"run", "--max-memory", ""},     {"run", "--time-limit", ""},
      {"run", "--resume", ""},          {"run", "--topology", ""},       {"run", "--htod", "0", "--streams", ""},
      {"sweep", "--step", ""},          {"sweep", "--buffer-size", ""},  {"sweep", "--streams", ""},
      {"sweep", "--resume", ""},        {"sweep", "--copies", ""},       {"cuts", "--streams", ""},
      {"cuts", "--resume", ""},         {"compare", "a", "b", "--tolerance", ""},
  };
  for (const auto& args : bad) {
    const auto p = parse(args);
    const std::string& flag = args[args.size() - 2];
    EXPECT_EQ(p.code, 2) << args[0] << " " << flag << ": " << p.err;
    EXPECT_NE(p.err.find("invalid " + flag + " ''"), std::string::npos) << p.err;
  }
  // Every spelling is named.
  EXPECT_NE(parse({"run", "-t", "0", "-o", ""}).err.find("-o/--output ''"), std::string::npos);
}

TEST(Cli, ValuesThatMeanNothingAreRefusedBeforeAnyGpu) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> bad = {
      {{"run", "--copies", "0"}, "invalid --copies '0'"},
      {{"sweep", "-t", "0", "--min", "1M", "--max", "2M", "--copies", "0"}, "invalid --copies '0'"},
      {{"run", "--sample-pairs", "2", "--seed", "-1"}, "invalid --seed '-1'"},
      {{"run", "--pair", "0,0"}, "invalid --pair '0,0': gpu 0 twice"},
  };
  for (const auto& [args, needle] : bad) {
    const auto p = parse(args);
    EXPECT_EQ(p.code, 2) << p.err;
    EXPECT_NE(p.err.find(needle), std::string::npos) << p.err;
  }
}

// "1" and 309 zeros in any duration option aborted (SIGABRT):
// std::stod threw out_of_range and nothing around the option parser
// caught it. It is a usage error naming the option, as any bad duration.
TEST(Cli, ADurationTooLargeForADoubleIsAUsageError) {
  const std::string huge = "1" + std::string(309, '0');
  const std::vector<std::vector<std::string>> lines = {
      {"run", "--time-limit", huge},          {"sweep", "-t", "0", "--min", "1K", "--max", "2K", "--time-limit", huge},
      {"cuts", "--htod", "0", "--time-limit", huge}, {"check", "--time-limit", huge},
      {"soak", "--duration", huge},           {"soak", "--duration", huge + "h30m"},
      {"check", "--soak", huge},              {"check", "--soak", "2h" + huge + "m"},
  };
  for (const auto& args : lines) {
    const Parsed p = parse(args);
    EXPECT_EQ(p.code, 2) << args[0] << " " << args[args.size() - 2] << ": " << p.err;
    EXPECT_NE(p.err.find("longer than a year"), std::string::npos) << p.err;
    EXPECT_NE(p.err.find(args[args.size() - 2]), std::string::npos) << p.err;
  }
  EXPECT_THROW(xb::parse_duration_s(huge), xb::Error);
  EXPECT_DOUBLE_EQ(xb::parse_duration_s("1.5h"), 5400);
}

// An error echoed a 120 kB argument in full, and control
// characters raw (a value could clear the terminal or forge a line).
TEST(Cli, ErrorsCutAHugeValueAndEscapeControlCharacters) {
  const Parsed big = parse({"run", "--time-limit", std::string(120000, '7') + "x"});
  EXPECT_EQ(big.code, 2);
  EXPECT_LT(big.err.size(), 1000u) << big.err.size();
  EXPECT_NE(big.err.find("bytes left out ...]"), std::string::npos) << big.err.substr(0, 300);
  EXPECT_NE(big.err.find("7x': unknown unit"), std::string::npos) << big.err;  // the reason at the end stays
  const Parsed ctl = parse({"run", "--time-limit", "5\x1b[2J\nxferbench: forged"});
  EXPECT_EQ(ctl.code, 2);
  EXPECT_NE(ctl.err.find("'5\\x1b[2J\\nxferbench: forged'"), std::string::npos) << ctl.err;
  EXPECT_EQ(ctl.err.find('\x1b'), std::string::npos);
  EXPECT_EQ(std::count(ctl.err.begin(), ctl.err.end(), '\n'), 1);
  EXPECT_EQ(xb::printable("gpu\xc2\x85\xff\xe2\x82\xac"), "gpu\\u0085\\xff\xe2\x82\xac");  // NEL escaped, euro kept
}

// CLI11 read "1e400" as infinity, which "at least 0" let through.
TEST(Cli, NumbersADoubleCannotHoldAreRefused) {
  for (const std::string v : {"1e400", "1e309", "inf", "nan"}) {
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"compare", "a.json", "b.json", "--tolerance", v}, {"compare", "a.json", "b.json", "--noise-k", v},
             {"run", "--budget", v}, {"run", "--sample-ms", v}, {"run", "--target-error", v},
             {"run", "--gate-timeout", v}, {"run", "--drift-tolerance", v}, {"check", "--tolerance", v},
             {"soak", "--duration", "1h", "--budget", v}, {"sweep", "-t", "0", "--min", "1K", "--max", "2K", "--factor", v}}) {
      const Parsed p = parse(args);
      EXPECT_EQ(p.code, 2) << args[args.size() - 2] << " " << v << ": " << p.err;
      EXPECT_NE(p.err.find(args[args.size() - 2] + " '" + v + "': not a finite number"), std::string::npos) << p.err;
    }
  }
  EXPECT_EQ(parse({"compare", "a.json", "b.json", "--tolerance", "1e-400"}).code, -1);  // an underflow is ~0, fine
}

// An --sms list was checked only against the GPUs' SM counts,
// after GPU work had started; its syntax is checked while parsing.
TEST(Cli, SweepSmsSyntaxIsCheckedBeforeAnyGpu) {
  for (const std::string v : {"1,,2", "al", "0", "1,lal", "1,a", "99999999999"}) {
    const Parsed p = parse({"sweep", "-t", "device_to_device_memcpy_read_sm", "--sms", v});
    EXPECT_EQ(p.code, 2) << v << ": " << p.err;
    EXPECT_NE(p.err.find("invalid --sms '" + v + "'"), std::string::npos) << p.err;
  }
  EXPECT_EQ(parse({"sweep", "-t", "device_to_device_memcpy_read_sm", "--sms", "1,8,all"}).code, -1);
}
