// --format prometheus (docs/prometheus.md): label escaping, what stdout and
// -o get, the formats' refusals, and the four kinds of file (run, check,
// a fleet of runs, a fleet of checks) made without a GPU from FakeSource
// measurements and an edited recorded run. PrometheusFiles.* write them to
// $XFERBENCH_PROMETHEUS_DIR when it is set (ctest's prometheus_files), where
// tests/prometheus_check.py checks each with promtool and prometheus_client.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app/cli.hpp"
#include "comm/inproc_comm.hpp"
#include "fake_source.hpp"
#include "in_process.hpp"
#include "records/run_json.hpp"
#include "report/formats.hpp"
#include "report/prometheus_series.hpp"
#include "report/reporter.hpp"

namespace {

using json = nlohmann::json;

// FakeSource's GPUs with UUIDs, as a real GPU's system has them.
class UuidSource : public FakeSource {
 public:
  explicit UuidSource(double slowdown = 1, int gpus = 2)
      : FakeSource(gpus), sys_(FakeSource::system()), slowdown_(slowdown) {
    for (auto& g : sys_.gpus) g.uuid = fmt::format("GPU-00000000-0000-0000-0000-00000000000{}", g.index);
  }
  const xb::System& system() const override { return sys_; }
  double limited(double gbps) const override { return FakeSource::limited(gbps) * slowdown_; }

 private:
  xb::System sys_;
  double slowdown_;
};

InProcessRun xferbench(std::vector<std::string> args) {
  return run_in_process(std::move(args), [](const xb::MeasureOptions&) { return std::make_unique<UuidSource>(); });
}

std::string dir() {
  const char* env = std::getenv("XFERBENCH_PROMETHEUS_DIR");
  const std::string d = env != nullptr && *env != '\0' ? std::string(env) : ::testing::TempDir() + "xb_prometheus";
  mkdir(d.c_str(), 0755);
  return d + "/";
}

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// What node_exporter's textfile collector and promtool need of every file:
// each metric's HELP and TYPE once, before its samples, the same HELP for a
// name everywhere, and samples without a timestamp (name{labels} value).
void expect_exposition(const std::string& text) {
  static std::map<std::string, std::string> helps;  // over every file of the run
  static const std::regex sample(R"re(^(xferbench_[a-z_]+)(\{([a-zA-Z_]+="([^"\\]|\\.)*",?)*\})? [-+0-9.e]+$)re");
  std::set<std::string> seen, series;
  std::string current;
  std::istringstream lines(text);
  std::string line;
  ASSERT_FALSE(text.empty());
  while (std::getline(lines, line)) {
    std::smatch m;
    if (line.rfind("# HELP ", 0) == 0) {
      const auto space = line.find(' ', 7);
      current = line.substr(7, space - 7);
      EXPECT_TRUE(seen.insert(current).second) << "two HELP lines for " << current;
      const auto [it, fresh] = helps.emplace(current, line.substr(space + 1));
      EXPECT_EQ(it->second, line.substr(space + 1)) << current << " has two HELP texts";
    } else if (line.rfind("# TYPE ", 0) == 0) {
      EXPECT_EQ(line, "# TYPE " + current + " gauge");
    } else if (std::regex_match(line, m, sample)) {
      EXPECT_EQ(m[1].str(), current) << line;
      EXPECT_TRUE(series.insert(line.substr(0, line.rfind(' '))).second) << "a series twice: " << line;
    } else {
      ADD_FAILURE() << "not a sample without a timestamp: " << line;
    }
  }
}

// The values label `name` takes in `text`.
std::set<std::string> label_values(const std::string& text, const std::string& name) {
  std::set<std::string> out;
  const std::regex value(name + "=\"([^\"]*)\"");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), value); it != std::sregex_iterator(); ++it)
    out.insert((*it)[1].str());
  return out;
}

long count_of(const std::string& text, const std::string& needle) {
  long n = 0;
  for (auto pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) ++n;
  return n;
}

