#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli.hpp"

#ifdef XFERBENCH_HAVE_PINGPONG
#include "app/mpi_errors.hpp"
#include "app/seed_args.hpp"
#endif

int main(int argc, char** argv) {
  xb::app::Context ctx;
  ctx.argv.push_back(argv[0]);
  std::vector<std::string> args(argv + 1, argv + argc);
  auto app = xb::app::make_app(ctx);
  bool agreed = false;  // a multi-rank command under mpirun: rank 0 alone prints argument errors
#ifdef XFERBENCH_HAVE_PINGPONG
  xb::app::add_pingpong_command(*app, ctx);
  xb::app::add_first_touch_command(*app, ctx);
  args = xb::app::normalize_seed_args(std::move(args));
  agreed = xb::app::rank_parse_errors_are_agreed(args);
#endif
  std::ostringstream held;
  const int code =
      xb::app::parse_args(*app, ctx, std::move(args), std::cout, agreed ? static_cast<std::ostream&>(held) : std::cerr);
#ifdef XFERBENCH_HAVE_PINGPONG
  if (code > 0 && agreed) return xb::app::finish_with_agreed_parse_error(code, held.str());
#endif
  if (code >= 0) return code;
  return xb::app::run_action(ctx, std::cerr);
}
