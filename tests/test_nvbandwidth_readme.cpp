// Every command line that nvbandwidth's README (tests/data/seeds/) shows,
// and every option its usage block lists, parsed in-process under both
// names: as nvbandwidth (the program-name front-end) and as xferbench
// ('xferbench ARGS' = 'xferbench run ARGS'). Each must select the intended
// cases, buffer size and options. A line the table below does not know
// fails the test, so a README change cannot go unchecked.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "app/nvbandwidth_cli.hpp"
#include "app/run_options.hpp"
#include "cases/cases.hpp"
#include "base/error.hpp"
#include "cli_parse.hpp"

namespace {

std::string readme() {
  std::ifstream f(std::string(XB_TEST_DATA_DIR) + "/seeds/nvbandwidth.README.txt");
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::vector<std::string> split(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// "./nvbandwidth ARGS" lines of the README's code blocks.
std::vector<std::vector<std::string>> example_lines(const std::string& text) {
  std::vector<std::vector<std::string>> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("./nvbandwidth", 0) != 0) continue;
    auto words = split(line);
    words.erase(words.begin());
    out.push_back(words);
  }
  return out;
}

// The usage block's option lines ("  -t [ --testcase ] arg ..."): every
// spelling, with a value where the option takes one.
std::vector<std::vector<std::string>> usage_lines(const std::string& text) {
  static const std::regex opt(R"(^  (-\w) \[ (--\w+) \](\s+arg)?|^  (--\w+)(\s+arg)?)");
  std::map<std::string, std::string> value = {{"--bufferSize", "64"}, {"--loopCount", "16"}, {"--testcase", "0"}};
  std::vector<std::vector<std::string>> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, opt)) continue;
    const std::string lng = m[2].matched ? m[2].str() : m[4].str();
    const bool arg = m[3].matched || m[5].matched;
    for (const std::string& spelling : {m[1].str(), lng}) {
      if (spelling.empty()) continue;
      std::vector<std::string> args = {spelling};
      if (arg) args.push_back(value.at(lng));
      out.push_back(args);
    }
  }
  return out;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& w : v) s += (s.empty() ? "" : " ") + w;
  return s;
}

struct Expect {
  int code = -1;              // parse result: -1 ready to run, 0 help/list printed
  std::vector<int> cases;     // case indices, in order; empty: not checked
  std::uint64_t buffer = 512ull << 20;
  int copies = 0;             // 0: sized per sample
  bool verbose = false, list = false, affinity = true;
};

Expect expect(int code, std::vector<int> cases = {}) {
  Expect e;
  e.code = code;
  e.cases = std::move(cases);
  return e;
}

// What each README line means, under the nvbandwidth name.
std::map<std::string, Expect> expectations() {
  std::vector<int> all;
  for (int i = 0; i < 35; ++i) all.push_back(i);
  std::map<std::string, Expect> e;
  e["-h"] = e["--help"] = expect(0);
  e[""] = expect(-1, all);
  e["-t device_to_device_memcpy_read_ce"] = expect(-1, {4});
  e["-t 0"] = e["--testcase 0"] = expect(-1, {0});
  e["--bufferSize 64"] = expect(-1, all);
  e["--bufferSize 64"].buffer = 64ull << 20;
  e["--loopCount 16"] = expect(-1, all);
  e["--loopCount 16"].copies = 16;
  e["-l"] = expect(-1);
  e["-l"].list = true;
  e["--list"] = e["-l"];
  e["-v"] = expect(-1, all);
  e["-v"].verbose = true;
  e["--verbose"] = e["-v"];
  e["-d"] = expect(-1, all);
  e["-d"].affinity = false;
  e["--disableAffinity"] = e["-d"];
  return e;
}

std::vector<int> indices(const std::vector<const xb::CaseDef*>& cases) {
  std::vector<int> out;
  for (const auto* c : cases) out.push_back(c->index);
  return out;
}

void check_as_nvbandwidth(const std::vector<std::string>& args, const Expect& want) {
  xb::app::NvbInvocation inv;
  std::ostringstream out, err;
  const int code = xb::app::parse_nvbandwidth(args, inv, out, err);
  ASSERT_EQ(code, want.code) << err.str();
  EXPECT_EQ(err.str(), "");
  if (code == 0) {
    EXPECT_NE(out.str().find("--bufferSize"), std::string::npos);  // the help names nvbandwidth's options
    return;
  }
  EXPECT_EQ(inv.list, want.list);
  if (want.list) {
    EXPECT_EQ(inv.listed.size(), 35u);
    return;
  }
  EXPECT_EQ(indices(inv.request.cases), want.cases);
  EXPECT_EQ(inv.request.buffer_bytes, want.buffer);
  EXPECT_EQ(inv.request.measure.copies_per_sample, want.copies);
  EXPECT_EQ(inv.print.verbose, want.verbose);
  EXPECT_EQ(inv.request.measure.numa_affinity, want.affinity);
  EXPECT_EQ(inv.request.measure.statistic, xb::Statistic::median);
  EXPECT_TRUE(inv.request.measure.verify);
  // nvbandwidth's statistic: the median of at least 3 samples.
  EXPECT_EQ(inv.request.measure.min_samples, 3);
}

