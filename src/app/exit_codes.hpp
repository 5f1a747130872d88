// The exit-code table: the one place that says which codes xferbench
// returns, what each means, and which commands can return it. Every
// command's --help footer and the README's "Exit codes" table are built
// from (or checked against, tests/test_exit_codes.cpp) this table, so they
// cannot drift apart. The codes themselves come from xb::exit_code()
// (base/error.hpp) and the stop codes (base/stop.hpp).
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace xb::app {

struct ExitCode {
  int code;
  std::string meaning;                // the README's "meaning" column, and the root --help
  std::vector<std::string> commands;  // the commands that can return it (kExitCommands order)
};

// Every command with its own --help: the subcommands, then the seed front
// ends with their own parsers (cuts and gpudirect_p2p_overalloc are the
// 'cuts' and 'first-touch' commands, help included).
const std::vector<std::string>& exit_code_commands();

// The whole table, by code.
const std::vector<ExitCode>& exit_code_table();

// One command's codes, each with what it means for that command (e.g. 1 is
// "FAIL" for check, "a regression" for compare). `command` as in
// exit_code_commands(), or "xferbench" for the root (every code, general
// meanings). Empty for an unknown command.
std::vector<std::pair<int, std::string>> exit_codes_of(const std::string& command);

// The README's "commands" column for one row: "every command", or the
// command names joined by ", ".
std::string exit_code_commands_cell(const ExitCode& row);

// Appends the command's exit codes to its --help footer (after the text its
// own footer() call set; call it after that). The command is named by
// cmd.get_name(): "xferbench" (the root app) gets the whole table.
void set_exit_code_footer(CLI::App& cmd);

}  // namespace xb::app
