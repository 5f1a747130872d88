// Golden outputs: whole commands on recorded inputs, compared
// byte for byte with tests/golden/<command>_<variant>.<txt|json|csv|xml>,
// so a refactor can show that it changed no output. The exit codes are
// checked too.
//
// Inputs: a FakeSource of 2 GPUs (tests/fake_source.hpp) for run, run --do,
// cuts and sweep; run JSON written by those (and edited copies) for
// check --judge and compare; the recorded topologies of tests/data/topology
// for run --dry-run and list; the 64-node simulation of test_fleet_sim.cpp
// (the recorded H200 runs of bench/results, trimmed) for the fleet and a
// fleet compare; fixed records for pingpong and first-touch, whose timings
// cannot be replayed.
//
// normalise() replaces exactly these volatile fields by tokens: the build's
// version ("xferbench X", "version": "X") and "git"; the JSON values of
// start_time_utc, wall_seconds, wall_s and peak_host_rss_bytes; in text a
// case's "# STATUS in X s", "wall time X s", check's "# X s" line, "peak
// host RSS X;" and JUnit's time="X"; the temporary directory (<TMP>) and
// the source directory (<SRC>) in paths. Everything else is compared as is.
//
// Regenerate after a change on purpose, then review the diff of
// tests/golden: XFERBENCH_UPDATE_GOLDEN=1 ctest --test-dir build-ci -R Golden
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <sstream>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

// ---- internal API: the only part that may need adapting after a refactor ----
#include "app/cli.hpp"
#include "app/fleet_launch.hpp"
#include "fleet/node_json.hpp"
#include "fleet/per_node.hpp"
#include "comm/inproc_comm.hpp"
#include "base/error.hpp"
#include "records/topology_file.hpp"
#include "fake_source.hpp"
#include "in_process.hpp"
#include "pingpong/pingpong_json.hpp"
#include "report/reporter.hpp"

