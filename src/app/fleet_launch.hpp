// The hook that makes a measuring command launcher-aware (docs/fleet.md).
// Started by mpirun or srun with several processes, `run`, `sweep` and
// `check` measure each node once (its first process), the other processes wait
// without touching a GPU, and rank 0 prints and writes one result: with a
// single node exactly what a single-process run prints and writes, with
// several nodes a fleet (a row per node, outliers against the fleet
// median). Not launched, or launched as one process: the command as usual.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "app/command.hpp"
#include "app/output.hpp"
#include "app/run_options.hpp"
#include "comm/communicator.hpp"
#include "comm/stop_relay.hpp"
#include "base/fault.hpp"
#include "cases/runner.hpp"
#include "base/time_budget.hpp"
#include "fleet/per_node.hpp"
#include "fleet/summary.hpp"

namespace xb::app {

struct FleetOptions {
  double threshold_pct = 90;   // --fleet-threshold: percent of the fleet median
  bool fail_on_outlier = false;
  double timeout_s = 3600;     // --fleet-timeout: longest a node's measurement may take
};

// Adds --fleet-threshold, --fail-on-outlier and --fleet-timeout.
void add_fleet_options(CLI::App& cmd, FleetOptions& o);
// Adds --fleet-timeout alone (check, which judges nodes by its own rule).
CLI::Option* add_fleet_timeout_option(CLI::App& cmd, double& timeout_s);
// Throw Error(usage) naming the bad value and its option (`name`, as typed).
void check_fleet_options(const FleetOptions& o);
void check_fleet_timeout(double timeout_s, const std::string& name);

// What a node of a fleet measures under, as a single-process run would:
// --time-limit counted from the process's start and the fault hook
// (XFERBENCH_FAULT, for this world rank). (run_fleet installs the stop
// relay's poll: base/stop.hpp StopPoll.)
class NodeControls {
 public:
  explicit NodeControls(double time_limit_s);
  RunControls controls() { return RunControls{&budget_, &faults_, nullptr}; }

 private:
  TimeBudget budget_;
  FaultPlan faults_;
};

// A node's result document (as its command's codec wrote it) and exit
// code; a node stopped by a signal (its own or a relayed one) then waits
// for the other nodes instead of giving up on them.
fleet::NodeOutcome node_outcome(const nlohmann::json& result, StopReason stop, int exit_code);

struct FleetJob {
  std::string command;          // "run", "sweep": recorded in the fleet file
  OutputOptions out;
  FleetOptions options;
  std::function<int()> single;  // the ordinary single-process command: prints, writes, returns the exit code
  fleet::MeasureNode measure;   // measures this node silently, returns its result document;
                                // empty: the command measures nothing, rank 0 runs `single` alone
  // Rank 0, several nodes: prints and writes the fleet (its command, times
  // and exit code filled in) and returns the exit code; empty: the fleet
  // table, JSON or CSV and the -o file, as for run and sweep.
  std::function<int(fleet::Fleet&, std::ostream&)> publish = {};
};

// The one call a command makes: its single-process path, or one
// measurement per node when a launcher started several processes.
int run_single_or_per_node(const Context& ctx, const FleetJob& job);

// The multi-process part, on any communicator (tests use the in-process
// one). Only rank 0 writes to `out`; every rank returns the same code.
// With several nodes, a signal to one node's measuring process stops every
// node's at its next sample (comm::StopRelay; `relay_hooks` are for tests).
int run_fleet(comm::Communicator& comm, const FleetJob& job, const std::vector<std::string>& argv, std::ostream& out,
              std::ostream& err, fleet::Options session_options = {}, comm::StopRelay::Hooks relay_hooks = {});

// Measures a concurrent scenario on this node without printing (defined in
// cmd_cuts.cpp next to execute_scenario).
fleet::NodeOutcome measure_scenario_node(const ScenarioPlan& plan);

}  // namespace xb::app
