#include "app/cli.hpp"

#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <new>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "app/completion.hpp"
#include "app/validators.hpp"
#include "base/build_info.hpp"
#include "machine/cuda_check.hpp"
#include "base/error.hpp"
#include "base/names.hpp"
#include "base/printable.hpp"
#include "base/stop.hpp"

namespace xb::app {

std::unique_ptr<CLI::App> make_app(Context& ctx) {
  auto app = std::make_unique<CLI::App>(
      "xferbench: how fast bytes move between host memory, GPUs, processes and nodes,\n"
      "and how close each number is to what the hardware allows.\n"
      "With no command, runs the quick suite on every GPU (same as 'xferbench run').\n"
      "'xferbench --list' lists the devices (same as 'xferbench list', as multi-gpu-bwtest's --list).",
      "xferbench");
  app->set_version_flag("-V,--version", version_text(SeedTool::none));
  app->add_flag("-q,--quiet", ctx.quiet, "No progress lines on stderr");
  app->add_flag("--bash-completion",
                "Print the bash completion script of these commands and options (the Debian package installs it)");
  app->require_subcommand(0, 1);
  app->fallthrough();
  add_list_command(*app, ctx);
  add_cases_command(*app, ctx);
  add_run_command(*app, ctx);
  add_sweep_command(*app, ctx);
  add_plot_command(*app, ctx);
  add_compare_command(*app, ctx);
  add_cuts_command(*app, ctx);
  add_check_command(*app, ctx);
  add_soak_command(*app, ctx);
  set_exit_code_footer(*app);
  return app;
}

void finish_command(CLI::App& cmd, std::function<void()> callback) {
  set_exit_code_footer(cmd);
  reject_empty_values(cmd);
  reject_non_finite_numbers(cmd);
  cmd.callback(std::move(callback));
}

int parse_args(CLI::App& app, Context& ctx, std::vector<std::string> args, std::ostream& out, std::ostream& err) {
  ctx.argv.insert(ctx.argv.end(), args.begin(), args.end());
  if (args.size() == 1 && args[0] == "--bash-completion") {
    out << bash_completion(app);
    return 0;
  }
  // multi-gpu-bwtest's "--list" lists devices: "xferbench --list" is
  // "xferbench list" ("xferbench run --list" lists cases, as nvbandwidth's).
  const auto first = std::find_if(args.begin(), args.end(), [](const std::string& a) { return a != "-q" && a != "--quiet"; });
  if (first != args.end() && *first == "--list") *first = "list";
  // "xferbench -o r.json" means "xferbench run -o r.json": options given
  // without a command belong to the default command.
  static const std::vector<std::string> root_only = {"-h", "--help", "--help-all", "-V", "--version"};
  bool names_command = false;
  for (const CLI::App* sub : app.get_subcommands({}))
    names_command = names_command || std::find(args.begin(), args.end(), sub->get_name()) != args.end();
  if (!names_command && !args.empty() && args[0].size() > 1 && args[0][0] == '-' &&
      std::find(root_only.begin(), root_only.end(), args[0]) == root_only.end())
    args.insert(args.begin(), "run");
  if (const std::string empty = optional_value_given_empty(app, args); !empty.empty()) {
    fmt::print(err, "xferbench: error: invalid {} '': the value is empty (leave the value out for the default)\n", empty);
    return exit_code(ErrorKind::usage);
  }
  std::reverse(args.begin(), args.end());  // CLI11 consumes the vector from the back
  try {
    app.parse(args);
    if (app.get_option("--bash-completion")->count() > 0)
      throw CLI::ValidationError("--bash-completion", "prints the completion script alone: give no other argument");
    // No subcommand: the default suite, exactly as 'xferbench run'.
    if (!ctx.action) app.get_subcommand("run")->parse(std::vector<std::string>{});
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    out << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::CallForVersion&) {
    out << app.version() << "\n";
    return 0;
  } catch (const CLI::ParseError& e) {
    fmt::print(err, "xferbench: error: {}\nRun 'xferbench --help' or 'xferbench COMMAND --help' for usage.\n",
               message_line(e.what()));
    return exit_code(ErrorKind::usage);
  } catch (const Error& e) {
    // Semantic checks done inside option callbacks (case names, sizes).
    fmt::print(err, "xferbench: error: {}\n", message_line(e.what()));
    return exit_code(e.kind());
  } catch (const std::bad_alloc&) {  // an input file read while parsing, under a memory limit
    fmt::print(err, "xferbench: error: out of memory while reading the arguments\n");
    return exit_code(ErrorKind::resources);
  } catch (const std::exception& e) {  // a bug, never an abort
    fmt::print(err, "xferbench: internal error: {}\n", message_line(e.what()));
    return exit_code(ErrorKind::internal);
  }
  return ctx.action ? -1 : exit_code(ErrorKind::internal);
}

int run_action(Context& ctx, std::ostream& err) {
  int code = 0;
  try {
    code = ctx.action();
  } catch (const Error& e) {
    // Empty: an error every rank of a launch finds, which another rank says
    // (comm::make_mpi_communicator).
    if (*e.what() != '\0') fmt::print(err, "xferbench: error: {}{}\n", message_line(e.what()), error_hint(e.kind()));
    code = exit_code(e.kind());
  } catch (const Stopped& s) {
    // A command that stops before it has anything to keep.
    fmt::print(err, "xferbench: {}\n", message_line(s.what()));
    code = stop_exit_code(s.reason());
  } catch (const std::bad_alloc&) {  // a command's own data under a memory limit (ulimit -v)
    fmt::print(err, "xferbench: error: out of memory\n");
    code = exit_code(ErrorKind::resources);
  } catch (const std::exception& e) {
    fmt::print(err, "xferbench: internal error: {}\n", message_line(e.what()));
    code = exit_code(ErrorKind::internal);
  }
  if (*deferred_cuda_error()) fmt::print(err, "xferbench: warning: during cleanup: {}\n", deferred_cuda_error());
  return code;
}

int parse_seed_app(CLI::App& app, const std::vector<std::string>& args, const char* tool, std::ostream& out,
                   std::ostream& err) {
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 consumes from the back
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return 0;
  } catch (const CLI::ParseError& e) {
    fmt::print(err, "{} (xferbench): error: {}\nRun '{} --help' for usage.\n", tool, message_line(e.what()), tool);
    return exit_code(ErrorKind::usage);
  }
  return -1;
}

