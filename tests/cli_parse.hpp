// Parses an xferbench command line in-process, as main() would, without
// running the selected action: tests see the exit code parsing decided
// (-1: run the action), what went to stdout/stderr, whether an action was
// selected, the subcommand that was, and the request it will carry out.
#pragma once

#include <any>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli.hpp"

struct Parsed {
  int code = -1;
  std::string out, err;
  bool has_action = false;
  std::string command;  // the selected subcommand ("" for none)
  std::any plan;        // Context::plan
};

inline Parsed parse(std::vector<std::string> args, void (*extra)(CLI::App&, xb::app::Context&) = nullptr) {
  xb::app::Context ctx;
  ctx.argv = {"xferbench"};
  auto app = xb::app::make_app(ctx);
  if (extra) extra(*app, ctx);
  std::ostringstream out, err;
  const int code = xb::app::parse_args(*app, ctx, std::move(args), out, err);
  std::string command;
  for (const CLI::App* sub : app->get_subcommands()) command = sub->get_name();
  return {code, out.str(), err.str(), static_cast<bool>(ctx.action), command, ctx.plan};
}
