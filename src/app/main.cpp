#include <chrono>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "app/cli.hpp"
#include "comm/launch_env.hpp"
#include "app/seed_names.hpp"

#ifdef XFERBENCH_HAVE_PINGPONG
#include "app/mpi_errors.hpp"
#include "app/seed_args.hpp"
#endif

int main(int argc, char** argv) {
  xb::app::Context ctx;
  ctx.argv.push_back(argv[0]);
  std::vector<std::string> args(argv + 1, argv + argc);
  // Under a seed tool's name (a symbolic link), behave as that tool.
  const xb::app::SeedTool tool = xb::app::seed_tool_of(argv[0]);
  if (tool != xb::app::SeedTool::none) {
    const int code = xb::app::run_seed_front_end(tool, ctx, args, std::cout, std::cerr);
    if (code >= 0) return code;
  return xb::app::run_action(ctx, std::cerr);
}
