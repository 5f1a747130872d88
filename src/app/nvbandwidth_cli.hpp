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
// program (help, version, a bad value: one line on `err`, exit 2), or -1
// when `inv` is ready to run. Defaults as nvbandwidth: every one of its 35
// cases, 512 MiB, the median of at least 3 samples. A -t name or index that
// names no case: one line on `err` now, nvbandwidth's "ERROR: Testcase NAME
// not found!" (-j: a "Not Found" entry) where it was listed
// (inv.print.not_found), and the other cases are measured; when no case is
// left, the ERROR lines (-j: the JSON) on `out` now and exit 2, no GPU touched.
int parse_nvbandwidth(const std::vector<std::string>& args, NvbInvocation& inv, std::ostream& out, std::ostream& err);

// The exit code of a run of `inv` whose measured cases ended with
// `run_code`: with an unknown case 2 (bad input), unless a signal stopped
// the run (130, 143); without one, `run_code`.
int nvb_exit_code(const NvbInvocation& inv, int run_code);

// Runs a parsed invocation, printing nvbandwidth's text or JSON on stdout
// (defined in cmd_run.cpp, with run's own path).
int run_nvbandwidth(const NvbInvocation& inv, const Context& ctx);

}  // namespace xb::app
