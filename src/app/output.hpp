// Where results go: a format on stdout and optionally a file whose format
// follows its extension (.csv -> CSV, anything else -> JSON), or is
// Prometheus text with --format prometheus (then stdout shows text);
// report::Outputs makes the reporters for them.
#pragma once

#include <functional>
#include <ostream>
#include <string>

#include <CLI/CLI.hpp>

#include "report/reporter.hpp"

namespace xb::app {

struct OutputOptions {
  std::string format = "text";  // stdout: text | json | csv | a command's own (prometheus, ...)
  std::string file;             // --output FILE
  std::string metrics_detail = "summary";  // --metrics-detail (commands with --format prometheus)
};

// Adds --format/-j/--output to a subcommand; `extra_formats` are further
// --format values that subcommand understands.
void add_output_options(CLI::App& cmd, OutputOptions& out, bool allow_csv = true,
                        const std::vector<std::string>& extra_formats = {});

// The reporters' options these outputs ask for (--metrics-detail).
report::ReportOptions report_options(const OutputOptions& out);

// Runs a single node's `command` ("run" or "check"). When it fails before
// it has a result (no GPU or driver, a CUDA, NVML, memory, MPI or timeout
// error) and --format prometheus was asked for, the metrics say so before
// the error goes on: xferbench_up 0 with the reason, the exit code, check's
// verdict 0 and the last success carried over (never the old file's PASS).
int with_unmeasured_metrics(const OutputOptions& out, const std::string& command, const std::function<int()>& body);

// Checks that the output file can be written (report::check_output_file:
// not a directory, its directory takes new files, a FIFO has a reader
// within 10 s and stays open for the write), before any GPU or MPI work,
// so a long run never ends in "cannot write" or waits for ever. Throws
// Error(io).
void check_output_writable(const OutputOptions& out);

// Standard output, for every command and the seed front ends, checked in
// one place (main): call watch_standard_output() before anything is
// printed, and pass the exit code through finish_standard_output() at the
// end. A closed descriptor 0, 1 or 2 is held by /dev/null opened read-only,
// so no file the command opens lands there and every write to it fails.
void watch_standard_output();
// Flushes std::cout and stdout. When a write to standard output failed,
// prints "xferbench: error: cannot write to standard output: CAUSE" on
// `err` and returns 7 in place of a code that says the command ran (0, 1,
// 10: its result is lost); other codes already name an earlier failure and
// stay. A reader that closed the pipe ends the process by SIGPIPE before
// this, as for any filter.
int finish_standard_output(int code, std::ostream& err);

}  // namespace xb::app