long helps(const std::string& text) { return count_of("\n" + text, "\n# HELP "); }

bool has_line(const std::string& text, const std::string& line) {
  return ("\n" + text).find("\n" + line + "\n") != std::string::npos;
}

const std::vector<std::string> kRunCases = {
    "host_to_device_memcpy_ce", "device_to_host_memcpy_sm", "device_to_device_memcpy_read_ce",
    "device_to_device_bidirectional_memcpy_write_ce", "host_device_latency_sm", "device_to_device_latency_sm",
    "device_local_copy"};

std::vector<std::string> run_args(std::vector<std::string> extra) {
  std::vector<std::string> a = {"run", "-b", "64", "-t"};
  a.insert(a.end(), kRunCases.begin(), kRunCases.end());
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

TEST(Prometheus, EscapesLabelValues) {
  EXPECT_EQ(xb::report::prometheus_escape("plain host-1.example"), "plain host-1.example");
  EXPECT_EQ(xb::report::prometheus_escape("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
}

TEST(Prometheus, WithoutAFileTheMetricsGoToStdout) {
  const InProcessRun r = xferbench(run_args({"--format", "prometheus"}));
  ASSERT_EQ(r.code, 0) << r.err;
  expect_exposition(r.out);
  EXPECT_TRUE(has_line(r.out, "xferbench_exit_code{Hostname=\"testhost\"} 0")) << r.out;
  EXPECT_TRUE(has_line(r.out, "xferbench_up{Hostname=\"testhost\"} 1")) << r.out;
}

TEST(Prometheus, HelpListsTheFormatForRunAndCheck) {
  for (const char* command : {"run", "check"}) {
    const InProcessRun r = xferbench({command, "--help"});
    EXPECT_EQ(r.code, 0);
    EXPECT_TRUE(std::regex_search(r.out, std::regex("--format TEXT:\\{[a-z,-]*prometheus[a-z,-]*\\}"))) << r.out;
    EXPECT_NE(r.out.find("docs/prometheus.md"), std::string::npos) << r.out;
  }
}

TEST(Prometheus, FormatsRefusePlansScenariosAndASummaryOnStdout) {
  const auto refused = [](std::vector<std::string> args, const std::string& message) {
    const InProcessRun r = xferbench(std::move(args));
    EXPECT_EQ(r.code, 2) << r.out;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
  };
  refused({"run", "--dry-run", "--format", "prometheus"}, "--dry-run writes its plan as text or JSON, not --format prometheus");
  refused({"run", "--dry-run", "--format", "prometheus", "-o", dir() + "never.prom"}, "not --format prometheus");
  refused({"run", "--do=0:HtoD:64M", "--format", "prometheus"}, "--format prometheus applies to named cases");
  refused({"check", "--summary", "--format", "prometheus"}, "give -o FILE for the metrics");
  refused({"sweep", "--do", "0:HtoD", "--min", "4K", "--max", "64K", "--format", "prometheus"}, "prometheus");
}

// Every case of the full suite, as recorded on 2 and 4 H200s, in full
// detail: no series twice, and a link type that is a link's type ("NVLink
// x18"), also for the cells of all of a GPU's peers at once (recorded as
// "3 peers").
TEST(Prometheus, RecordedFullSuitesGiveEachCellItsOwnSeries) {
  for (const char* rel : {"2026-11-21-h200x2-full-run1.json", "2026-11-22-h200x4/full.json"}) {
    const std::string path = std::string(XFERBENCH_SOURCE_DIR) + "/bench/results/" + rel;
    const xb::RunResult run = xb::records::decode_run(json::parse(read_text(path)), path);
    std::ostringstream out;
    xb::report::ReportOptions cells;
    cells.metrics_detail = "cells";
    xb::report::make_reporter("prometheus", out, std::cerr, cells)->run(run);
    expect_exposition(out.str());
    EXPECT_TRUE(std::regex_search(out.str(), std::regex("case=\"all_to_one_write_ce\",link=\"gpu1<->peers\","
                                                         "link_type=\"NVLink x18\",peer=\"peers\"\\} ")))
        << rel;
    EXPECT_FALSE(std::regex_search(out.str(), std::regex("link_type=\"[0-9]+ peers\""))) << rel;
    const std::set<std::string> types = label_values(out.str(), "link_type");
    EXPECT_EQ(types, (std::set<std::string>{"PCIe Gen5 x16", "NVLink x18", "device memory"})) << rel;
  }
}

// The default detail: per node, per link and per GPU and case. An 8-GPU
// node's check stays under 600 series (docs/prometheus.md, "How many
// series"), where every cell (--metrics-detail cells) is over 2000.
TEST(Prometheus, AnEightGpuCheckStaysUnder600SeriesByDefault) {
  const auto eight = [](const xb::MeasureOptions&) { return std::make_unique<UuidSource>(1, 8); };
  const std::string file = dir() + "check_8gpu.prom", full = dir() + "check_8gpu_cells.prom";
  const InProcessRun r = run_in_process({"check", "--budget", "0.01", "--format", "prometheus", "-o", file}, eight);
  ASSERT_LE(r.code, 1) << r.err;
  const InProcessRun c = run_in_process(
      {"check", "--budget", "0.01", "--format", "prometheus", "--metrics-detail", "cells", "-o", full}, eight);
  ASSERT_EQ(c.code, r.code) << c.err;
  const std::string text = read_text(file), cells = read_text(full);
  expect_exposition(text);
  expect_exposition(cells);
  const auto series = [](const std::string& t) { return std::count(t.begin(), t.end(), '\n') - 2 * helps(t); };
  EXPECT_LT(series(text), 600) << text;
  EXPECT_GT(series(cells), 2000);
  std::cout << "8 GPUs: " << series(text) << " series by default, " << series(cells) << " with every cell\n";
  // 8 host links, 28 GPU pairs, 8 GPUs' peers, 8 memories: a verdict each.
  EXPECT_EQ(count_of(text, "xferbench_check_link_pass{"), 52) << text;
  EXPECT_EQ(label_values(text, "gpu").size(), 8u);
}

// A run: the metrics to -o, the text report on stdout.
TEST(PrometheusFiles, Run) {
  const std::string file = dir() + "run.prom";
  const InProcessRun r = xferbench(run_args({"--format", "prometheus", "--metrics-detail", "cells", "-o", file}));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("host_to_device_memcpy_ce"), std::string::npos);
  EXPECT_EQ(r.out.find("# HELP"), std::string::npos) << "stdout is text when the metrics go to a file";
  const std::string text = read_text(file);
  expect_exposition(text);
  const std::string gpu0 = "Hostname=\"testhost\",gpu=\"0\",UUID=\"GPU-00000000-0000-0000-0000-000000000000\"";
  EXPECT_TRUE(has_line(text, "xferbench_link_peak_bytes_per_second{" + gpu0 +
                                 ",case=\"host_to_device_memcpy_ce\",link=\"host<->gpu0\",link_type=\"PCIe Gen5 "
                                 "x16\",peer=\"host\"} 63015384615.38462"))
      << text;
  EXPECT_TRUE(has_line(text, "xferbench_cell_valid{" + gpu0 +
                                 ",case=\"device_to_device_bidirectional_memcpy_write_ce\",matrix=\"total\",link="
                                 "\"gpu0<->gpu1\",link_type=\"NVLink x18\",peer=\"gpu1\"} 1"))
      << text;
  EXPECT_NE(text.find("xferbench_latency_seconds{" + gpu0 + ",case=\"host_device_latency_sm\""), std::string::npos);
  EXPECT_EQ(text.find("xferbench_check_"), std::string::npos);
  // The summary comes with every cell: each GPU's worst cell of a case.
  EXPECT_TRUE(has_line(text, "xferbench_gpu_unusable_cells{" + gpu0 + "} 0")) << text;
  EXPECT_NE(text.find("xferbench_gpu_bandwidth_bytes_per_second{" + gpu0 + ",case=\"host_to_device_memcpy_ce\"} "),
            std::string::npos);
  // Without --metrics-detail cells, the summary alone.
  const std::string summary = dir() + "run_summary.prom";
  ASSERT_EQ(xferbench(run_args({"--format", "prometheus", "-o", summary})).code, 0);
  const std::string brief = read_text(summary);
  expect_exposition(brief);
  EXPECT_EQ(brief.find("xferbench_bandwidth_bytes_per_second"), std::string::npos) << brief;
  EXPECT_NE(brief.find("xferbench_gpu_latency_seconds{" + gpu0 + ",case=\"host_device_latency_sm\"} "),
            std::string::npos)
      << brief;
}

// The quick suite's run, recorded, then edited: a 55 GB/s cell, a slow cell
// (its host link FAILs), an invalid cell, UUIDs and a host name with a quote
// and a backslash.
std::string recorded_run(const std::string& path) {
  EXPECT_EQ(xferbench({"run", "--suite", "quick", "-o", path, "--format", "csv"}).code, 0);
  json doc = json::parse(read_text(path));
  doc["environment"]["hostname"] = "rack\"7\"\\node";
  for (json& c : doc["cases"]) {
    for (json& cell : c["matrices"][0]["cells"]) {
      if (c["name"] == "host_to_device_memcpy_ce") cell["value_gbps"] = cell["col"] == 0 ? 55.0 : 35.0;
      if (c["name"] == "device_to_device_memcpy_read_ce" && cell["row"] == 1) {
        cell["invalid"] = true;
        cell["invalid_reason"] = "above the link's theoretical peak";
      }
    }
  }
  std::ofstream(path) << doc.dump(2) << "\n";
  return path;
}

TEST(PrometheusFiles, Check) {
  const std::string run = recorded_run(dir() + "check_input.json"), file = dir() + "check.prom";
  const InProcessRun r =
      xferbench({"check", "--judge", run, "--format", "prometheus", "--metrics-detail", "cells", "-o", file});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.out.find("xferbench check: FAIL"), std::string::npos) << r.out;
  const std::string text = read_text(file);
  expect_exposition(text);
  const std::string host = "Hostname=\"rack\\\"7\\\"\\\\node\"";
  EXPECT_TRUE(has_line(text, "xferbench_check_pass{" + host + "} 0")) << text;
  EXPECT_TRUE(has_line(text, "xferbench_exit_code{" + host + "} 1")) << text;
  EXPECT_TRUE(has_line(text, "xferbench_check_link_pass{" + host +
                                 ",gpu=\"1\",UUID=\"GPU-00000000-0000-0000-0000-000000000001\",link=\"host<->gpu1\","
                                 "link_type=\"PCIe Gen5 x16\",peer=\"host\"} 0"))
      << text;
  // --summary with -o: the summary line on stdout, the same metrics in the file.
  const InProcessRun s = xferbench(
      {"check", "--judge", run, "--summary", "--format", "prometheus", "--metrics-detail", "cells", "-o", file});
  EXPECT_EQ(s.code, 1);
  EXPECT_EQ(s.out.rfind("xferbench check: FAIL", 0), 0u) << s.out;
  EXPECT_EQ(std::count(s.out.begin(), s.out.end(), '\n'), 1) << s.out;
  EXPECT_EQ(read_text(file), text);
}

// A check that cannot measure (no GPU) replaces the last PASS with what
// happened: down with the reason, not accepted, its exit code, no cell or
// verdict series, and the last success carried over from the file it
// replaces (the host name is this machine's: the check never reached a GPU
// to record another).
TEST(PrometheusFiles, ACheckThatCannotMeasureReplacesThePass) {
  char name[256] = {};
  gethostname(name, sizeof(name) - 1);
  const std::string host = name, file = dir() + "cannot_measure.prom", passed = dir() + "cannot_measure_input.json";
  std::remove(file.c_str());
  json doc = json::parse(
      read_text(std::string(XFERBENCH_SOURCE_DIR) + "/bench/results/2026-11-23-h200/xferbench_full1.json"));
  doc["environment"]["hostname"] = host;
  std::ofstream(passed) << doc.dump() << "\n";
  ASSERT_EQ(xferbench({"check", "--judge", passed, "--format", "prometheus", "-o", file}).code, 0);
  const std::string before = read_text(file);
  const std::string h = "Hostname=\"" + xb::report::prometheus_escape(host) + "\"";
  ASSERT_TRUE(has_line(before, "xferbench_check_pass{" + h + "} 1")) << before;
  const auto start = xb::report::prom::read_successes(before).at(host);

  const xb::SourceFactory no_gpu = [](const xb::MeasureOptions&) -> std::unique_ptr<xb::SampleSource> {
    xb::fail(xb::ErrorKind::no_device, "no CUDA GPU found");
  };
  const InProcessRun r = run_in_process({"check", "--summary", "--format", "prometheus", "-o", file}, no_gpu);
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("no CUDA GPU found; without a GPU these work: xferbench cases"), std::string::npos) << r.err;
  const std::string text = read_text(file);
  expect_exposition(text);
  EXPECT_TRUE(has_line(text, "xferbench_up{" + h + ",reason=\"no_device\"} 0")) << text;
  EXPECT_TRUE(has_line(text, "xferbench_check_pass{" + h + "} 0")) << text;
  EXPECT_TRUE(has_line(text, "xferbench_exit_code{" + h + "} 3")) << text;
  EXPECT_TRUE(has_line(text, fmt::format("xferbench_last_success_timestamp_seconds{{{}}} {}", h, start))) << text;
  EXPECT_EQ(text.find("gpu="), std::string::npos) << text;
  // Without --format prometheus nothing is written: the file stays as it was.
  const InProcessRun j = run_in_process({"check", "-o", passed}, no_gpu);
  EXPECT_EQ(j.code, 3);
  EXPECT_EQ(json::parse(read_text(passed))["environment"]["hostname"], host);
}

