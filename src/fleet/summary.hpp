// The fleet summary: the same values measured on many nodes, side by side,
// and the ones that fall behind their peers. Works on any node result that
// can be flattened into cells (test, group, cell, link, value): run, sweep
// and scenario records have extractors here (read_node_result); check's
// results are runs with their verdict.
//
// Statistics are per GPU group (the GPU model and count of a node, e.g.
// "2 x NVIDIA H200"): nodes with other GPUs are never compared with each
// other. Within a group, for each (test, group, link, unit): the minimum,
// median and maximum over every cell of every node, and as outliers the
// cells below `threshold` x that median (latency: above median / threshold).
// The median over all cells of all nodes is the fleet's typical value: one
// slow GPU of one node cannot move it, while comparing node medians would
// hide that GPU.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cases/sweep.hpp"
#include "fleet/node_result.hpp"
#include "fleet/per_node.hpp"
#include "records/result.hpp"

namespace xb::fleet {

struct FleetCell {
  std::string test;     // case name, sweep series or transfer label: a column of the fleet table
  std::string group;    // finer group inside the test: matrix name ("write1"), sweep size ("1048576 B")
  std::string cell;     // position inside the group: "[host,gpu1]"
  std::string link;     // "PCIe Gen5 x16", "NVLink x18"
  std::string unit;     // "GB/s" or "ns"
  bool lower_is_better = false;
  double value = 0;
  std::vector<std::string> gpus;  // GPUs the cell involves ("gpu1"), from its labels
  bool key = true;      // counts for the test's column in the table (sweeps: the largest size only)
};

struct NodeCells {
  std::string node;
  std::string gpu_group;
  std::vector<FleetCell> cells;
};

struct FleetStat {
  std::string gpu_group, test, group, link, unit;
  bool lower_is_better = false;
  int nodes = 0, cells = 0;
  double min = 0, median = 0, max = 0;
  std::string min_node, max_node;
};

struct Outlier {
  std::string node, gpu_group;
  FleetCell cell;
  double fleet_median = 0;
  double ratio = 0;  // value / fleet median
};

struct FleetSummary {
  double threshold = 0.9;
  std::vector<FleetStat> stats;
  std::vector<Outlier> outliers;
  std::vector<std::string> outlier_nodes;  // once each, in input order
};

// Pure; exact unit tests in tests/test_fleet_summary.cpp.
FleetSummary summarize_fleet(const std::vector<NodeCells>& nodes, double threshold);
bool is_outlier(double value, double median, bool lower_is_better, double threshold);

// The GPUs of a machine by model and count: "2 x NVIDIA H200",
// "1 x NVIDIA A100 + 1 x NVIDIA H100", or "no GPU".
std::string gpu_group_of(const System& sys);

// Cells of a result. Cells whose data verification failed are left out:
// their value means nothing.
std::vector<FleetCell> cells_of(const RunResult& run);
std::vector<FleetCell> cells_of(const SweepResult& sweep);

// What the fleet reads of a node's result.
struct NodeResult {
  std::string gpu_group;  // "" for a node without a result
  std::vector<FleetCell> cells;
  std::string failure;    // the first failed case ("name: message") or message; "" if none
  std::string stopped;    // why an incomplete result stopped: "interrupted by SIGTERM, 28 not run"
  std::string status;     // the result's own: passed, failed, interrupted or partial
};
// What the fleet reads of a record; Error(usage) for a scenario that was
// not measured (it has no figures to compare).
NodeResult read_node_result(const ResultRecord& r);

// A fleet: every node's record plus the summary, as reporters read it.
struct FleetNode : NodeResult {
  NodeRecord record;
  ResultRecord result;    // decoded once from record.document (fleet/node_json.hpp); none for an error
  std::string key;        // unique name: the host name, "host/rankN" when a host name repeats
};

struct Fleet {
  std::string command;                // "run", "sweep"
  std::vector<std::string> command_line;
  std::string start_time_utc;
  double wall_seconds = 0;
  int processes = 0;
  bool fail_on_outlier = false;
  std::vector<FleetNode> nodes;
  std::string main_gpu_group;         // the group with the most nodes
  FleetSummary summary;
  int exit_code = 0;
};

// A node's status: error (no result), passed, interrupted (a signal or an
// unusable GPU stopped it: its result keeps what it measured), partial
// (--time-limit or memory left cells out, nothing failed), failed.
std::string node_status(const FleetNode& n);
// The fleet's, from its exit code: passed, interrupted (130 / 143),
// partial (10), failed.
std::string fleet_status(int exit_code);

// Builds the fleet from gathered records (summary, keys, exit code).
Fleet build_fleet(std::vector<NodeRecord> records, double threshold, bool fail_on_outlier);

// A fleet as one measurement, for the one exit rule (records/completion.hpp
// ending()): a node stopped by a signal interrupts it; else the nodes that
// did not pass, when they all ended the same way (3: no GPU is the error
// no_device, 10 is partial, 1 a failure, ...), end it that way; else, or
// with a node out of range, it failed (1); so do outliers when
// fail_on_outlier holds, and no node at all when `nodes_required` (check:
// every node must pass, and there must be one).
struct FleetEnding {
  Completion completion;
  std::optional<ErrorKind> failure;
};
FleetEnding fleet_ending(const std::vector<FleetNode>& nodes, const FleetSummary& s, bool fail_on_outlier,
                         bool nodes_required = false);
// The exit code of a launch, the same rule for one node and a fleet, for
// run, sweep and check (README "Exit codes"): ending(fleet_ending(...)).
int fleet_exit_code(const std::vector<FleetNode>& nodes, const FleetSummary& s, bool fail_on_outlier,
                    bool nodes_required = false);

}  // namespace xb::fleet
