// Running under a seed tool's name. Invoked as nvbandwidth, bwtest, cuts or
// gpudirect_p2p_overalloc (the basename of argv[0], e.g. a symbolic link
// that 'cmake --install' makes with -DXFERBENCH_INSTALL_SEED_NAMES=ON), the
// binary takes that tool's options and defaults and prints its output, so
// scripts and parsers written for the tool keep working.
//
// nvbandwidth and bwtest have their own parsers here (their options do not
// fit an xferbench command: nvbandwidth's -h is help, bwtest's --list lists
// devices); cuts and gpudirect_p2p_overalloc are 'xferbench cuts' and
// 'xferbench first-touch' with the tool's own output format.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "app/cli.hpp"  // SeedTool

namespace xb::app {

// Handles what the tool does not share with an xferbench command: the whole
// of nvbandwidth and bwtest, and --version for all four. Returns the exit
// code, or -1 when the program goes on as seed_command_line() says.
int run_seed_front_end(SeedTool tool, Context& ctx, const std::vector<std::string>& args, std::ostream& out,
                       std::ostream& err);

// The xferbench command line that cuts and gpudirect_p2p_overalloc are:
// 'cuts --format cuts ARGS' and 'first-touch --format seed ARGS' (an explicit
// --format/-j in ARGS wins). Other tools: ARGS unchanged.
std::vector<std::string> seed_command_line(SeedTool tool, std::vector<std::string> args);

}  // namespace xb::app