// The last success is read back from the file being replaced: this
// version's metric by Hostname (escaped values too), or, from a file of
// 0.1.0 (label host, no such metric), the start of a run whose exit code
// was 0.
TEST(Prometheus, LastSuccessIsReadFromTheFileItReplaces) {
  using xb::report::prom::read_successes;
  const auto got = read_successes(
      "# HELP xferbench_last_success_timestamp_seconds x\n"
      "xferbench_last_success_timestamp_seconds{Hostname=\"a\\\"b\\\\c\"} 1700000000\n"
      "xferbench_last_success_timestamp_seconds{Hostname=\"n2\"} 1700000100\n"
      "xferbench_last_run_timestamp_seconds{host=\"old\"} 1600000000\n"
      "xferbench_exit_code{host=\"old\"} 0\n"
      "xferbench_last_run_timestamp_seconds{host=\"oldfail\"} 1600000000\n"
      "xferbench_exit_code{host=\"oldfail\"} 1\n"
      "not a sample\n");
  EXPECT_EQ(got, (xb::report::prom::Successes{{"a\"b\\c", 1700000000}, {"n2", 1700000100}, {"old", 1600000000}}));
  EXPECT_TRUE(read_successes("").empty());
}

// In-process ranks on `hosts` run `args`; nodeB has no GPU, nodeC's links
// are half as fast. Returns rank 0's stdout; every rank's code must be `code`.
std::string fleet(const std::vector<std::string>& hosts, const std::vector<std::string>& args, int code) {
  xb::comm::InprocOptions w;
  w.hosts = hosts;
  w.size = static_cast<int>(hosts.size());
  std::mutex m;
  std::map<int, int> codes;
  std::string errors;
  std::ostringstream printed;
  std::streambuf* old = std::cout.rdbuf(printed.rdbuf());
  xb::comm::run_ranks(w, [&](xb::comm::Communicator& comm) {
    xb::app::Context ctx;
    ctx.argv = {"xferbench"};
    ctx.launch = &comm;
    const std::string host = comm.host_name();
    ctx.open_source = [host](const xb::MeasureOptions&) -> std::unique_ptr<xb::SampleSource> {
      if (host == "nodeB") xb::fail(xb::ErrorKind::no_device, "no CUDA GPU found");
      return std::make_unique<UuidSource>(host == "nodeC" ? 0.5 : 1);
    };
    auto app = xb::app::make_app(ctx);
    std::ostringstream out, err;
    int c = xb::app::parse_args(*app, ctx, args, out, err);
    if (c < 0) c = xb::app::run_action(ctx, err);
    std::lock_guard<std::mutex> lock(m);
    codes[comm.rank()] = c;
    errors += err.str();
  });
  std::cout.rdbuf(old);
  for (const auto& [rank, c] : codes) EXPECT_EQ(c, code) << "rank " << rank << ": " << errors;
  return printed.str();
}

