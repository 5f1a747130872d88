// xferbench soak: the chosen cases (default: the check suite and the loaded-latency cases) in rounds
// until --duration is over, every sample appended to a JSON Lines file with
// the NVML telemetry read right after it; at the end, or on SIGINT /
// SIGTERM, the summary (soak::analyze) on stdout through the reporter of
// --format. The exit code is the one rule (records/completion.hpp): 0
// nothing found, 1 findings, 130 / 143 after a signal (docs/soak.md).
#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "app/cli.hpp"
#include "app/command.hpp"
#include "app/interrupt.hpp"
#include "app/run_options.hpp"
#include "app/soak_cli.hpp"
#include "base/error.hpp"
#include "base/stop.hpp"
#include "records/completion.hpp"
#include "report/reporter.hpp"
#include "soak/soak_data.hpp"

namespace xb::app {
namespace {

struct SoakArgs {
  std::string duration;
  std::vector<std::string> cases, prefixes;
  std::string suite;
  std::string file;    // -o
  std::string resume;  // --resume FILE
  std::string summary; // --summary FILE: analyse a soak file, measure nothing
  bool overwrite = false;  // --overwrite: -o FILE starts anew even if it holds a soak
  std::string format = "text";
  double budget_s = 1.0;
  soak::SoakRequest req;  // validated
};

// The cases, the duration and the file to continue, before any GPU work.
void validate(SoakArgs& a, const std::vector<std::string>& argv) {
  if (!a.summary.empty()) {
    if (!a.duration.empty() || !a.resume.empty() || !a.file.empty() || !a.cases.empty() || !a.prefixes.empty() ||
        !a.suite.empty() || a.overwrite)
      fail(ErrorKind::usage, fmt::format("--summary '{}' only reads that soak file: leave out --duration, --resume, -o, "
                                         "--overwrite and the cases", a.summary));
    return;  // read in execute, line by line
  }
  if (a.overwrite && !a.resume.empty())
    fail(ErrorKind::usage, fmt::format("--resume '{}' continues that soak and --overwrite starts one anew: give one of "
                                       "them", a.resume));
  if (a.overwrite && a.file.empty())
    fail(ErrorKind::usage, "--overwrite starts the -o FILE anew: give -o FILE (the default file is always new)");
  if (!a.duration.empty()) a.req.duration_s = soak::parse_duration(a.duration, "--duration");
  if (!(a.budget_s > 0)) fail(ErrorKind::usage, fmt::format("invalid --budget '{}': must be greater than 0", a.budget_s));
  const bool named = !a.cases.empty() || !a.prefixes.empty() || !a.suite.empty();
  RunRequest& preset = a.req.preset;
  preset.cases = named_cases(a.cases, a.prefixes, a.suite, default_soak_cases);
  preset.measure = check::check_measure_options();
  preset.measure.budget_s = a.budget_s;
  preset.command_line = argv;
  if (a.resume.empty()) {
    if (a.duration.empty()) fail(ErrorKind::usage, "soak needs --duration (e.g. --duration 8h) or --resume FILE");
    return;
  }
  if (!a.file.empty() && a.file != a.resume)
    fail(ErrorKind::usage, fmt::format("--resume '{}' appends to that file: leave -o '{}' out", a.resume, a.file));
  a.req.resume = soak::read_soak_data(a.resume);
  const soak::Header& h = a.req.resume->header;
  if (!named) preset.cases = select_cases(h.cases, {});
  std::vector<std::string> names;
  for (const CaseDef* d : preset.cases) names.push_back(d->name);
  if (names != h.cases)
    fail(ErrorKind::usage, fmt::format("--resume '{}' soaked other cases ({}) than these ({})", a.resume,
                                       fmt::join(h.cases, ", "), fmt::join(names, ", ")));
  if (a.duration.empty()) a.req.duration_s = h.duration_s;
}

// The summary on stdout, through the reporter of --format.
void print_summary(const SoakArgs& a, const soak::SoakSummary& summary, const soak::Header& header) {
  report::Outputs(a.format, "").emit([&](report::Reporter& rep) { rep.soak(summary, header); });
}

// --summary: the summary of a soak file as it stands, nothing measured;
// the exit code is the one the soak would end with (0, or 1 for findings).
int summarize_file(const SoakArgs& a) {
  soak::SoakSummary summary;
  soak::Header header;
  {
    const soak::SoakData data = soak::read_soak_data(a.summary);  // freed before the summary is printed
    summary = soak::analyze(data);
    header = data.header;
  }
  print_summary(a, summary, header);
  return ending(Completion{}, summary.findings).exit_code;
}

SoakFileMode file_mode(const SoakArgs& a) {
  if (!a.resume.empty()) return SoakFileMode::append;
  return a.overwrite ? SoakFileMode::overwrite : SoakFileMode::start;
}

int execute(SoakArgs& a, const Context& ctx) {
  if (!a.summary.empty()) return summarize_file(a);
  const std::string path = a.resume.empty() ? a.file : a.resume;
  if (!path.empty()) check_soak_file(path, file_mode(a), "-o");
  // From here a signal ends the soak: the summary is printed, the end line written.
  StopSignals signals;
  const auto src = ctx.open_source ? ctx.open_source(a.req.preset.measure) : open_gpu_source(a.req.preset.measure);
  const std::shared_ptr<NvmlQueries> nvml = soak_nvml(ctx);
  const auto out = open_soak_file(path, file_mode(a), "-o", soak_clock(ctx), std::cerr);
  const soak::SoakOutcome o = run_soak_with_status(*src, nvml.get(), a.req, *out, ctx);
  print_summary(a, o.summary, o.header);
  if (!o.completion.error.empty()) fmt::print(std::cerr, "xferbench: error: {}\n", o.completion.error);
  return ending(o.completion, o.summary.findings).exit_code;
}

}  // namespace

void add_soak_command(CLI::App& root, Context& ctx) {
  auto* cmd = root.add_subcommand("soak", "Measure cases in rounds for hours (default: the check suite and the loaded-latency cases), every "
                                          "sample with NVML telemetry in a JSON Lines file; summary at the end");
  auto a = std::make_shared<SoakArgs>();
  cmd->add_option("--duration", a->duration, "How long: 90s, 30m, 8h, 1h30m or seconds");
  cmd->add_option("-t,--case,--testcase", a->cases, "Case(s) by name or index (see 'xferbench cases')")->take_all();
  cmd->add_option("-p,--prefix,--testcase-prefix", a->prefixes, "Every case whose name starts with PREFIX")
      ->take_all();
  cmd->add_option("--suite", a->suite, "quick, full, loaded or all (default: the check suite and --suite loaded)");
  cmd->add_option("-o,--output", a->file,
                  "The JSON Lines file, written line by line (default: a new xferbench-soak-<UTC time>.jsonl here); "
                  "one that already holds a soak is refused: --resume continues it, --overwrite starts it anew");
  cmd->add_flag("--overwrite", a->overwrite, "Start the -o FILE anew even if it holds a soak (its samples are lost)");
  cmd->add_option("--resume", a->resume,
                  "Continue the soak FILE: same cases, the duration counted from its start, rounds and t_s go on");
  cmd->add_option("--summary", a->summary,
                  "Print the summary of the soak FILE (as it stands, also one still running or killed); measures nothing");
  cmd->add_option("--format", a->format, "The summary on stdout: text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  cmd->add_option("--budget", a->budget_s, "Sampling budget per cell in seconds")->capture_default_str();
  cmd->footer(
      "A status line on a terminal (elapsed, ETA, round, the cell furthest below its first round); otherwise\n"
      "a line per round on stderr; -q: neither. The soak ends after the case in flight when the duration is\n"
      "over. The summary gives per cell min/median/max, the trend in % per hour with its interval, steps\n"
      "and the throttle and error episodes; 'xferbench plot FILE' draws it. See docs/soak.md.");
  finish_command(*cmd, [&ctx, a]() {
    validate(*a, ctx.argv);
    ctx.action = [a, &ctx]() { return execute(*a, ctx); };
  });
}

}  // namespace xb::app
