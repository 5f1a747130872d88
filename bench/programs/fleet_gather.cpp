// Times the fleet machinery for many simulated nodes on one CPU machine:
// the election, gathering every node's full run result to rank 0, the
// fleet summary and its JSON and text. Ranks are threads of this process
// (the in-process communicator), each node's "measurement" returns a
// recorded H200 x2 full run at once, so what is timed is the mechanism:
// messages, CBOR encoding and decoding, statistics, rendering.
//
// usage: fleet_gather_bench NODES [RANKS_PER_NODE] [RUN.json]
// Built as the fleet_gather_bench target; results in bench/results/.
#include <sys/resource.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>

#include <fmt/format.h>

#include "comm/inproc_comm.hpp"
#include "fleet/node_json.hpp"
#include "fleet/per_node.hpp"
#include "fleet/summary.hpp"
#include "report/reporter.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using json = nlohmann::json;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

struct Times {
  double election = 0, gather = 0, summary = 0, json_s = 0, text_s = 0, finish = 0;
  std::size_t json_bytes = 0, cells = 0, outliers = 0;
};

Times run(int nodes, int ranks_per_node, const json& record) {
  xb::comm::InprocOptions w;
  for (int n = 0; n < nodes; ++n)
    for (int i = 0; i < ranks_per_node; ++i) w.hosts.push_back(fmt::format("node{:04}", n));
  w.size = static_cast<int>(w.hosts.size());
  Times t;
  xb::comm::run_ranks(w, [&](xb::comm::Communicator& c) {
    auto t0 = Clock::now();
    xb::fleet::Session s(c, {});
    if (c.rank() == 0) t.election = since(t0);
    t0 = Clock::now();
    auto records = s.gather([&] { return xb::fleet::NodeOutcome{xb::fleet::node_document(record), 0}; });
    if (c.rank() != 0) {
      s.finish(0);
      return;
    }
    t.gather = since(t0);
    t0 = Clock::now();
    const xb::fleet::Fleet f = xb::fleet::build_fleet(std::move(records), 0.9, false);
    t.summary = since(t0);
    t0 = Clock::now();
    t.json_bytes = xb::report::fleet_json(f).dump(2).size();
    t.json_s = since(t0);
    t0 = Clock::now();
    const std::string text = xb::report::fleet_text(f);
    t.text_s = since(t0);
    for (const auto& n : f.nodes) t.cells += n.cells.size();
    t.outliers = f.summary.outliers.size();
    t0 = Clock::now();
    s.finish(0);
    t.finish = since(t0);
  });
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: fleet_gather_bench NODES [RANKS_PER_NODE] [RUN.json]\n";
    return 2;
  }
  const int nodes = std::atoi(argv[1]);
  const int per_node = argc > 2 ? std::atoi(argv[2]) : 1;
  const std::string path =
      argc > 3 ? argv[3] : std::string(XFERBENCH_SOURCE_DIR) + "/bench/results/2026-11-21-h200x2-full-run1.json";
  if (nodes < 1 || per_node < 1) {
    std::cerr << "fleet_gather_bench: NODES and RANKS_PER_NODE must be 1 or more\n";
    return 2;
  }
  std::ifstream f(path);
  if (!f) {
    std::cerr << "fleet_gather_bench: cannot read '" << path << "'\n";
    return 7;
  }
  std::stringstream text;
  text << f.rdbuf();
  const json record = json::parse(text.str());
  // What rank 0 alone spends on the wire format of every record.
  auto t0 = Clock::now();
  for (int n = 0; n < nodes; ++n) {
    const std::vector<std::uint8_t> cbor = json::to_cbor(record);
    if (json::from_cbor(cbor).size() != record.size()) return 70;
  }
  const double codec = since(t0);
  t0 = Clock::now();
  const Times t = run(nodes, per_node, record);
  const double total = since(t0);
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  fmt::print("# fleet_gather_bench: {} nodes x {} ranks ({} threads), node record {:.0f} KiB of JSON ({})\n", nodes,
             per_node, nodes * per_node, static_cast<double>(record.dump().size()) / 1024, path);
  fmt::print("{:<28} {:>10}\n", "phase (rank 0)", "seconds");
  fmt::print("{:<28} {:>10.3f}\n", "election", t.election);
  fmt::print("{:<28} {:>10.3f}\n", "gather all node records", t.gather);
  fmt::print("{:<28} {:>10.3f}\n", "  (CBOR encode+decode alone)", codec);
  fmt::print("{:<28} {:>10.3f}\n", "fleet summary", t.summary);
  fmt::print("{:<28} {:>10.3f}\n", "fleet JSON", t.json_s);
  fmt::print("{:<28} {:>10.3f}\n", "fleet text table", t.text_s);
  fmt::print("{:<28} {:>10.3f}\n", "final status to all ranks", t.finish);
  fmt::print("{:<28} {:>10.3f}\n", "total incl. thread start", total);
  fmt::print("# {} cells compared, {} outliers, fleet JSON {:.1f} MiB, peak RSS {:.0f} MiB\n", t.cells, t.outliers,
             static_cast<double>(t.json_bytes) / (1 << 20), static_cast<double>(u.ru_maxrss) / 1024);
  return 0;
}