namespace {

using json = nlohmann::json;

struct Output {
  int code = -1;
  std::string out;  // stdout (stderr is not golden: progress and warnings)
};

// An xferbench command line in-process, as main() runs it, measuring with a FakeSource.
Output xferbench(std::vector<std::string> args) {
  const InProcessRun run = run_in_process(std::move(args), [](const xb::MeasureOptions&) {
    return std::make_unique<FakeSource>(2);
  });
  Output r;
  r.code = run.code;
  r.out = run.out;
  return r;
}

// 'xferbench list' on a recorded topology (the command reads this machine only).
std::string list_topology(const std::string& path, const std::string& format) {
  std::ostringstream os;
  xb::report::make_reporter(format, os)->system(xb::load_topology_file(path));
  return os.str();
}

// The fleet of 64 simulated nodes (1-3 processes each; node12 has no GPU),
// each returning docs[host]; `format` on stdout, JSON to `file` if given.
std::string fleet(const std::map<std::string, json>& docs, const std::string& format, const std::string& file) {
  xb::comm::InprocOptions w;
  for (int n = 0; n < 64; ++n)
    for (int i = 0; i <= n % 3; ++i) w.hosts.push_back(fmt::format("node{:02}", n));
  w.size = static_cast<int>(w.hosts.size());
  xb::app::FleetJob job;
  job.command = "run";
  job.out.format = format;
  job.out.file = file;
  job.single = [] { return 99; };
  std::string printed;  // rank 0's thread alone writes it
  xb::comm::run_ranks(w, [&](xb::comm::Communicator& c) {
    const std::string host = c.host_name();
    xb::app::FleetJob mine = job;
    mine.measure = [&docs, host]() -> xb::fleet::NodeOutcome {
      if (host == "node12") xb::fail(xb::ErrorKind::no_device, "no CUDA GPU found");
      return {xb::fleet::node_document(docs.at(host)), 0};
    };
    std::ostringstream out, err;
    xb::app::run_fleet(c, mine, {"xferbench", "run", "--format", format}, out, err);
    if (c.rank() == 0) printed = out.str();
  });
  return printed;
}

// Pingpong and first-touch time real transfers: fixed records instead, a
// complete one and a stopped one each, through every format (file name, output).
std::vector<std::pair<std::string, std::string>> record_outputs() {
  using namespace xb::pingpong;
  auto pair = [](int b, Mode mode, std::vector<std::vector<double>> reps) {
    PairResult p;
    p.rank_b = b;
    p.host_a = "node0";
    p.host_b = b == 2 ? "node1" : "node0";
    p.gpu_a = 0;
    p.gpu_b = b == 2 ? -1 : 1;
    p.transport = "staged";
    p.path = "rank 0: staged through pinned host buffers";
    for (std::uint64_t i = 0; i < reps.size(); ++i) {
      p.sizes.push_back(summarize_size(mode, 8ull << (6 * i), mode == Mode::pingpong ? 1 : 4, reps[i]));
      p.sizes.back().verified = true;
    }
    return p;
  };
  Result two;  // three sizes, one failing its data check
  two.loop_count = 4;
  two.warmup = 1;
  two.world_size = 2;
  two.requested_transport = "auto";
  two.pairs = {pair(1, Mode::pingpong, {{2e-6, 3e-6, 2.5e-6, 4e-6}, {5e-6, 6e-6, 5.5e-6, 5e-6}, {2e-4, 2.1e-4, 1.9e-4, 2e-4}})};
  two.pairs[0].sizes[1].verified = false;
  two.pairs[0].sizes[1].verify_error = "byte 17 is 0x00, expected 0x5a";
  Result all = two;  // --all-pairs on three ranks, stopped by SIGINT
  all.mode = Mode::bw;
  all.loop_count = 2;
  all.window = 4;
  all.world_size = 3;
  all.all_pairs = true;
  all.requested_transport = "staged";
  all.pairs = {pair(1, Mode::bw, {{8e-6, 9e-6}, {4e-5, 4.4e-5}}), pair(2, Mode::bw, {{1e-5, 1.2e-5}})};
  all.pairs[1].stop = all.completion.stop = xb::StopReason::sigint;
  all.pairs[1].not_run = {512};
  all.completion.status = xb::RunStatus::interrupted;
  all.completion.message = "interrupted by SIGINT";
  all.completion.not_run = {"r0-r2 @ 512 B", "r1-r2"};

  namespace ft = xb::firsttouch;
  ft::Result seed;  // the seed's two variants over ipc, one iteration failed
  seed.mode = "seed";
  seed.transport = "ipc";
  seed.world_size = 2;
  seed.receiver_rank = 1;
  seed.sender_host = seed.receiver_host = "node0";
  seed.sender_gpu = 0;
  seed.receiver_gpu = 1;
  seed.iterations = 2;
  seed.sub_iterations = 3;
  seed.p2p_bytes = 1024;
  seed.warmup_s = 0.0125;
  ft::Phases p;
  p.alloc_sender_s = 2e-4;
  p.alloc_receiver_s = 2.5e-4;
  p.export_s = 1e-5;
  p.open_s = 0.375;
  p.first_copy_s = 0.5;
  p.steady_copy_s = {2e-5, 3e-5};
  seed.variants = {{"with overalloc", "gpu", 1ull << 30, 1, {{0.5, 2e-5, 3e-5}, {0.25, 4e-5, 2e-5}}, {p, p}, {}},
                   {"without overalloc", "gpu", 1ull << 30, 0, {{0.0625, 2e-5, 2e-5}}, {p},
                    {"without overalloc/1: cudaIpcOpenMemHandle failed"}}};
  ft::Result sweep = seed;  // an overalloc sweep on host buffers, cut short by the time limit
  sweep.mode = "sweep";
  sweep.transport = "mpi";
  sweep.receiver_host = "node1";
  sweep.sender_gpu = sweep.receiver_gpu = -1;
  sweep.variants = {{"+0 B", "host", 65536, 0, {{1e-3, 1e-5, 1e-5}}, {ft::Phases{}}, {}},
                    {"+4096 B", "host", 65536, 4096, {{2e-3, 1.5e-5, 1e-5}}, {ft::Phases{}}, {}}};
  sweep.completion.status = xb::RunStatus::partial;
  sweep.completion.stop = xb::StopReason::time_limit;
  sweep.completion.message = "time limit of 60 s reached";
  sweep.completion.time_limit_s = 60;
  sweep.completion.not_run = {"+4096 B/1", "+65536 B/0", "+65536 B/1"};

  namespace rp = xb::report;
  const std::vector<std::string> pp_argv = {"xferbench", "pingpong", "-o", "pp.json"};
  const std::vector<std::string> ft_argv = {"xferbench", "first-touch", "2", "3", "1K", "1G", "1"};
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [name, r] : {std::pair{"pingpong_two_ranks", two}, std::pair{"pingpong_all_pairs_interrupted", all}})
    out.insert(out.end(), {{std::string(name) + ".txt", rp::pingpong_text(r)},
                           {std::string(name) + ".json", xb::records::pingpong_json(r, pp_argv).dump(2) + "\n"},
                           {std::string(name) + ".csv", rp::pingpong_csv(r)}});
  const auto first_touch = [&](const ft::Result& r, const char* format) {
    std::ostringstream os;
    rp::make_reporter(format, os)->first_touch(r, ft_argv);
    return os.str();
  };
  for (const auto& [name, r] : {std::pair{"first-touch_seed", seed}, std::pair{"first-touch_sweep_partial", sweep}})
    out.insert(out.end(), {{std::string(name) + ".txt", first_touch(r, "text")},
                           {std::string(name) + ".json", first_touch(r, "json")},
                           {std::string(name) + ".csv", first_touch(r, "csv")},
                           {std::string(name) + "_seed.txt", first_touch(r, "seed")}});
  return out;
}