TEST(PrometheusFiles, FleetOfRuns) {
  const std::string file = dir() + "run_fleet.prom";
  const std::string table = fleet({"nodeA", "nodeB", "nodeB", "nodeC"},
                                  {"run", "-b", "64", "-t", "host_to_device_memcpy_ce", "device_local_copy", "--format",
                                   "prometheus", "-o", file, "--fleet-timeout", "60"},
                                  3);
  EXPECT_EQ(table.find("# HELP"), std::string::npos) << table;
  const std::string text = read_text(file);
  expect_exposition(text);
  EXPECT_TRUE(has_line(text, "xferbench_exit_code{Hostname=\"nodeB\"} 3")) << text;
  EXPECT_TRUE(has_line(text, "xferbench_up{Hostname=\"nodeB\",reason=\"no_device\"} 0")) << text;
  EXPECT_TRUE(has_line(text, "xferbench_up{Hostname=\"nodeA\"} 1")) << text;
  EXPECT_TRUE(has_line(text, "xferbench_fleet_outlier{Hostname=\"nodeA\"} 0")) << text;
  EXPECT_TRUE(has_line(text, "xferbench_fleet_outlier{Hostname=\"nodeC\"} 1")) << text;
  EXPECT_EQ(text.find("Hostname=\"nodeB\",gpu="), std::string::npos) << "a node without a result has no cells";
}

