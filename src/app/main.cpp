#include <chrono>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "app/cli.hpp"
#include "app/output.hpp"
#include "app/seed_names.hpp"
#include "comm/launch_env.hpp"

#ifdef XFERBENCH_HAVE_MPI
#include "app/mpi_errors.hpp"
#include "app/seed_args.hpp"
#endif

namespace {

int run_command_line(int argc, char** argv) {
  xb::app::Context ctx;
  ctx.argv.push_back(argv[0]);
  std::vector<std::string> args(argv + 1, argv + argc);
  // Under a seed tool's name (a symbolic link), behave as that tool.
  const xb::app::SeedTool tool = xb::app::seed_tool_of(argv[0]);
  if (tool != xb::app::SeedTool::none) {
    const int code = xb::app::run_seed_front_end(tool, ctx, args, std::cout, std::cerr);
    if (code >= 0) return code;
    ctx.argv.resize(1);
    args = xb::app::seed_command_line(tool, std::move(args));
  }
  auto app = xb::app::make_app(ctx);
  bool agreed = false;  // a multi-rank command under mpirun: rank 0 alone prints argument errors
#ifdef XFERBENCH_HAVE_MPI
  xb::app::add_pingpong_command(*app, ctx);
  xb::app::add_first_touch_command(*app, ctx);
  xb::app::add_fabric_command(*app, ctx);
  args = xb::app::normalize_seed_args(std::move(args));
  agreed = xb::app::rank_parse_errors_are_agreed(args);
#endif
  // Under mpirun or srun every process parses the same arguments: rank 0's
  // help or usage error is enough. pingpong and first-touch agree on the
  // exit code over MPI; the others just stay silent on the other ranks.
  std::ostringstream held;
  std::ostream silent(nullptr);
  const bool echo = xb::comm::launcher_world_rank(xb::comm::process_getenv) <= 0;
  std::ostream& err = agreed ? static_cast<std::ostream&>(held) : echo ? std::cerr : silent;
  const int code = xb::app::parse_args(*app, ctx, std::move(args), echo ? std::cout : silent, err);
#ifdef XFERBENCH_HAVE_MPI
  if (code > 0 && agreed) return xb::app::finish_with_agreed_parse_error(code, held.str());
#endif
  if (code > 0 && !echo) {
    // mpirun ends every process at the first nonzero exit: leave rank 0
    // the moment it needs to print the message.
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  if (code >= 0) return code;
  return xb::app::run_action(ctx, std::cerr);
}

}  // namespace

int main(int argc, char** argv) {
  // Every way out (help, a seed front end, an argument error, a command)
  // ends with standard output flushed and checked here, nowhere else.
  xb::app::watch_standard_output();
  return xb::app::finish_standard_output(run_command_line(argc, argv), std::cerr);
}