// ---- end of the internal API ----------------------------------------------

const std::string kSrc = XFERBENCH_SOURCE_DIR;

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// A fresh directory of this test's own (ctest runs tests in parallel).
std::string temp_dir() {
  const std::string dir =
      ::testing::TempDir() + "xb_golden_" + ::testing::UnitTest::GetInstance()->current_test_info()->name();
  mkdir(dir.c_str(), 0755);
  return dir;
}

// Replaces the volatile fields listed in the file comment by fixed tokens.
std::string normalise(std::string text) {
  const std::string version = XFERBENCH_VERSION;
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {temp_dir(), "<TMP>"}, {kSrc, "<SRC>"}, {"xferbench " + version, "xferbench <VERSION>"},
           {"\"version\": \"" + version + "\"", "\"version\": \"<VERSION>\""}})
    for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
  static const std::vector<std::pair<std::regex, std::string>> rules = {
      {std::regex(R"re("(git|start_time_utc)": "[^"]*")re"), R"("$1": "<VOLATILE>")"},
      {std::regex(R"re("(wall_seconds|wall_s|peak_host_rss_bytes)": [0-9.e+-]+)re"), R"("$1": "<VOLATILE>")"},
      {std::regex(R"re(\n# (\w+) in [0-9.]+ s\n)re"), "\n# $1 in <S> s\n"},  // a case's wall time
      {std::regex(R"re(\n# [0-9.]+ s\n)re"), "\n# <S> s\n"},                  // check's wall time
      {std::regex(R"re(wall time [0-9.]+ s)re"), "wall time <S> s"},
      {std::regex(R"re(peak host RSS [^;]*;)re"), "peak host RSS <RSS>;"},
      {std::regex(R"re( time="[0-9.]+")re"), R"( time="<S>")"},                 // JUnit
  };
  for (const auto& [re, token] : rules) text = std::regex_replace(text, re, token);
  return text;
}

// Compares `actual` (normalised) with tests/golden/`name`, or rewrites the
// file under XFERBENCH_UPDATE_GOLDEN=1.
void expect_golden(const std::string& name, const std::string& actual_raw) {
  const std::string actual = normalise(actual_raw), path = std::string(XFERBENCH_GOLDEN_DIR) + "/" + name;
  if (const char* update = std::getenv("XFERBENCH_UPDATE_GOLDEN"); update != nullptr && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    ADD_FAILURE() << path << " is missing; write it with XFERBENCH_UPDATE_GOLDEN=1";
    return;
  }
  const std::string expected = read_text(path);
  if (expected == actual) return;
  std::istringstream e(expected), a(actual);
  std::string el, al;
  int line = 1;
  for (;; ++line) {
    const bool more_e = static_cast<bool>(std::getline(e, el)), more_a = static_cast<bool>(std::getline(a, al));
    if (!more_e) el = more_a ? "<end of file>" : "<end of file> (the last newline differs)";
    if (!more_a) al = "<end of output>";
    if (!more_e || !more_a || el != al) break;
  }
  ADD_FAILURE() << name << " differs from the golden file at line " << line << "\n  expected: " << el
                << "\n  actual:   " << al << "\n(XFERBENCH_UPDATE_GOLDEN=1 rewrites it when the change is wanted)";
}

// Runs `args` once per format and checks each output and the exit code.
void expect_formats(const std::string& name, std::vector<std::string> args, int code,
                    const std::vector<std::string>& formats = {"text", "json", "csv"}) {
  for (const std::string& format : formats) {
    std::vector<std::string> a = args;
    a.insert(a.end(), {"--format", format});
    const Output r = xferbench(a);
    EXPECT_EQ(r.code, code) << name << " " << format;
    const bool own = format == "json" || format == "csv";  // other formats are text, e.g. cuts_flags_cuts.txt
    expect_golden(own ? name + "." + format : format == "text" ? name + ".txt" : name + "_" + format + ".txt", r.out);
  }
}

// Bandwidth (CE, SM), bidirectional, latency and local-copy cases.
std::vector<std::string> run_args(std::vector<std::string> extra = {}) {
  std::vector<std::string> a = {"run", "-b", "64", "-t", "host_to_device_memcpy_ce", "device_to_host_memcpy_sm",
                                "device_to_device_memcpy_read_ce", "device_to_device_bidirectional_memcpy_write_ce",
                                "host_device_latency_sm", "device_to_device_latency_sm", "device_local_copy"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

json read_json(const std::string& path) { return json::parse(read_text(path)); }
void write_json(const std::string& path, const json& doc) { std::ofstream(path) << doc.dump(2) << "\n"; }

// Multiplies a cell's value and statistics by `f`.
void scale_cell(json& cell, double f) {
  const char* key = cell.contains("value_ns") ? "value_ns" : "value_gbps";
  cell[key] = cell[key].get<double>() * f;
  if (cell.contains("stats"))
    for (auto& [stat, v] : cell["stats"].items())
      if (stat != "cov") v = v.get<double>() * f;
}

TEST(Golden, Cases) { expect_formats("cases_all", {"cases"}, 0); }

TEST(Golden, Run) {
  expect_formats("run_cases", run_args(), 0);
  setenv("XFERBENCH_FAULT", "#4:signal_int", 1);
  expect_formats("run_interrupted", run_args({"--drift-check", "off"}), 130, {"text", "json"});
  unsetenv("XFERBENCH_FAULT");
}

TEST(Golden, RunConcurrent) {
  expect_formats("run_do", {"run", "--do=0:HtoD:64M", "--do=1:DtoD:64M:peer=0", "--do=all:DtoH:16M"}, 0);
  expect_formats("cuts_flags", {"cuts", "--htod", "0", "--dtoh", "1", "--size", "32M"}, 0, {"cuts", "text"});
}

TEST(Golden, Sweep) {
  expect_formats("sweep_do", {"sweep", "--do", "0:HtoD", "--min", "4K", "--max", "64M", "--factor", "4"}, 0);
  expect_formats("sweep_case", {"sweep", "-t", "device_to_device_memcpy_read_ce", "--min", "1M", "--max", "9M",
                                "--step", "4M"}, 0);
}

TEST(Golden, DryRunOnRecordedTopologies) {
  const std::string topology = kSrc + "/tests/data/topology/";
  expect_formats("run_dry_h200x4", {"run", "--dry-run", "--suite", "full", "--topology", topology + "h200x4.json"}, 0,
                 {"text", "json"});
  expect_formats("run_dry_gb200x72", {"run", "--dry-run", "--topology", topology + "gb200x72.json"}, 0, {"text"});
}

TEST(Golden, ListOnRecordedTopologies) {
  for (const char* f : {"text", "json", "csv"})
    expect_golden(std::string("list_h200x4.") + (std::string(f) == "text" ? "txt" : f),
                  list_topology(kSrc + "/tests/data/topology/h200x4.json", f));
}

TEST(Golden, CheckJudgesRecordedRuns) {
  const std::string dir = temp_dir(), run = dir + "/run.json", slow = dir + "/slow.json", junit = dir + "/junit.xml";
  ASSERT_EQ(xferbench({"run", "--suite", "quick", "-o", run, "--format", "csv"}).code, 0);
  json doc = read_json(run);
  scale_cell(doc["cases"][0]["matrices"][0]["cells"][1], 0.7);
  write_json(slow, doc);
  const std::string spec = kSrc + "/share/xferbench/check/h200.toml";
  expect_formats("check_spec", {"check", "--judge", run, "--spec", spec, "--force", "--junit", junit}, 1,
                 {"text", "json"});
  expect_golden("check_spec_junit.xml", read_text(junit));
  expect_formats("check_baseline", {"check", "--judge", slow, "--baseline", run}, 1, {"text", "json"});
  expect_golden("check_baseline_summary.txt", xferbench({"check", "--judge", slow, "--baseline", run, "--summary"}).out);
}

TEST(Golden, CompareRuns) {
  const std::string dir = temp_dir(), old_run = dir + "/old.json", new_run = dir + "/new.json";
  ASSERT_EQ(xferbench(run_args({"-o", old_run, "--format", "csv"})).code, 0);
  json doc = read_json(old_run);
  scale_cell(doc["cases"][0]["matrices"][0]["cells"][1], 0.8);   // slower
  scale_cell(doc["cases"][2]["matrices"][0]["cells"][0], 1.25);  // faster
  doc["cases"][6]["status"] = "error";
  doc["cases"][6]["message"] = "cudaMemcpyAsync failed: an illegal memory access was encountered";
  doc["cases"][6]["matrices"] = json::array();
  write_json(new_run, doc);
  expect_formats("compare_runs", {"compare", old_run, new_run}, 1);
}

// The recorded H200 runs of the 64-node simulation, trimmed to the cases
// with injected slow GPUs and to what the fleet reads, so the golden JSON stays small.
std::map<std::string, json> fleet_docs() {
  const std::vector<std::string> keep = {"host_to_device_memcpy_ce", "device_to_device_memcpy_read_ce",
                                         "host_device_latency_sm", "device_local_copy"};
  auto load = [&](const std::string& rel) {
    json doc = read_json(kSrc + "/bench/results/" + rel), cases = json::array(), gpus = json::array();
    for (json& c : doc["cases"]) {
      if (std::find(keep.begin(), keep.end(), c["name"]) == keep.end()) continue;
      for (json& m : c["matrices"])
        for (json& cell : m["cells"]) {
          json small;
          for (const char* key : {"row", "col", "link", "value_gbps", "value_ns", "samples"})
            if (cell.contains(key)) small[key] = cell[key];
          for (const char* key : {"stddev_gbps", "stddev_ns"})  // compare's noise
            if (cell["stats"].contains(key)) small["stats"][key] = cell["stats"][key];
          cell = small;
        }
      cases.push_back({{"name", c["name"]}, {"status", c["status"]}, {"matrices", c["matrices"]}});
    }
    for (const json& g : doc["environment"]["gpus"]) gpus.push_back({{"index", g["index"]}, {"name", g["name"]}});
    return json{{"schema", doc["schema"]}, {"schema_version", doc["schema_version"]}, {"status", doc["status"]},
                {"environment", {{"hostname", doc["environment"]["hostname"]}, {"gpus", gpus}}}, {"cases", cases}};
  };
  const std::vector<json> runs = {load("2026-11-21-h200x2-full-run1.json"), load("2026-11-21-h200x2-full-run2.json"),
                                  load("2026-11-21-h200x2-full-run3.json")};
  std::map<std::string, json> docs;
  for (int n = 0; n < 64; ++n) docs[fmt::format("node{:02}", n)] = runs[n % 3];
  docs["node60"] = load("2026-11-22-h200x4/full.json");
  // The slow GPUs: node07 gpu1 from the host, node23 gpu0 reading gpu1,
  // node41 gpu1's host latency, node50 gpu0's local copy.
  for (const auto& [node, c, cell, f] : {std::tuple{"node07", 0, 1, 0.8}, std::tuple{"node23", 1, 0, 0.8},
                                         std::tuple{"node41", 2, 1, 1.4}, std::tuple{"node50", 3, 0, 0.8}})
    scale_cell(docs[node]["cases"][c]["matrices"][0]["cells"][cell], f);
  return docs;
}

TEST(Golden, FleetOfSixtyFourNodes) {
  const std::string dir = temp_dir(), file = dir + "/fleet.json", other = dir + "/fleet_new.json";
  const auto docs = fleet_docs();
  expect_golden("fleet_sim64.txt", fleet(docs, "text", file));
  expect_golden("fleet_sim64.json", read_text(file));
  expect_golden("fleet_sim64.csv", fleet(docs, "csv", ""));
  json doc = read_json(file);
  scale_cell(doc["nodes"]["node05"]["result"]["cases"][0]["matrices"][0]["cells"][0], 0.7);
  write_json(other, doc);
  expect_formats("compare_fleet", {"compare", file, other}, 1);
}

// pingpong and first-touch: fixed records through the reporters.
TEST(Golden, PingpongAndFirstTouchRecords) {
  for (const auto& [name, text] : record_outputs()) expect_golden(name, text);
}

}  // namespace