constexpr Named<SeedTool> kSeedTools[] = {{SeedTool::nvbandwidth, "nvbandwidth"},
                                          {SeedTool::bwtest, "bwtest"},
                                          {SeedTool::cuts, "cuts"},
                                          {SeedTool::overalloc, "gpudirect_p2p_overalloc"}};

SeedTool seed_tool_of(const std::string& argv0) {
  const auto slash = argv0.find_last_of('/');
  const std::string base = slash == std::string::npos ? argv0 : argv0.substr(slash + 1);
  return lookup_value(kSeedTools, base).value_or(SeedTool::none);
}

const char* seed_tool_name(SeedTool tool) { return lookup_name(kSeedTools, tool, "xferbench"); }

std::string version_text(SeedTool tool) {
  // The commit says which build this is between releases ("-dirty": built
  // with changes to tracked files; "unknown": built outside a git checkout).
  const std::string self = fmt::format("xferbench {} (commit {}): host <-> GPU, GPU <-> GPU and process <-> process "
                                       "transfer bandwidth and latency against each link's theoretical peak",
                                       XFERBENCH_VERSION, build_commit());
  switch (tool) {
    case SeedTool::none:
      return self + "\nInstalled as nvbandwidth, bwtest, cuts or gpudirect_p2p_overalloc it takes that tool's "
                    "options and prints its output.";
    case SeedTool::nvbandwidth:
      return self + "\nRun as nvbandwidth: nvbandwidth's options, defaults and output (text as v0.10 prints it, "
                    "--nvbandwidth-version 0.8 as v0.8 does; -j JSON); this is not NVIDIA's nvbandwidth.";
    case SeedTool::bwtest: return self + "\nRun as bwtest: multi-gpu-bwtest's options and output.";
    case SeedTool::cuts: return self + "\nRun as cuts: CUts' options and output ('xferbench cuts --format cuts').";
    case SeedTool::overalloc:
      return self + "\nRun as gpudirect_p2p_overalloc: the reproducer's five values and its output "
                    "('xferbench first-touch --format seed').";
  }
  return self;
}

const char* error_hint(ErrorKind kind) noexcept {
  // tests/no_gpu_commands.sh runs each of these on a machine without a GPU.
  return kind == ErrorKind::no_device ? "; without a GPU these work: xferbench cases, xferbench run --dry-run "
                                        "--topology FILE, xferbench check --judge FILE, xferbench compare OLD NEW, "
                                        "xferbench plot FILE -o IMAGE.png"
                                      : "";
}

bool progress_enabled(const Context& ctx) { return !ctx.quiet && isatty(STDERR_FILENO); }

}  // namespace xb::app
