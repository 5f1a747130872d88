// 64 simulated nodes over the in-process communicator, through the same
// run_fleet() the binary uses under mpirun: every node "measures" by
// returning a recorded H200 x2 run (bench/results, three real runs in
// turn, so the fleet has real run-to-run noise), some with injected slow
// GPUs, one node with no GPU, one whose measuring rank dies, one with four
// GPUs. The fleet must flag exactly the injected cells, keep every other
// node, print once and write one file.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "app/cli.hpp"
#include "app/fleet_launch.hpp"
#include "comm/launch_env.hpp"
#include "comm/inproc_comm.hpp"
#include "base/error.hpp"
#include "base/stop.hpp"
#include "fleet/node_json.hpp"
#include "fleet/per_node.hpp"
#include "fleet/summary.hpp"
#include "fake_stop_relay.hpp"

namespace {

using namespace xb;
using json = nlohmann::json;

thread_local std::string t_host;  // the simulated node of the calling rank
struct SimulatedDeath {};

json load(const std::string& rel) {
  std::ifstream f(std::string(XFERBENCH_SOURCE_DIR) + "/" + rel);
  std::stringstream s;
  s << f.rdbuf();
  return json::parse(s.str());
}

using CellFilter = std::function<bool(const std::string& test, const json& matrix, const std::string& row,
                                      const std::string& col, const std::string& link)>;

// Multiplies the matching cells' values and records them as the truth.
void inject(json& run, const std::string& node, const CellFilter& match, double factor, std::set<std::string>& truth) {
  for (json& c : run["cases"]) {
    for (json& m : c["matrices"]) {
      const bool latency = m["metric"] == "latency_ns";
      for (json& cell : m["cells"]) {
        const std::string row = m["row_labels"][cell["row"].get<int>()], col = m["col_labels"][cell["col"].get<int>()];
        if (!match(c["name"], m, row, col, cell["link"])) continue;
        cell[latency ? "value_ns" : "value_gbps"] = cell[latency ? "value_ns" : "value_gbps"].get<double>() * factor;
        truth.insert(node + "|" + c["name"].get<std::string>() + "|" + m["name"].get<std::string>() + "|[" + row + "," +
                     col + "]");
      }
    }
  }
}

struct Fixture {
  std::vector<json> runs = {load("bench/results/2026-11-21-h200x2-full-run1.json"),
                            load("bench/results/2026-11-21-h200x2-full-run2.json"),
                            load("bench/results/2026-11-21-h200x2-full-run3.json")};
  json four = load("bench/results/2026-11-22-h200x4/full.json");
  std::map<std::string, json> docs;  // per node, prepared before the ranks start
  std::set<std::string> truth;

