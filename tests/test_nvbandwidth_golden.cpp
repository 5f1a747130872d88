// nvbandwidth's text, line for line, against real nvbandwidth output:
// the whole nvbandwidth front end runs in-process, as `nvbandwidth ARGS`
// does, measuring with a FakeSource of as many GPUs as the real run had.
// Golden files:
//   - v0.10.0 (the default layout): tests/data/nvbandwidth-v0.10.0-public/,
//     real nvbandwidth v0.10.0 output from two public reports (8 x H100: three
//     one-case runs; 7 x H100: the first 8 cases of a whole run);
//   - v0.8 (--nvbandwidth-version 0.8): bench/results/2026-11-23-h200/
//     nvbandwidth-v0.8.txt, real nvbandwidth v0.8 of the whole catalogue on
//     one H200, recorded by this project.
// mask() hides exactly the numbers (keeping where each field ends, so column
// widths still count) and the version strings; every other character of
// every line is compared.
// Also here: what a -t name that is no case gives (text, JSON, exit code),
// and nvbandwidth's JSON read with the rules of DCGM's nvbandwidth plugin.
#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/cli.hpp"
#include "app/seed_names.hpp"
#include "base/error.hpp"
#include "fake_source.hpp"
#include "records/run_json.hpp"
#include "report/nvbandwidth.hpp"