TEST(PrometheusFiles, FleetOfChecks) {
  const std::string file = dir() + "check_fleet.prom", spec = dir() + "check_fleet.toml";
  std::ofstream(spec) << "[[expect]]\ncase = \"device_local_copy\"\nmin = \"300 GB/s\"\n";
  const std::string table = fleet({"nodeA", "nodeB", "nodeB", "nodeC"},
                                  {"check", "--budget", "0.01", "--spec", spec, "--fleet-timeout", "60", "--format",
                                   "prometheus", "-o", file},
                                  1);
  EXPECT_NE(table.find("# xferbench check: 3 nodes"), std::string::npos) << table;
  const std::string text = read_text(file);
  expect_exposition(text);
  EXPECT_TRUE(has_line(text, "xferbench_check_pass{Hostname=\"nodeA\"} 1")) << text;
  EXPECT_TRUE(has_line(text, "xferbench_check_pass{Hostname=\"nodeC\"} 0")) << text;
  EXPECT_TRUE(has_line(text, "xferbench_exit_code{Hostname=\"nodeB\"} 3")) << text;
  // A node that could not check itself is not accepted, and says why.
  EXPECT_TRUE(has_line(text, "xferbench_check_pass{Hostname=\"nodeB\"} 0")) << text;
  EXPECT_TRUE(has_line(text, "xferbench_up{Hostname=\"nodeB\",reason=\"no_device\"} 0")) << text;
  EXPECT_NE(text.find("xferbench_check_link_pass{Hostname=\"nodeC\",gpu=\"0\""), std::string::npos) << text;
}

}  // namespace
