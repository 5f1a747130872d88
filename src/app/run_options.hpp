// Options of 'xferbench run' and their validation into a RunRequest (named
// cases) or a ScenarioPlan (concurrent transfers: --do specs or CUts flags).
// Pure: no GPU is touched, so every argument error is reported first.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/command.hpp"
#include "app/interrupt.hpp"
#include "app/output.hpp"
#include "cases/runner.hpp"
#include "frontends/spec.hpp"

namespace xb::app {

// Concurrent transfers, as typed: multi-gpu-bwtest --do specs or CUts flags.
struct ConcurrentOptions {
  std::vector<std::string> specs;             // --do (repeatable)
  std::string streams;                        // --streams; empty: per-transfer
  std::vector<std::string> htod, dtoh, dtod;  // CUts flags
  std::vector<Direction> order;               // kind of each CUts flag, in command-line order
  std::string iterations;                     // CUts: copies per sample (default 100)
  std::string size;                           // CUts: bytes per copy (default 1 GiB)
  bool no_numa_affinity = false;              // CUts -n
  bool any_transfer() const { return !specs.empty() || !htod.empty() || !dtoh.empty() || !dtod.empty(); }
};

// The CUts flag options of one subcommand, to recover their command-line
// order after parsing (CLI11 keeps one list per option).
struct CutsFlagOptions {
  CLI::Option* htod = nullptr;
  CLI::Option* dtoh = nullptr;
  CLI::Option* dtod = nullptr;
};
// Fills o.order from the subcommand's parse order.
void record_cuts_order(const CLI::App& cmd, const CutsFlagOptions& flags, ConcurrentOptions& o);

struct RunOptions {
  std::vector<std::string> testcases;  // names or indices
  std::vector<std::string> prefixes;
  std::string suite;                   // quick (default) | full | all
  std::string buffer_mib;              // -b: MiB, as nvbandwidth
  std::string buffer_size;             // --buffer-size: bytes with suffixes
  int samples = -1;                    // -i: fixed sample count (-1 = adaptive)
  int min_samples = 3, max_samples = 40;
  double target_error_pct = 0.5;
  double budget_s = 3.0;
  double sample_ms = 20.0;
  int copies = 0;
  double gate_timeout_s = 10.0;
  bool mean = false, skip_verification = false, disable_affinity = false, list = false;
  std::string sm_config;               // --sm-config BLOCKS_PER_SM,THREADS,UNROLL[,streaming]
  bool sm_launch_per_copy = false;     // --sm-launch-per-copy
  bool no_nvbandwidth_way = false;     // --no-nvbandwidth-way
  std::string drift_check = "auto";    // --drift-check on|off|auto
  double drift_tolerance_pct = 2.0;    // --drift-tolerance
  std::string max_memory;              // --max-memory GPU,HOST
  OutputOptions out;
  std::string nvbandwidth_version;     // --nvbandwidth-version 0.8|0.10 (empty: 0.10), --format nvbandwidth's layout
  StopOptions stop;                    // --time-limit, --resume
  ConcurrentOptions concurrent;
  CutsFlagOptions cuts_flags;
  // Set by nvbandwidth's spellings (add_nvbandwidth_spellings): -v prints
  // per-sample lines; -H sets host_mem, -P sample_pairs.
  bool verbose = false;
  // nvbandwidth v0.9/v0.10 additions (docs/dry_run.md, docs/design.md):
  std::string host_mem;                // --host-mem pinned|hugepages, -H (empty: pinned)
  std::vector<std::string> pairs;      // --pair A,B (repeatable)
  int sample_pairs = 0;                // --sample-pairs N, -P N (0: every pair, as nvbandwidth's -1)
  std::string seed;                    // --seed S for --sample-pairs (empty: 1)
  bool dry_run = false;                // --dry-run
  std::string topology;                // --topology FILE (with --dry-run)
};

void add_run_options(CLI::App& cmd, RunOptions& opts);

// --max-memory GPU,HOST: two sizes with K/M/G/T suffixes ("8G,16G").
// Throws Error(usage) naming the text.
MemoryLimit parse_max_memory(const std::string& text);
// nvbandwidth's names for run options (--bufferSize, --testSamples,
// --useMean, --loopCount = --copies, ...), -v/--verbose, -H and -P.
// Defined in run_spellings.cpp.
void add_nvbandwidth_spellings(CLI::App& cmd, RunOptions& opts);

// The cases -t, -p or --suite name (Error(usage) for a mix of them), or
// `fallback` when none is given (run: the quick suite).
std::vector<const CaseDef*> named_cases(const std::vector<std::string>& testcases,
                                        const std::vector<std::string>& prefixes, const std::string& suite,
                                        const std::function<std::vector<const CaseDef*>()>& fallback);

// Named cases. Throws Error(usage) naming the bad value, also for options
// that only apply to concurrent transfers (--streams, --size, ...).
RunRequest build_request(const RunOptions& opts, const std::vector<std::string>& command_line);

// A concurrent scenario, parsed but not expanded (that needs the GPU count).
struct ScenarioPlan {
  std::vector<TransferRequest> requests;
  StreamMode streams = StreamMode::per_transfer;
  std::string front_end;  // "bwtest" (--do) or "cuts"
  MeasureOptions measure;
  std::vector<std::string> command_line;
  StopOptions stop;        // --time-limit, --resume (validated)
};

// Throws Error(usage) quoting the offending text: a bad spec or flag, named
// cases mixed with transfers, --do mixed with CUts flags, options that do
// not apply. CUts semantics: --iterations = copies per sample (default
// 100), --size = bytes per copy (default 1 GiB), one sample unless -i
// or --samples is given.
ScenarioPlan build_scenario_plan(const RunOptions& opts, const std::vector<std::string>& command_line);

// Discovers the GPUs, expands and checks the plan, measures it and reports
// (CUts' own lines first when front_end is "cuts"). Defined in cmd_cuts.cpp.
int execute_scenario(const ScenarioPlan& plan, const OutputOptions& out, const Context& ctx);

}  // namespace xb::app