// Under the xferbench name the same words are 'xferbench run' options.
void check_as_xferbench(const std::vector<std::string>& args, const Expect& want) {
  const Parsed whole = parse(args);
  EXPECT_EQ(whole.code, want.code) << whole.err;
  if (want.code == 0 || want.list) return;
  CLI::App app;
  xb::app::RunOptions o;
  xb::app::add_run_options(app, o);
  std::vector<std::string> rev(args.rbegin(), args.rend());
  app.parse(rev);
  const xb::RunRequest req = xb::app::build_request(o, {});
  // With no case named, xferbench runs its quick suite, not the catalogue.
  if (!o.testcases.empty()) {
    EXPECT_EQ(indices(req.cases), want.cases);
  }
  EXPECT_EQ(req.buffer_bytes, want.buffer);
  EXPECT_EQ(req.measure.copies_per_sample, want.copies);
  EXPECT_EQ(o.verbose, want.verbose);
  EXPECT_EQ(req.measure.numa_affinity, want.affinity);
}

}  // namespace

TEST(NvbandwidthReadme, EveryCommandLineAndOptionMapsOntoTheIntendedRun) {
  const std::string text = readme();
  ASSERT_FALSE(text.empty()) << "tests/data/seeds/nvbandwidth.README.txt not found";
  auto lines = example_lines(text);
  EXPECT_EQ(lines.size(), 3u);  // -h, no arguments, -t NAME
  const auto usage = usage_lines(text);
  EXPECT_EQ(usage.size(), 12u);  // -h --help --bufferSize --loopCount -l --list -t --testcase -v --verbose -d --disableAffinity
  lines.insert(lines.end(), usage.begin(), usage.end());
  const auto want = expectations();
  for (const auto& args : lines) {
    SCOPED_TRACE("nvbandwidth " + joined(args));
    const auto it = want.find(joined(args));
    ASSERT_NE(it, want.end()) << "README line without an expectation in this test";
    check_as_nvbandwidth(args, it->second);
    check_as_xferbench(args, it->second);
  }
}

TEST(NvbandwidthReadme, SeveralCasesAfterOneFlagAndNvbandwidthSpellings) {
  xb::app::NvbInvocation inv;
  std::ostringstream out, err;
  ASSERT_EQ(xb::app::parse_nvbandwidth({"-t", "5", "device_local_copy", "0", "-b", "64", "-i", "5", "-m", "-s"}, inv,
                                       out, err), -1) << err.str();
  EXPECT_EQ(indices(inv.request.cases), (std::vector<int>{5, 34, 0}));
  EXPECT_EQ(inv.request.measure.min_samples, 5);
  xb::app::NvbInvocation twice;
  ASSERT_EQ(xb::app::parse_nvbandwidth({"-t", "0", "-t", "1"}, twice, out, err), -1) << err.str();
  EXPECT_EQ(indices(twice.request.cases), (std::vector<int>{0, 1}));  // documented: both, where Boost refuses
  EXPECT_EQ(xb::app::parse_nvbandwidth({"--buffer", "64"}, twice, out, err), 2);  // documented: no abbreviations
  EXPECT_EQ(inv.request.measure.max_samples, 5);
  EXPECT_EQ(inv.request.measure.statistic, xb::Statistic::mean);
  EXPECT_FALSE(inv.request.measure.verify);
  // The same line under xferbench, with nvbandwidth's long spellings.
  CLI::App app;
  xb::app::RunOptions o;
  xb::app::add_run_options(app, o);
  std::vector<std::string> args = {"run_ignored", "--testcase", "5", "device_local_copy", "0", "--bufferSize", "64",
                                   "--testSamples", "5", "--useMean", "--skipVerification", "--disableAffinity",
                                   "--loopCount", "7", "-v"};
  args.erase(args.begin());
  std::vector<std::string> rev(args.rbegin(), args.rend());
  app.parse(rev);
  const xb::RunRequest req = xb::app::build_request(o, {});
  EXPECT_EQ(indices(req.cases), (std::vector<int>{5, 34, 0}));
  EXPECT_EQ(req.buffer_bytes, 64ull << 20);
  EXPECT_EQ(req.measure.min_samples, 5);
  EXPECT_EQ(req.measure.statistic, xb::Statistic::mean);
  EXPECT_FALSE(req.measure.verify);
  EXPECT_FALSE(req.measure.numa_affinity);
  EXPECT_EQ(req.measure.copies_per_sample, 7);
  EXPECT_TRUE(o.verbose);
}