namespace {

using nlohmann::json;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("missing " + path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string v010_file(const std::string& name) {
  return read_file(std::string(XB_TEST_DATA_DIR) + "/nvbandwidth-v0.10.0-public/" + name);
}

// One line with its numbers and version strings masked. A version line keeps
// its label ("Driver Version: <version>"). A number is a run of digits with
// at most one ".digits" that does not continue a word ("read1", "H100" stay).
// It becomes "#"; in a right-aligned field (a number that starts the line or
// follows two spaces) after as many spaces as it had characters less one, so
// the field keeps its end: "     55.37" and "   1521.22" both become
// "         #", while " 0" (a two-character index) becomes " #" and "0" "#".
std::string mask_line(const std::string& l) {
  for (const char* label : {"nvbandwidth Version: ", "Built from Git version: ", "Driver Version: "})
    if (l.rfind(label, 0) == 0) return std::string(label) + "<version>";
  std::string out;
  for (std::size_t i = 0; i < l.size();) {
    const auto word = [&](std::size_t at) {
      const unsigned char c = static_cast<unsigned char>(l[at]);
      return std::isalnum(c) || c == '_';
    };
    if (!std::isdigit(static_cast<unsigned char>(l[i])) || (i > 0 && word(i - 1))) {
      out += l[i++];
      continue;
    }
    std::size_t end = i;
    while (end < l.size() && std::isdigit(static_cast<unsigned char>(l[end]))) ++end;
    if (end + 1 < l.size() && l[end] == '.' && std::isdigit(static_cast<unsigned char>(l[end + 1]))) {
      for (++end; end < l.size() && std::isdigit(static_cast<unsigned char>(l[end]));) ++end;
    }
    const bool field = i == 0 || (i >= 2 && l[i - 1] == ' ' && l[i - 2] == ' ');
    out += field ? std::string(end - i - 1, ' ') + "#" : "#";
    i = end;
  }
  return out;
}

std::vector<std::string> masked(const std::string& text) {
  std::vector<std::string> out;
  for (const std::string& l : lines_of(text)) out.push_back(mask_line(l));
  return out;
}

// A FakeSource on a given machine description (GPU names, host name, ...).
class MachineFake : public FakeSource {
 public:
  explicit MachineFake(xb::System machine) : FakeSource(static_cast<int>(machine.gpus.size())), machine_(std::move(machine)) {}
  const xb::System& system() const override { return machine_; }

 private:
  xb::System machine_;
};

// A source whose every copy and chase fails, as a broken GPU would.
class FailingSource : public FakeSource {
 public:
  using FakeSource::FakeSource;
  xb::ScenarioSamples run(const xb::Scenario&, const xb::SampleMetric&) override {
    throw xb::Error(xb::ErrorKind::cuda, "cudaMemcpyAsync: an illegal memory access was encountered (fake)");
  }
  xb::LatencySamples latency(int, const xb::Location&, xb::ChaseKind) override {
    throw xb::Error(xb::ErrorKind::cuda, "chase kernel: an illegal memory access was encountered (fake)");
  }
};

struct NvbRun {
  int code = -1;
  std::string out, err;
  int sources_opened = 0;  // 0: no GPU was touched
};

// `nvbandwidth ARGS` in-process, as main() runs it under that name, with the
// source `open` gives (called only if the run gets as far as measuring).
NvbRun nvbandwidth(const std::vector<std::string>& args, const std::function<std::unique_ptr<xb::SampleSource>()>& open) {
  NvbRun r;
  xb::app::Context ctx;
  ctx.argv = {"nvbandwidth"};
  ctx.open_source = [&](const xb::MeasureOptions&) {
    ++r.sources_opened;
    return open();
  };
  std::ostringstream out, err;
  // The run prints on std::cout (its text) and std::cerr (waiver reasons).
  std::streambuf* old_out = std::cout.rdbuf(out.rdbuf());
  std::streambuf* old_err = std::cerr.rdbuf(err.rdbuf());
  r.code = xb::app::run_seed_front_end(xb::app::SeedTool::nvbandwidth, ctx, args, out, err);
  std::cout.rdbuf(old_out);
  std::cerr.rdbuf(old_err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

NvbRun nvbandwidth(const std::vector<std::string>& args, int gpus) {
  return nvbandwidth(args, [gpus] { return std::make_unique<FakeSource>(gpus); });
}

// The machine of the recorded v0.8 run: one H200 in a VM called "vm".
xb::System recorded_h200() {
  xb::System sys = fake_system(1);
  sys.hostname = "vm";
  sys.driver_version = "580.159.04";
  sys.gpus[0].name = "NVIDIA H200";
  sys.gpus[0].pci_bus_id = "0000:00:06.0";
  return sys;
}

// --- DCGM's nvbandwidth plugin, its parser's rules ---------------------------
// The plugin runs `nvbandwidth -j -v`, takes stdout from the first line that
// holds only "{" to the last that holds only "}", and rejects the whole
// document unless: it parses; "nvbandwidth" holds "CUDA Runtime Version" (an
// integer), "Driver Version" and "git_version" (strings) and "testcases" (an
// array); "error" and "warning", where present, are strings; every test case
// has a string "name" and a "status" that reads, in any case, as error,
// waived, not found or passed; "bandwidth_description" a string and
// sum/min/max/average numbers where present; a "bandwidth_matrix", where
// present, a non-empty array of non-empty rows of strings, each "N/A" or a
// number. Returns why it would reject `stdout_text`; "" when it accepts it.
// Stricter than the plugin: every Passed case must carry a non-empty matrix.
std::string dcgm_rejects(const std::string& stdout_text) {
  const std::vector<std::string> lines = lines_of(stdout_text);
  const auto first = std::find(lines.begin(), lines.end(), "{");
  const auto last = std::find(lines.rbegin(), lines.rend(), "}");
  if (first == lines.end() || last == lines.rend()) return "no line holding only '{' and one holding only '}'";
  std::string body;
  for (auto it = first; it != last.base(); ++it) body += *it + "\n";
  json doc;
  try {
    doc = json::parse(body, nullptr, true, false);  // strict: no comments
  } catch (const json::exception& e) {
    return std::string("not JSON: ") + e.what();
  }
  if (!doc.contains("nvbandwidth") || !doc["nvbandwidth"].is_object()) return "no \"nvbandwidth\" object";
  const json& nvb = doc["nvbandwidth"];
  if (!nvb.contains("CUDA Runtime Version") || !nvb["CUDA Runtime Version"].is_number_integer())
    return "\"CUDA Runtime Version\" missing or not an integer";
  for (const char* k : {"Driver Version", "git_version"})
    if (!nvb.contains(k) || !nvb[k].is_string()) return std::string("\"") + k + "\" missing or not a string";
  if (!nvb.contains("testcases") || !nvb["testcases"].is_array()) return "\"testcases\" missing or not an array";
  for (const char* k : {"error", "warning"})
    if (nvb.contains(k) && !nvb[k].is_string()) return std::string("\"") + k + "\" not a string";
  for (const json& t : nvb["testcases"]) {
    if (!t.contains("name") || !t["name"].is_string() || !t.contains("status") || !t["status"].is_string())
      return "a test case without a string name and status";
    std::string status = t["status"];
    for (char& c : status) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (status != "error" && status != "waived" && status != "not found" && status != "passed")
      return "status '" + status + "'";
    if (t.contains("bandwidth_description") && !t["bandwidth_description"].is_string()) return "description not a string";
    for (const char* k : {"sum", "min", "max", "average"})
      if (t.contains(k) && !t[k].is_number()) return std::string(k) + " not a number";
    if (status == "passed" && !t.contains("bandwidth_matrix")) return t["name"].get<std::string>() + ": passed without a matrix";
    if (!t.contains("bandwidth_matrix")) continue;
    const json& m = t["bandwidth_matrix"];
    if (!m.is_array() || m.empty()) return t["name"].get<std::string>() + ": empty matrix";
    for (const json& row : m) {
      if (!row.is_array() || row.empty()) return t["name"].get<std::string>() + ": empty row";
      for (const json& v : row) {
        if (!v.is_string()) return "a matrix value that is not a string";
        if (v == "N/A") continue;
        try {
          (void)std::stof(v.get<std::string>());
        } catch (const std::exception&) {
          return "matrix value '" + v.get<std::string>() + "'";
        }
      }
    }
  }
  return "";
}

std::vector<std::string> statuses(const std::string& stdout_text) {
  std::vector<std::string> out;
  const json doc = json::parse(stdout_text);
  for (const json& t : doc["nvbandwidth"]["testcases"]) out.push_back(t["status"]);
  return out;
}

}  // namespace

TEST(NvbandwidthGolden, MaskHidesNumbersAndVersionsOnly) {
  EXPECT_EQ(mask_line(" 0     55.37     55.36"), " #         #         #");
  EXPECT_EQ(mask_line(" 0   1521.22       N/A"), " #         #       N/A");
  EXPECT_EQ(mask_line("0     55.37"), "#         #");
  EXPECT_EQ(mask_line("           0         1"), "           #         #");
  EXPECT_EQ(mask_line("SUM device_to_device_bidirectional_memcpy_read_ce_read1 31945.78"),
            "SUM device_to_device_bidirectional_memcpy_read_ce_read1 #");
  EXPECT_EQ(mask_line("memcpy CE GPU(row) <-> GPU(column) Read1 bandwidth (GB/s)"),
            "memcpy CE GPU(row) <-> GPU(column) Read1 bandwidth (GB/s)");
  EXPECT_EQ(mask_line("CUDA Runtime Version: 13.2 (13020)"), "CUDA Runtime Version: # (#)");
  EXPECT_EQ(mask_line("CUDA Runtime Version: 13020"), "CUDA Runtime Version: #");
  EXPECT_EQ(mask_line("Driver Version: 595.71.05"), "Driver Version: <version>");
  EXPECT_EQ(mask_line("nvbandwidth Version: xferbench 0.1.0 (nvbandwidth v0.10.0 output)"),
            "nvbandwidth Version: <version>");
  EXPECT_EQ(mask_line("Device 0: NVIDIA H200 (00000000:00:06)"), "Device #: NVIDIA H200 (#:#:#)");
}

// Each one-case run of the 8 x H100 report, against the same command here.
TEST(NvbandwidthGolden, V010OneCaseRunsLineForLine) {
  const std::vector<std::pair<std::string, std::string>> runs = {
      {"pub_v010_h100x8_h2d.txt", "host_to_device_memcpy_ce"},
      {"pub_v010_h100x8_d2h.txt", "device_to_host_memcpy_ce"},
      {"pub_v010_h100x8_d2dread.txt", "device_to_device_memcpy_read_ce"},
  };
  for (const auto& [file, name] : runs) {
    const NvbRun r = nvbandwidth({"-t", name}, 8);
    ASSERT_EQ(r.code, 0) << name << ": " << r.err;
    const std::vector<std::string> want = masked(v010_file(file));
    ASSERT_GE(want.size(), 17u) << file;
    EXPECT_EQ(masked(r.out), want) << "ours:\n" << r.out;
  }
}

// The 7 x H100 write-up: a whole run, of which it shows the first 8 cases
// (indices 0-7) up to the last SUM of the eighth. Here those 8 and the
// GPU <-> GPU latency case (the fake source's concurrent all-to-one copies
// would exceed its own NVLink peak, so not the whole catalogue).
TEST(NvbandwidthGolden, V010EightCasesAsTheRealRun) {
  const NvbRun r = nvbandwidth({"-t", "0", "1", "2", "3", "4", "5", "6", "7", "device_to_device_latency_sm"}, 7);
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  const std::vector<std::string> want = masked(v010_file("pub_v010_h100x7_8cases.txt"));
  const std::vector<std::string> ours = masked(r.out);
  ASSERT_EQ(want.size(), 141u);
  ASSERT_GT(ours.size(), want.size());
  EXPECT_EQ(std::vector<std::string>(ours.begin(), ours.begin() + static_cast<long>(want.size())), want);
  // Then, as in the one-case runs: the total's CoV, a blank line, the next case.
  EXPECT_EQ(ours[141], "COEFFICIENT_OF_VARIATION device_to_device_bidirectional_memcpy_write_ce_total #");
  EXPECT_EQ(ours[142], "");
  EXPECT_EQ(ours[143].rfind("Running ", 0), 0u) << ours[143];
  // The GPU <-> GPU latency case has no CoV line; the run ends with the note.
  const auto at = std::find(ours.begin(), ours.end(), "SUM device_to_device_latency_sm #");
  ASSERT_NE(at, ours.end());
  EXPECT_EQ(at[1], "");
  EXPECT_EQ(ours[ours.size() - 2], "NOTE: The reported results may not reflect the full capabilities of the platform.");
  EXPECT_EQ(ours.back(), "Performance can vary with software drivers, hardware clocks, and system topology.");
  EXPECT_EQ(std::count(ours.begin(), ours.end(), ours.back()), 1);
}

// --nvbandwidth-version 0.8: the recorded real v0.8 run of the whole
// catalogue on one H200, every line, the waived cases included.
TEST(NvbandwidthGolden, V08WholeRunLineForLine) {
  const NvbRun r = nvbandwidth({"--nvbandwidth-version", "0.8"}, [] { return std::make_unique<MachineFake>(recorded_h200()); });
  ASSERT_EQ(r.code, 0) << r.err;
  const std::vector<std::string> want =
      masked(read_file(std::string(XB_SOURCE_DIR) + "/bench/results/2026-11-23-h200/nvbandwidth-v0.8.txt"));
  ASSERT_EQ(want.size(), 156u);
  EXPECT_EQ(masked(r.out), want) << "ours:\n" << r.out;
}

// Real numbers too: xferbench's own run of the whole catalogue recorded on
// the same H200 on the same day as the real v0.8 run
// (bench/results/2026-11-23-h200/xferbench_full1.json), printed in v0.8's
// layout, is the real text line for line, numbers and versions masked; in
// v0.10's it holds the same lines from the first case on, numbers included,
// but for the CoV lines and v0.8's last blank line.
TEST(NvbandwidthGolden, RecordedRunOfTheSameMachine) {
  const std::string dir = std::string(XB_SOURCE_DIR) + "/bench/results/2026-11-23-h200/";
  const xb::RunResult run = xb::records::decode_run(json::parse(read_file(dir + "xferbench_full1.json")), "xferbench_full1.json");
  auto text = [&](xb::report::NvbLayout layout) {
    xb::report::NvbOptions o;
    o.layout = layout;
    std::ostringstream os;
    xb::report::NvbTextPrinter printer(os, o);
    printer.header(run.system, run.settings.buffer_bytes);
    for (const auto& c : run.cases) printer.test_case(c);
    printer.footer();
    return os.str();
  };
  const std::string v08 = text(xb::report::NvbLayout::v0_8), v010 = text(xb::report::NvbLayout::v0_10);
  EXPECT_EQ(masked(v08), masked(read_file(dir + "nvbandwidth-v0.8.txt")));
  auto body = [](const std::string& t) {
    std::vector<std::string> out;
    for (const std::string& l : lines_of(t.substr(t.find("\nRunning ") + 1)))
      if (l.rfind("COEFFICIENT_OF_VARIATION ", 0) != 0) out.push_back(l);
    while (!out.empty() && out.back().empty()) out.pop_back();
    return out;
  };
  ASSERT_EQ(body(v08).size(), 145u);
  EXPECT_EQ(body(v010), body(v08));
}

// The comparison can fail: each layout differs from the other's golden, and
// one changed word in one line is caught.
TEST(NvbandwidthGolden, AnyNonNumericDifferenceFails) {
  const std::vector<std::string> want = masked(v010_file("pub_v010_h100x8_d2h.txt"));
  const NvbRun v08 = nvbandwidth({"--nvbandwidth-version", "0.8", "-t", "device_to_host_memcpy_ce"}, 8);
  ASSERT_EQ(v08.code, 0);
  EXPECT_NE(masked(v08.out), want);
  const NvbRun v010 = nvbandwidth({"-t", "device_to_host_memcpy_ce"}, 8);
  std::string arrow_flipped = v010.out;
  arrow_flipped.replace(arrow_flipped.find("CPU(row) <- GPU(column)"), 23, "CPU(row) -> GPU(column)");
  EXPECT_EQ(masked(v010.out), want);
  EXPECT_NE(masked(arrow_flipped), want);
  std::string one_space_less = v010.out;
  one_space_less.erase(one_space_less.find("\n 0 ") + 1, 1);  // a one-character row index
  EXPECT_NE(masked(one_space_less), want);
}

// An unknown name among known ones: nvbandwidth's line where it was listed,
// the others measured, one error line on stderr, exit 2 (bad input).
TEST(NvbandwidthGolden, UnknownCaseIsReportedInPlaceAndTheOthersMeasured) {
  const NvbRun r = nvbandwidth({"-t", "host_to_device_memcpy_ce", "nosuch_case", "99", "device_to_host_memcpy_ce"}, 2);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.sources_opened, 1);
  EXPECT_EQ(r.err, "nvbandwidth (xferbench): error: unknown test case 'nosuch_case', '99'; see nvbandwidth --list\n");
  const std::vector<std::string> lines = lines_of(r.out);
  const auto err1 = std::find(lines.begin(), lines.end(), "ERROR: Testcase nosuch_case not found!");
  ASSERT_NE(err1, lines.end()) << r.out;
  EXPECT_EQ(err1[-1], "");  // after the first case's block
  EXPECT_EQ(err1[-2].rfind("COEFFICIENT_OF_VARIATION host_to_device_memcpy_ce ", 0), 0u);
  EXPECT_EQ(err1[1], "ERROR: Testcase index 99 out of bound!");
  EXPECT_EQ(err1[2], "Running device_to_host_memcpy_ce.");
  EXPECT_EQ(lines.back(), "Performance can vary with software drivers, hardware clocks, and system topology.");
  // Listed last: after the last case, before the note.
  const NvbRun last = nvbandwidth({"-t", "0", "nosuch_case"}, 2);
  EXPECT_EQ(last.code, 2);
  const std::vector<std::string> l2 = lines_of(last.out);
  ASSERT_GE(l2.size(), 3u);
  EXPECT_EQ(l2[l2.size() - 3], "ERROR: Testcase nosuch_case not found!");

  const NvbRun j = nvbandwidth({"-j", "-t", "0", "nosuch_case", "1"}, 2);
  EXPECT_EQ(j.code, 2);
  EXPECT_EQ(dcgm_rejects(j.out), "");
  EXPECT_EQ(statuses(j.out), (std::vector<std::string>{"Passed", "Not Found", "Passed"}));
  const json nf = json::parse(j.out)["nvbandwidth"]["testcases"][1];
  EXPECT_EQ(nf["name"], "nosuch_case");
  EXPECT_EQ(nf["error"], "Testcase nosuch_case not found!");
  EXPECT_EQ(json::parse(j.out)["nvbandwidth"]["CUDA Runtime Version"], 13000);
}

// Nothing known named: nothing to measure, so no GPU is touched; the JSON
// still has every key DCGM requires (the machine not read: 0 and "unknown").
TEST(NvbandwidthGolden, OnlyUnknownCasesTouchNoGpu) {
  const NvbRun r = nvbandwidth({"-t", "nosuch_case", "99"}, 2);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.sources_opened, 0);
  EXPECT_EQ(r.out, "ERROR: Testcase nosuch_case not found!\nERROR: Testcase index 99 out of bound!\n");
  const NvbRun j = nvbandwidth({"-j", "-t", "nosuch_case"}, 2);
  EXPECT_EQ(j.code, 2);
  EXPECT_EQ(j.sources_opened, 0);
  EXPECT_EQ(dcgm_rejects(j.out), "");
  EXPECT_EQ(statuses(j.out), std::vector<std::string>{"Not Found"});
  const json nvb = json::parse(j.out)["nvbandwidth"];
  EXPECT_EQ(nvb["CUDA Runtime Version"], 0);
  EXPECT_EQ(nvb["Driver Version"], "unknown");
}

// DCGM's rules on every kind of -j document: a whole run, every case
// failing, no GPU, a bad option.
TEST(NvbandwidthGolden, JsonPassesDcgmRulesWhateverHappens) {
  const NvbRun whole = nvbandwidth({"-j", "-v"}, 2);
  EXPECT_EQ(whole.code, 0) << whole.err;
  EXPECT_EQ(dcgm_rejects(whole.out), "");
  EXPECT_EQ(statuses(whole.out).size(), 35u);

  const NvbRun failing = nvbandwidth({"-j", "-t", "0", "4", "32"}, [] { return std::make_unique<FailingSource>(2); });
  EXPECT_EQ(failing.code, 1) << failing.err;
  EXPECT_EQ(dcgm_rejects(failing.out), "");
  EXPECT_EQ(statuses(failing.out), (std::vector<std::string>{"Error", "Error", "Error"}));
  EXPECT_EQ(json::parse(failing.out)["nvbandwidth"]["Driver Version"], "580.00");

  const NvbRun no_gpu = nvbandwidth({"-j", "-t", "0"}, []() -> std::unique_ptr<xb::SampleSource> {
    throw xb::Error(xb::ErrorKind::no_device, "no CUDA GPU found (fake)");
  });
  EXPECT_EQ(no_gpu.code, 3);
  EXPECT_EQ(dcgm_rejects(no_gpu.out), "");
  EXPECT_EQ(json::parse(no_gpu.out)["nvbandwidth"]["error"], "no CUDA GPU found (fake)");

  const NvbRun bad = nvbandwidth({"-j", "-b", "0"}, 2);
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.sources_opened, 0);
  EXPECT_EQ(dcgm_rejects(bad.out), "");

  // The rules reject what DCGM rejects.
  json doc = json::parse(whole.out);
  doc["nvbandwidth"].erase("CUDA Runtime Version");
  EXPECT_NE(dcgm_rejects(doc.dump(3) + "\n"), "");
  doc = json::parse(whole.out);
  doc["nvbandwidth"]["CUDA Runtime Version"] = "13000";
  EXPECT_NE(dcgm_rejects(doc.dump(3) + "\n"), "");
  doc = json::parse(whole.out);
  doc["nvbandwidth"]["testcases"][0]["bandwidth_matrix"] = json::array();
  EXPECT_NE(dcgm_rejects(doc.dump(3) + "\n"), "");
  EXPECT_NE(dcgm_rejects("ERROR: something\n"), "");
}