  Fixture() {
    for (int n = 0; n < 64; ++n) docs[name(n)] = runs[n % 3];
    docs["node60"] = four;
    const auto bandwidth = [](const json& m) { return m["metric"] == "bandwidth_gbps"; };
    inject(docs["node07"], "node07", [&](auto&, const json& m, auto& row, auto& col, auto& link) {
      return bandwidth(m) && link == "PCIe Gen5 x16" && (row == "gpu1" || col == "gpu1");
    }, 0.8, truth);
    inject(docs["node23"], "node23", [&](auto&, const json& m, auto&, auto&, auto& link) {
      return bandwidth(m) && link == "NVLink x18";
    }, 0.8, truth);
    inject(docs["node41"], "node41", [](auto& test, auto&, auto&, auto& col, auto&) {
      return test == "host_device_latency_sm" && col == "gpu1";
    }, 1.4, truth);
    inject(docs["node50"], "node50", [](auto& test, auto&, auto&, auto& col, auto&) {
      return test == "device_local_copy" && col == "gpu0";
    }, 0.8, truth);
  }
  static std::string name(int n) { return fmt::format("node{:02}", n); }
};

TEST(FleetSimulation, SixtyFourNodesFindExactlyTheInjectedSlowGpus) {
  Fixture fx;
  comm::InprocOptions w;
  for (int n = 0; n < 64; ++n)
    for (int i = 0; i <= n % 3; ++i) w.hosts.push_back(Fixture::name(n));  // 1, 2 or 3 ranks per node
  w.size = static_cast<int>(w.hosts.size());
  const int dying_rank = static_cast<int>(std::find(w.hosts.begin(), w.hosts.end(), "node34") - w.hosts.begin());
  std::atomic<bool> dead{false};
  std::mutex m;
  std::map<std::string, int> measured;
  std::map<int, int> codes;
  std::string printed, others_printed;

  app::FleetJob job;
  job.command = "run";
  // ctest's fleet_sim_file keeps it for cli_plot_fleet_png (docs/plots.md draws it).
  const char* keep = std::getenv("XFERBENCH_FLEET_SIM_FILE");
  job.out.file = keep != nullptr && *keep != '\0' ? std::string(keep) : ::testing::TempDir() + "fleet_sim.json";
  job.single = [] { return 99; };  // never used with 64 nodes
  job.measure = [&]() -> fleet::NodeOutcome {
    {
      std::lock_guard<std::mutex> lock(m);
      ++measured[t_host];
    }
    if (t_host == "node12") fail(ErrorKind::no_device, "no CUDA GPU found");
    if (t_host == "node34") {
      dead = true;
      throw SimulatedDeath{};
    }
    return {fleet::node_document(fx.docs.at(t_host)), 0};
  };
  fleet::Options opt;
  opt.process_alive = [&](int rank, long) { return !(rank == dying_rank && dead); };
  try {
    comm::run_ranks(w, [&](comm::Communicator& c) {
      t_host = c.host_name();
      std::ostringstream out, err;
      const int code = app::run_fleet(c, job, {"xferbench", "run", "-o", "f.json"}, out, err, opt);
      std::lock_guard<std::mutex> lock(m);
      codes[c.rank()] = code;
      (c.rank() == 0 ? printed : others_printed) += out.str() + err.str();
    });
  } catch (const SimulatedDeath&) {
  }

  for (int n = 0; n < 64; ++n) EXPECT_EQ(measured[Fixture::name(n)], 1) << Fixture::name(n);
  EXPECT_EQ(others_printed, "");
  for (const auto& [rank, code] : codes) EXPECT_EQ(code, 1) << "rank " << rank;  // no GPU (3) and a death (6): 1
  EXPECT_EQ(codes.size(), w.hosts.size() - 1);

  std::ifstream file(job.out.file);
  ASSERT_TRUE(file) << "no fleet file";
  const json doc = json::parse(file);
  ASSERT_EQ(doc["nodes"].size(), 64u);
  std::set<std::string> found;
  for (const json& o : doc["fleet"]["outliers"])
    found.insert(o["node"].get<std::string>() + "|" + o["test"].get<std::string>() + "|" + o["group"].get<std::string>() +
                 "|" + o["cell"].get<std::string>());
  EXPECT_EQ(found, fx.truth);
  EXPECT_EQ(doc["fleet"]["outlier_nodes"], json::array({"node07", "node23", "node41", "node50"}));
  EXPECT_EQ(doc["nodes"]["node12"]["error"]["message"], "no CUDA GPU found");
  EXPECT_NE(doc["nodes"]["node34"]["error"]["message"].get<std::string>().find("died before reporting"),
            std::string::npos);
  EXPECT_EQ(doc["nodes"]["node60"]["gpu_group"], "4 x NVIDIA H200");
  EXPECT_EQ(doc["fleet"]["gpu_groups"]["2 x NVIDIA H200"].size(), 61u);

  EXPECT_NE(printed.find("# 61 nodes with 2 x NVIDIA H200"), std::string::npos) << printed;
  EXPECT_NE(printed.find("# 1 node with 4 x NVIDIA H200"), std::string::npos);
  EXPECT_NE(printed.find("other GPUs than most nodes (2 x NVIDIA H200)"), std::string::npos);
  EXPECT_NE(printed.find("OUTLIER: gpu1"), std::string::npos);
  std::size_t headers = 0;
  for (auto pos = printed.find("# xferbench"); pos != std::string::npos; pos = printed.find("# xferbench", pos + 1))
    ++headers;
  EXPECT_EQ(headers, 1u);
  // Kept for reading (docs/fleet.md quotes this table).
  std::ofstream(::testing::TempDir() + "fleet_sim.txt") << printed;
}

}  // namespace

namespace {

std::map<std::string, std::string> g_env;
const char* fake_getenv(const char* name) {
  const auto it = g_env.find(name);
  return it == g_env.end() ? nullptr : it->second.c_str();
}

TEST(FleetLaunch, LauncherEnvironmentDecidesTheMode) {
  g_env = {};
  EXPECT_EQ(xb::comm::launcher_world_size(fake_getenv), 0);
  EXPECT_EQ(xb::comm::launcher_world_rank(fake_getenv), -1);
  g_env = {{"OMPI_COMM_WORLD_SIZE", "4"}, {"OMPI_COMM_WORLD_RANK", "3"}};
  EXPECT_EQ(xb::comm::launcher_world_size(fake_getenv), 4);
  EXPECT_EQ(xb::comm::launcher_world_rank(fake_getenv), 3);
  // A Slurm batch script outside srun: one process, SLURM_PROCID means nothing.
  g_env = {{"SLURM_NTASKS", "16"}, {"SLURM_PROCID", "0"}};
  EXPECT_EQ(xb::comm::launcher_world_size(fake_getenv), 0);
  EXPECT_EQ(xb::comm::launcher_world_rank(fake_getenv), -1);
  g_env = {{"SLURM_STEP_NUM_TASKS", "128"}, {"SLURM_PROCID", "17"}};
  EXPECT_EQ(xb::comm::launcher_world_size(fake_getenv), 128);
  EXPECT_EQ(xb::comm::launcher_world_rank(fake_getenv), 17);
  g_env = {{"PMIX_RANK", "2"}};
  EXPECT_EQ(xb::comm::launcher_world_size(fake_getenv), -1);  // only MPI knows
  g_env = {{"PMI_SIZE", "x2"}};
  EXPECT_EQ(xb::comm::launcher_world_size(fake_getenv), 0);  // malformed: not trusted
}

int parse(const std::vector<std::string>& args, std::string& err_text) {
  xb::app::Context ctx;
  ctx.argv.push_back("xferbench");
  auto app = xb::app::make_app(ctx);
  std::ostringstream out, err;
  const int code = xb::app::parse_args(*app, ctx, args, out, err);
  err_text = err.str();
  return code;
}

TEST(FleetLaunch, BadFleetOptionsAreUsageErrors) {
  std::string err;
  EXPECT_EQ(parse({"run", "--fleet-threshold", "0"}, err), 2);
  EXPECT_NE(err.find("invalid --fleet-threshold '0'"), std::string::npos) << err;
  EXPECT_EQ(parse({"run", "--fleet-threshold", "100.5"}, err), 2);
  EXPECT_EQ(parse({"sweep", "--do", "0:HtoD", "--min", "1K", "--max", "2K", "--fleet-timeout", "-1"}, err), 2);
  EXPECT_NE(err.find("invalid --fleet-timeout '-1'"), std::string::npos) << err;
  EXPECT_EQ(parse({"run", "--fleet-threshold", "85", "--fail-on-outlier", "--fleet-timeout", "600"}, err), -1) << err;
}

}  // namespace

