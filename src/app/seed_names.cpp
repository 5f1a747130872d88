#include "app/seed_names.hpp"

#include <algorithm>
#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "app/cli.hpp"
#include "app/nvbandwidth_cli.hpp"
#include "app/run_options.hpp"
#include "app/validators.hpp"
#include "base/error.hpp"
#include "machine/topology.hpp"
#include "report/reporter.hpp"

namespace xb::app {
namespace {

int nvbandwidth_main(Context& ctx, const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  auto inv = std::make_shared<NvbInvocation>();
  const int code = parse_nvbandwidth(args, *inv, out, err);
  if (code >= 0) return code;
  ctx.quiet = true;  // nvbandwidth draws no progress line
  ctx.action = [inv, &ctx]() { return run_nvbandwidth(*inv, ctx); };
  return run_action(ctx, err);
}

// multi-gpu-bwtest's options: --do (repeatable), --streams, --list, --help.
int bwtest_main(Context& ctx, const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  auto opts = std::make_shared<RunOptions>();
  bool list = false;
  CLI::App app(fmt::format("bwtest: xferbench {} with multi-gpu-bwtest's options and output: concurrent host <-> GPU "
                           "copies, one stream per transfer by default", XFERBENCH_VERSION),
               "bwtest");
  app.add_option("--do", opts->concurrent.specs,
                 "Transfer spec <device>[:<direction>][:<size>][:<memory options>], e.g. all:1024:both (repeatable)")
      ->allow_extra_args(false);
  app.add_option("--streams", opts->concurrent.streams, "per-transfer (default), per-device or only-one");
  app.add_flag("--list", list, "List the CUDA devices and exit");
  app.footer("See docs/concurrent.md for the spec grammar and xferbench's extensions.");
  set_exit_code_footer(app);
  if (const int code = parse_seed_app(app, args, "bwtest", out, err); code >= 0) return code;
  if (list) {
    ctx.action = []() {
      report::make_reporter("bwtest", std::cout)->system(discover_system(false));
      return 0;
    };
    return run_action(ctx, err);
  }
  opts->out.format = "bwtest";
  std::shared_ptr<ScenarioPlan> plan;
  try {
    // "" would read as "not given" (--streams: per-transfer); run's own
    // hint below names --htod/--dtoh/--dtod, which bwtest does not take.
    if (const std::string flag = option_given_empty(app); !flag.empty())
      fail(ErrorKind::usage, fmt::format("invalid {} '': the value is empty", flag));
    if (!opts->concurrent.any_transfer()) fail(ErrorKind::usage, "no transfer given (use --do=SPEC, e.g. --do=all:1024:both)");
    plan = std::make_shared<ScenarioPlan>(build_scenario_plan(*opts, ctx.argv));
  } catch (const Error& e) {
    fmt::print(err, "bwtest (xferbench): error: {}\n", e.what());
    return exit_code(e.kind());
  }
  ctx.action = [plan, opts, &ctx]() { return execute_scenario(*plan, opts->out, ctx); };
  return run_action(ctx, err);
}

bool has_format(const std::vector<std::string>& args) {
  return std::any_of(args.begin(), args.end(), [](const std::string& a) {
    return a == "--format" || a.rfind("--format=", 0) == 0 || a == "-j" || a == "--json";
  });
}

}  // namespace

int run_seed_front_end(SeedTool tool, Context& ctx, const std::vector<std::string>& args, std::ostream& out,
                       std::ostream& err) {
  if (tool == SeedTool::none) return -1;
  ctx.argv.insert(ctx.argv.end(), args.begin(), args.end());  // the command line recorded in results
  // CUts spells it -V as well (xferbench's own -V, too).
  const bool version = std::find(args.begin(), args.end(), "--version") != args.end() ||
                       (tool == SeedTool::cuts && std::find(args.begin(), args.end(), "-V") != args.end());
  if (version) {
    out << version_text(tool) << "\n";
    return 0;
  }
  if (tool == SeedTool::nvbandwidth) return nvbandwidth_main(ctx, args, out, err);
  if (tool == SeedTool::bwtest) return bwtest_main(ctx, args, out, err);
  return -1;
}

std::vector<std::string> seed_command_line(SeedTool tool, std::vector<std::string> args) {
  if (tool != SeedTool::cuts && tool != SeedTool::overalloc) return args;
  std::vector<std::string> out = {tool == SeedTool::cuts ? "cuts" : "first-touch"};
  if (!has_format(args)) {
    out.push_back("--format");
    out.push_back(tool == SeedTool::cuts ? "cuts" : "seed");
  }
  out.insert(out.end(), args.begin(), args.end());
  return out;
}

}  // namespace xb::app
