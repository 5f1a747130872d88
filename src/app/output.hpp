// Where results go: a format on stdout and optionally a file whose format
// follows its extension (.csv -> CSV, anything else -> JSON).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace xb::app {

struct OutputOptions {
  std::string format = "text";  // stdout: text | json | csv
  std::string file;             // --output FILE
  bool file_is_csv() const;
};

// Adds --format/-j/--output to a subcommand; `extra_formats` are further
// --format values that subcommand understands.
void add_output_options(CLI::App& cmd, OutputOptions& out, bool allow_csv = true,
                        const std::vector<std::string>& extra_formats = {});

// Checks that the output file can be written (report::check_output_file:
// not a directory, its directory takes new files), before any GPU or MPI
// work, so a long run never ends in "cannot write". Throws Error(io).
void check_output_writable(const OutputOptions& out);

}  // namespace xb::app