namespace {

// A signal to one node's measuring process stops every node of a fleet run
// at its next cell (comm::StopRelay through run_fleet): three nodes of 1, 2
// and 1 processes measure "cells" of 1 ms each until stopped; node b's
// leader is signalled before its fifth cell. Every node then reports what
// it has, rank 0 writes one file, and every process exits 143.
TEST(FleetLaunch, ASignalToOneNodeStopsEveryNodeAtItsNextCell) {
  const json doc = load("bench/results/2026-11-21-h200x2-full-run1.json");
  comm::InprocOptions w;
  w.hosts = {"a", "b", "b", "c"};
  w.size = 4;
  std::vector<FakeRank> ranks(4);
  std::mutex m;
  std::map<std::string, int> cells;
  std::map<int, int> codes;
  thread_local FakeRank* t_me = nullptr;

  app::FleetJob job;
  job.command = "run";
  job.out.file = ::testing::TempDir() + "fleet_stop.json";
  job.single = [] { return 99; };
  job.measure = [&]() -> fleet::NodeOutcome {
    // Cells of 1 ms until a stop; the 60 s bound only turns a relay that
    // never arrives into a failure (cell -1) instead of a hang.
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    int cell = 0;
    for (; std::chrono::steady_clock::now() < give_up; ++cell) {
      if (t_host == "b" && cell == 4) t_me->signal = SIGTERM;
      xb::throw_if_stopped();  // runs the relay's poll, as every measuring loop does
      if (t_me->signal != 0 || t_me->requested != 0) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    const bool stopped = t_me->signal != 0 || t_me->requested != 0;
    {
      std::lock_guard<std::mutex> lock(m);
      cells[t_host] = stopped ? cell : -1;
    }
    json mine = doc;  // what a run stopped by SIGTERM writes
    mine["status"] = "interrupted";
    mine["stop"] = {{"reason", "SIGTERM"}, {"message", "interrupted by SIGTERM"}, {"not_run", {"x[0,0]", "y[0,0]"}}};
    return {fleet::node_document(mine), stopped ? 143 : 0};
  };
  std::string printed;
  comm::run_ranks(w, [&](comm::Communicator& c) {
    t_host = c.host_name();
    t_me = &ranks[static_cast<std::size_t>(c.rank())];
    std::ostringstream out, err;
    const int code = app::run_fleet(c, job, {"xferbench", "run", "-o", "f.json"}, out, err, {}, t_me->hooks());
    std::lock_guard<std::mutex> lock(m);
    codes[c.rank()] = code;
    if (c.rank() == 0) printed = out.str();
  });
  EXPECT_EQ(cells["b"], 4);
  EXPECT_GE(cells["a"], 0);  // stopped, by the relay
  EXPECT_GE(cells["c"], 0);
  EXPECT_EQ(ranks[0].requested, SIGTERM);
  EXPECT_EQ(ranks[3].requested, SIGTERM);
  EXPECT_EQ(ranks[1].requested, 0);  // the signalled leader needs no relay
  EXPECT_EQ(ranks[2].requested, 0);  // nor does a rank that does not measure
  for (const auto& [rank, code] : codes) EXPECT_EQ(code, 143) << "rank " << rank;
  EXPECT_EQ(codes.size(), 4u);
  std::ifstream file(job.out.file);
  ASSERT_TRUE(file) << "no fleet file";
  const json f = json::parse(file);
  ASSERT_EQ(f["nodes"].size(), 3u);
  EXPECT_EQ(f["status"], "interrupted");
  for (const auto& [name, node] : f["nodes"].items()) EXPECT_EQ(node["status"], "interrupted") << name;
  EXPECT_NE(printed.find("INTERRUPTED (exit 143): interrupted by SIGTERM, 2 not run"), std::string::npos) << printed;
  EXPECT_NE(printed.find("# INTERRUPTED: 3 nodes, 0 failed, 3 stopped before the end, "), std::string::npos) << printed;
}

}  // namespace
