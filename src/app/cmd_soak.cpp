// xferbench soak: the chosen cases (default: the check suite and the loaded-latency cases) in rounds
// until --duration is over, every sample appended to a JSON Lines file with
// the NVML telemetry read right after it; at the end, or on SIGINT /
// SIGTERM, the summary (soak::analyze) on stdout. Exit 0: nothing found,
// 1: findings, 130 / 143 after a signal (docs/soak.md).
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "app/cli.hpp"
#include "app/command.hpp"
#include "app/interrupt.hpp"
#include "app/progress.hpp"
#include "app/run_options.hpp"
#include "app/soak_cli.hpp"
#include "base/error.hpp"
#include "base/input_file.hpp"
#include "base/stop.hpp"
#include "check/node.hpp"
#include "report/output_file.hpp"
#include "report/soak_report.hpp"
#include "soak/soak_data.hpp"

namespace xb::app {

// The check suite, then the loaded-latency cases (latency idle and under load).
std::vector<const CaseDef*> default_soak_cases() {
  std::vector<const CaseDef*> cases = check::check_suite();
  for (const CaseDef* d : suite_cases("loaded")) cases.push_back(d);
  return cases;
}

check::SoakClock soak_clock(const Context& ctx) {
  check::SoakClock c = check::real_soak_clock();
  if (ctx.steady_s) c.steady_s = ctx.steady_s;
  if (ctx.utc_s) c.utc_s = ctx.utc_s;
  return c;
}

std::shared_ptr<NvmlQueries> soak_nvml(const Context& ctx) {
  if (ctx.open_nvml) return ctx.open_nvml();
  try {
    return Nvml::load();
  } catch (const Error&) {
    return nullptr;  // no telemetry: every field stays empty
  }
}

std::unique_ptr<check::SoakFileWriter> open_soak_file(const std::string& file, check::SoakFileMode mode,
                                                      const std::string& option, const check::SoakClock& clock,
                                                      std::ostream& err) {
  if (!file.empty()) return std::make_unique<check::SoakFileWriter>(file, mode, option);
  std::string stamp = check::utc_text(clock.utc_s());  // 2026-11-25T12:03:04.123Z -> 20261125T120304Z
  stamp.erase(std::remove_if(stamp.begin(), stamp.end(), [](char ch) { return ch == '-' || ch == ':'; }), stamp.end());
  stamp = stamp.substr(0, stamp.find('.')) + "Z";
  const std::string name = fmt::format("xferbench-soak-{}.jsonl", stamp);
  auto out = std::make_unique<check::SoakFileWriter>(name, check::SoakFileMode::create_new);
  fmt::print(err, "xferbench: soak samples go to {}\n", name);
  return out;
}

check::SoakOutcome run_soak_with_status(SampleSource& src, const NvmlQueries* nvml, check::SoakRequest& req,
                                        check::SoakFileWriter& out, const Context& ctx) {
  const bool terminal = progress_enabled(ctx);
  Progress progress(terminal, std::cerr, 0.0);
  check::SoakCallbacks cb;
  cb.on_status = [&](const check::SoakStatus& s) {
    if (terminal) progress.update(check::soak_status_text(s));
    else if (!ctx.quiet && s.round_done) fmt::print(std::cerr, "xferbench: {}\n", check::soak_status_text(s));
  };
  check::SoakOutcome o = check::run_soak(src, nvml, req, out, soak_clock(ctx), cb);
  progress.finish();
  return o;
}

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
  check::SoakRequest req;  // validated
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
  if (!a.duration.empty()) a.req.duration_s = check::parse_duration(a.duration, "--duration");
  if (!(a.budget_s > 0)) fail(ErrorKind::usage, fmt::format("invalid --budget '{}': must be greater than 0", a.budget_s));
  const bool named = !a.cases.empty() || !a.prefixes.empty() || !a.suite.empty();
  a.req.cases = named_cases(a.cases, a.prefixes, a.suite, default_soak_cases);
  a.req.measure = check::check_measure_options();
  a.req.measure.budget_s = a.budget_s;
  a.req.command_line = argv;
  if (a.resume.empty()) {
    if (a.duration.empty()) fail(ErrorKind::usage, "soak needs --duration (e.g. --duration 8h) or --resume FILE");
    return;
  }
  if (!a.file.empty() && a.file != a.resume)
    fail(ErrorKind::usage, fmt::format("--resume '{}' appends to that file: leave -o '{}' out", a.resume, a.file));
  a.req.resume = soak::read_soak_data(a.resume);
  const soak::Header& h = a.req.resume->header;
  if (!named) a.req.cases = select_cases(h.cases, {});
  std::vector<std::string> names;
  for (const CaseDef* d : a.req.cases) names.push_back(d->name);
  if (names != h.cases)
    fail(ErrorKind::usage, fmt::format("--resume '{}' soaked other cases ({}) than these ({})", a.resume,
                                       fmt::join(h.cases, ", "), fmt::join(names, ", ")));
  if (a.duration.empty()) a.req.duration_s = h.duration_s;
}

void print_summary(const SoakArgs& a, const check::SoakOutcome& o) {
  if (a.format == "json") std::cout << json_text(report::soak_summary_json(o.summary), 2) << "\n";
  else report::print_soak_summary(std::cout, o.summary, o.header);
  std::cout.flush();
}

// --summary: the summary of a soak file as it stands, nothing measured;
// the exit code is the one the soak would end with (0, or 1 for findings).
int summarize_file(const SoakArgs& a) {
  check::SoakOutcome o;
  {
    const soak::SoakData data = soak::read_soak_data(a.summary);  // freed before the summary is printed
    o.summary = soak::analyze(data);
    o.header = data.header;
  }
  print_summary(a, o);
  return o.summary.findings ? 1 : 0;
}

check::SoakFileMode file_mode(const SoakArgs& a) {
  if (!a.resume.empty()) return check::SoakFileMode::append;
  return a.overwrite ? check::SoakFileMode::overwrite : check::SoakFileMode::start;
}

int execute(SoakArgs& a, const Context& ctx) {
  if (!a.summary.empty()) return summarize_file(a);
  const std::string path = a.resume.empty() ? a.file : a.resume;
  if (!path.empty()) {
    check::check_soak_file_free(path, file_mode(a), "-o");
    report::check_output_file(path);
  }
  // From here a signal ends the soak: the summary is printed, the end line written.
  StopSignals signals;
  const auto src = ctx.open_source ? ctx.open_source(a.req.measure) : open_gpu_source(a.req.measure);
  const std::shared_ptr<NvmlQueries> nvml = soak_nvml(ctx);
  const check::SoakClock clock = soak_clock(ctx);
  const auto out = open_soak_file(path, file_mode(a), "-o", clock, std::cerr);
  const check::SoakOutcome o = run_soak_with_status(*src, nvml.get(), a.req, *out, ctx);
  print_summary(a, o);
  if (!o.error.empty()) {
    fmt::print(std::cerr, "xferbench: error: {}\n", o.error);
    return 1;
  }
  if (o.stop != StopReason::none) return stop_exit_code(o.stop);
  return o.summary.findings ? 1 : 0;
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
