// Contract between main() and the subcommands. Each subcommand lives in its
// own cmd_<name>.cpp and registers itself on the root CLI11 app; when CLI11
// selects it, its callback stores the work to do in `action`. main() runs
// the action after parsing, so every argument error is reported before any
// GPU is touched, and maps xb::Error kinds to exit codes in one place.
#pragma once

#include <any>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/exit_codes.hpp"  // set_exit_code_footer: every command's --help
#include "measure/sample_source.hpp"

namespace xb::comm {
class Communicator;
}
namespace xb {
class NvmlQueries;
}

namespace xb::app {

// Returns the process exit code (0 success, 1 a measurement failed, ...).
using Action = std::function<int()>;

struct Context {
  std::vector<std::string> argv;  // the full command line, for JSON output
  Action action;                  // set by the selected subcommand
  // What the action will do, as the validated request it carries out
  // (ScenarioPlan, RunRequest, firsttouch::Options), so tests read what a
  // command line means without running it. Empty for commands that need
  // no request (list, cases, compare, plot).
  std::any plan;
  bool quiet = false;             // --quiet: no progress on stderr
  // Where run and sweep get their samples: empty = this machine's GPUs
  // (open_gpu_source); tests install a fake source here.
  SourceFactory open_source;
  // The processes of a launch, for run, sweep and check: null = MPI when a
  // launcher started several; tests install in-process ranks here.
  comm::Communicator* launch = nullptr;
  // Soaks (soak, check --soak): their clocks, monotonic seconds and UTC
  // seconds since the epoch (empty: the real clocks; tests plant hours
  // without waiting), and their NVML (empty: the driver's, none where it
  // cannot load).
  std::function<double()> steady_s, utc_s;
  std::function<std::shared_ptr<NvmlQueries>()> open_nvml;
};

// Ends a subcommand's setup, after its options and footer: the exit codes
// in its --help, empty option values refused, `callback` run when chosen.
void finish_command(CLI::App& cmd, std::function<void()> callback);

void add_list_command(CLI::App& root, Context& ctx);
void add_cases_command(CLI::App& root, Context& ctx);
void add_run_command(CLI::App& root, Context& ctx);
void add_sweep_command(CLI::App& root, Context& ctx);
void add_plot_command(CLI::App& root, Context& ctx);
void add_compare_command(CLI::App& root, Context& ctx);
void add_cuts_command(CLI::App& root, Context& ctx);
void add_check_command(CLI::App& root, Context& ctx);
void add_soak_command(CLI::App& root, Context& ctx);
// Defined only when MPI support is built (XFERBENCH_HAVE_MPI).
void add_pingpong_command(CLI::App& root, Context& ctx);
void add_first_touch_command(CLI::App& root, Context& ctx);
void add_fabric_command(CLI::App& root, Context& ctx);

}  // namespace xb::app
