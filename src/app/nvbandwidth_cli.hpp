// xferbench as nvbandwidth: nvbandwidth's command line (its options, their
// defaults, its case selection and its error lines) turned into a
// RunRequest, run as 'xferbench run --format nvbandwidth|nvbandwidth-json'
// runs one (app/cmd_run.cpp).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "app/command.hpp"
#include "app/run_options.hpp"
#include "cases/runner.hpp"
#include "report/nvbandwidth.hpp"
#include "report/reporter.hpp"

namespace xb::app {

// A parsed nvbandwidth command line.
struct NvbInvocation {
  bool list = false;                  // -l/--list
  bool json = false;                  // -j/--json
  report::NvbOptions print;           // -v, --perfFormatter
  RunOptions options;                 // what the nvbandwidth options set, in xferbench's terms
  RunRequest request;                 // the cases and measurement to run
  std::vector<const CaseDef*> listed; // what --list prints: the cases a default run runs
};

// Parses nvbandwidth's options. Returns the exit code when parsing ends the
// program (help, version, an unknown case: nvbandwidth's "ERROR: Testcase
// NAME not found!" on `out`, exit 2; any other bad value: one line on `err`,
// exit 2), or -1 when `inv` is ready to run. Defaults as nvbandwidth: every
// one of its 35 cases, 512 MiB, the median of at least 3 samples.
int parse_nvbandwidth(const std::vector<std::string>& args, NvbInvocation& inv, std::ostream& out, std::ostream& err);

// Runs a parsed invocation, printing nvbandwidth's text or JSON on stdout
// (defined in cmd_run.cpp, with run's own path).
int run_nvbandwidth(const NvbInvocation& inv, const Context& ctx);

}  // namespace xb::app
