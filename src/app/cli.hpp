// Builds the xferbench command line. Kept apart from main() so tests parse
// argument vectors without starting a process or touching a GPU.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/command.hpp"
#include "base/error.hpp"

namespace xb::app {

std::unique_ptr<CLI::App> make_app(Context& ctx);

// Parses `args` (without the program name). Returns the exit code to use
// when parsing itself ends the program (help, version, a usage error), or
// -1 when ctx.action is ready to run. Messages go to `out` / `err`.
int parse_args(CLI::App& app, Context& ctx, std::vector<std::string> args, std::ostream& out, std::ostream& err);

// Runs ctx.action, mapping xb::Error to its documented exit code with a
// one-line "xferbench: error: ..." message on `err`.
int run_action(Context& ctx, std::ostream& err);

// Parses a seed tool's own command line (nvbandwidth, bwtest). Returns the
// exit code when parsing ends the program: 0 after the help on `out`, 2
// after "TOOL (xferbench): error: ..." on `err`; -1 when it goes on.
int parse_seed_app(CLI::App& app, const std::vector<std::string>& args, const char* tool, std::ostream& out,
                   std::ostream& err);

// What follows an error's message on its line: for no GPU, the commands
// that work without one; empty for other kinds.
const char* error_hint(ErrorKind kind) noexcept;

// Whether progress lines may be drawn on stderr (a terminal, not --quiet).
bool progress_enabled(const Context& ctx);

// Running under a seed tool's name (app/seed_names.hpp): which one argv[0]
// names and what --version then says.
enum class SeedTool { none, nvbandwidth, bwtest, cuts, overalloc };

// From argv[0]: its basename, exactly one of the four names; none otherwise.
SeedTool seed_tool_of(const std::string& argv0);
const char* seed_tool_name(SeedTool tool);  // "nvbandwidth", ...; "xferbench" for none

// What --version prints: xferbench's version, and under a seed name what
// that means (whose options and output it gives).
std::string version_text(SeedTool tool);

}  // namespace xb::app
