// An xferbench command line run in-process, as main() runs it: parse, then
// the action, with stdout captured and the sample source the test gives
// (a FakeSource: no GPU needed).
#pragma once

#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "app/cli.hpp"

struct InProcessRun {
  int code = -1;
  std::string out, err;
};

// Parses `args` with `app` (made from `ctx`) and runs the action, stdout
// captured.
inline InProcessRun run_parsed(CLI::App& app, xb::app::Context& ctx, std::vector<std::string> args) {
  std::ostringstream out, err;
  InProcessRun r;
  r.code = xb::app::parse_args(app, ctx, std::move(args), out, err);
  if (r.code < 0) {
    std::streambuf* old = std::cout.rdbuf(out.rdbuf());
    r.code = xb::app::run_action(ctx, err);
    std::cout.rdbuf(old);
  }
  r.out = out.str();
  r.err = err.str();
  return r;
}

// `setup` fills in what else the test fakes (clocks, NVML) before parsing.
inline InProcessRun run_in_process(std::vector<std::string> args, xb::SourceFactory open_source,
                                   const std::function<void(xb::app::Context&)>& setup = {}) {
  xb::app::Context ctx;
  ctx.argv = {"xferbench"};
  ctx.open_source = std::move(open_source);
  if (setup) setup(ctx);
  auto app = xb::app::make_app(ctx);
  return run_parsed(*app, ctx, std::move(args));
}
