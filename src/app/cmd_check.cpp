// xferbench check: node acceptance. Lints the environment, runs the check
// suite with telemetry, judges every cell against the spec, a baseline or
// the built-in peaks, and exits 0 (PASS) or 1 (FAIL). Under mpirun / srun
// every node checks itself and rank 0 prints one row per node.
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "app/cli.hpp"
#include "app/command.hpp"
#include "app/fleet_launch.hpp"
#include "app/interrupt.hpp"
#include "app/output.hpp"
#include "app/progress.hpp"
#include "app/soak_cli.hpp"
#include "app/validators.hpp"
#include "check/node.hpp"
#include "fabric/fabric_json.hpp"
#include "base/error.hpp"
#include "base/input_file.hpp"
#include "base/stop.hpp"
#include "report/fabric_report.hpp"
#include "report/reporter.hpp"
#include "report/output_file.hpp"
#include "records/run_json.hpp"

namespace xb::app {
namespace {

struct CheckArgs {
  check::CheckOptions opts;
  std::string judge_file;   // --judge: a recorded run instead of measuring
  std::string junit_file;
  bool summary_only = false;
  bool no_remeasure = false;
  double budget_s = 1.0;
  FleetOptions fleet;       // --fleet-timeout (or --timeout, its older name)
  bool timeout_alias = false;
  OutputOptions out;
  StopOptions stop;
  std::string buffer_size;  // --buffer-size as typed
  std::string soak;         // --soak DURATION: judge a soak of the check suite
  std::string soak_file;    // --soak-file FILE
  bool overwrite = false;   // --overwrite: --soak-file FILE starts anew even if it holds a soak
  double soak_s = 0;
};

void validate(CheckArgs& a, const std::vector<std::string>& argv) {
  if (!(a.budget_s > 0)) fail(ErrorKind::usage, fmt::format("invalid --budget '{}': must be greater than 0", a.budget_s));
  if (!(a.opts.compare.tolerance_pct >= 0))
    fail(ErrorKind::usage, fmt::format("invalid --tolerance '{}': must be 0 or more", a.opts.compare.tolerance_pct));
  if (!(a.opts.compare.noise_k >= 0))
    fail(ErrorKind::usage, fmt::format("invalid --noise-k '{}': must be 0 or more", a.opts.compare.noise_k));
  check_fleet_timeout(a.fleet.timeout_s, a.timeout_alias ? "--timeout" : "--fleet-timeout");
  validate_stop_options(a.stop);
  if (a.summary_only && report::is_metrics(a.out.format) && a.out.file.empty())
    fail(ErrorKind::usage, "--summary prints one line where --format prometheus prints the metrics: give -o FILE for "
                           "the metrics");
  if (!a.buffer_size.empty()) a.opts.buffer_bytes = positive_size(a.buffer_size, "--buffer-size");
  if (!a.soak.empty()) a.soak_s = soak::parse_duration(a.soak, "--soak");
  if (!a.soak_file.empty() && a.soak.empty()) fail(ErrorKind::usage, "--soak-file needs --soak DURATION");
  if (a.overwrite && a.soak_file.empty())
    fail(ErrorKind::usage, "--overwrite starts the --soak-file FILE anew: give --soak-file FILE (the default file is "
                           "always new)");
  if (!a.soak.empty() && !a.judge_file.empty())
    fail(ErrorKind::usage, "--soak measures and --judge judges a recorded run: give one of them");
  a.opts.time_limit_s = a.stop.time_limit_s;
  a.opts.measure.budget_s = a.budget_s;
  a.opts.remeasure = !a.no_remeasure;
  a.opts.command_line = argv;
  // A spec's errors (syntax, unknown case / link / unit) are usage errors:
  // report them now, before any GPU is touched.
  if (!a.opts.spec_file.empty()) (void)check::parse_spec_file(a.opts.spec_file);
}

// A run file the user hands in (--judge, --baseline), decoded once into
// the record: whatever is wrong with it is exit 2 naming the option and file.
RunResult read_run_file(const std::string& path, const char* what) {
  const std::string label = input_label(what, path);
  const nlohmann::json doc = read_input_json(path, what);
  if (!doc.is_object() || string_field(doc, "schema") != records::kSchemaName)
    fail(ErrorKind::usage, fmt::format("{} is not an xferbench run result (schema {}, not {})", label,
                                       field_json_text(doc, "schema"), records::kSchemaName));
  if (!doc.contains("schema_version") || doc.at("schema_version") != records::kSchemaVersion)
    fail(ErrorKind::usage, fmt::format("{} has {} schema_version {}: this xferbench reads version {}", label,
                                       records::kSchemaName, field_json_text(doc, "schema_version"),
                                       records::kSchemaVersion));
  return records::decode_run(doc, label);
}

// The options with the --baseline run decoded: before any GPU work, and
// under a launcher on each measuring rank (a bad file is that node's error).
check::CheckOptions with_baseline(check::CheckOptions opts) {
  if (!opts.baseline_file.empty()) opts.baseline = read_run_file(opts.baseline_file, "--baseline file");
  return opts;
}

// Stdout (a node's --summary: one line), -o (always JSON) and --junit.
report::Outputs outputs(const CheckArgs& a, bool summary, std::ostream& out = std::cout) {
  report::ReportOptions o = report_options(a.out);
  o.summary = summary;
  o.csv_file = false;
  report::Outputs outs(a.out.format, a.out.file, o, out);
  outs.add_file(a.junit_file, "junit");
  return outs;
}

void publish_node(const CheckArgs& a, const check::CheckResult& r) {
  outputs(a, a.summary_only).emit([&](report::Reporter& rep) { rep.check(r); });
}

// Rank 0 of several nodes: one row per node (or the fleet JSON), the fleet
// file and JUnit; every node must pass, by each node's own verdict (no
// outliers), and there must be a node (fleet::fleet_exit_code).
int publish_fleet(const CheckArgs& a, fleet::Fleet& f, std::ostream& out) {
  f.exit_code = fleet::fleet_exit_code(f.nodes, {}, false, true);
  outputs(a, false, out).emit([&](report::Reporter& rep) { rep.check_fleet(f); });
  return f.exit_code;
}

SoakFileMode soak_file_mode(const CheckArgs& a) {
  return a.overwrite ? SoakFileMode::overwrite : SoakFileMode::start;
}

check::CheckResult measure_node(const CheckArgs& a, const Context& ctx) {
  Progress progress(progress_enabled(ctx) && a.soak_s == 0, std::cerr);
  check::CheckCallbacks cb;
  cb.open_source = ctx.open_source;
  cb.open_nvml = ctx.open_nvml;
  if (a.soak_s > 0)
    cb.measure = [&](SampleSource& src, const NvmlQueries* nvml, const RunRequest& suite, check::CheckResult& r) {
      return soak_for_check(ctx, src, nvml, suite, a.soak_s, a.soak_file, soak_file_mode(a), r);
    };
  cb.phase = [&progress](const std::string& what) { progress.update(what); };
  cb.on_case = [&progress](const CaseResult& c, std::size_t done, std::size_t total) {
    progress.update(fmt::format("[{}/{}] {} done", done, total, c.name));
  };
  check::CheckResult r = check::check_node(with_baseline(a.opts), cb);
  progress.finish();
  return r;
}

// --judge of a fabric file (docs/fabric.md): its report, then PASS, or
// FAIL naming the culprits, failed pairs and lost ranks.
int judge_fabric(const CheckArgs& a, const nlohmann::json& doc) {
  const fabric::Result r = fabric::decode_fabric(doc, input_label("--judge file", a.judge_file));
  bool passed = false;
  const std::string verdict = report::fabric_check_text(r, passed);
  report::Outputs(a.out.format, a.out.file).emit([&](report::Reporter& rep) { rep.fabric(r); });
  if (report::is_text(a.out.format)) std::cout << verdict << std::flush;
  return passed ? 0 : 1;
}

int execute(const CheckArgs& a, const Context& ctx) {
  check_output_writable(a.out);
  if (!a.junit_file.empty()) report::check_output_file(a.junit_file);
  // Before any GPU work, as the other outputs.
  if (!a.soak_file.empty()) check_soak_file(a.soak_file, soak_file_mode(a), "--soak-file");
  if (!a.judge_file.empty()) {
    const nlohmann::json doc = read_input_json(a.judge_file, "--judge file");
    if (fabric::is_fabric_document(doc)) return judge_fabric(a, doc);
    RunResult run = read_run_file(a.judge_file, "--judge file");
    const check::CheckResult r =
        check::judge_recorded(with_baseline(a.opts), std::move(run), input_label("--judge file", a.judge_file));
    publish_node(a, r);
    return r.pass ? 0 : 1;
  }
  FleetJob job{"check", a.out, a.fleet,
               [&] {
                 return with_unmeasured_metrics(a.out, "check", [&] {
                   // From here a signal stops the measuring; what was judged is
                   // still printed and written (verdict interrupted, exit 130 / 143).
                   StopSignals signals;
                   const check::CheckResult r = measure_node(a, ctx);
                   publish_node(a, r);
                   return check::check_verdict(r).exit_code;
                 });
               },
               [&] {
                 if (a.soak_s > 0) fail(ErrorKind::usage, "check --soak checks one node: run it on each node alone");
                 const check::CheckResult r = measure_node(a, ctx);
                 return node_outcome(report::check_json(r), r.run.completion.stop, check::check_verdict(r).exit_code);
               }};
  job.publish = [&a](fleet::Fleet& f, std::ostream& out) { return publish_fleet(a, f, out); };
  return run_single_or_per_node(ctx, job);
}

}  // namespace

void add_check_command(CLI::App& root, Context& ctx) {
  auto* cmd = root.add_subcommand("check", "Node acceptance: lint the environment, run the check suite and judge "
                                           "every link; exit 0 PASS, 1 FAIL");
  auto a = std::make_shared<CheckArgs>();
  cmd->add_option("--spec", a->opts.spec_file, "Expectations file (TOML), e.g. share/xferbench/check/h200.toml");
  cmd->add_option("--baseline", a->opts.baseline_file,
                  "Run JSON from a known-good node of the same model; cells without a spec entry are compared "
                  "with compare's noise model");
  cmd->add_flag("--force", a->opts.force, "Judge with a spec or baseline made for another GPU model");
  cmd->add_flag("--strict", a->opts.strict, "A lint warning fails the check too (errors always do)");
  cmd->add_flag("--no-remeasure", a->no_remeasure, "Do not re-measure a case once when a cell ran throttled");
  cmd->add_option("--tolerance", a->opts.compare.tolerance_pct, "Baseline: percent a cell may be slower")
      ->capture_default_str();
  cmd->add_option("--noise-k", a->opts.compare.noise_k, "Baseline: a change must also exceed K x the standard error")
      ->capture_default_str();
  cmd->add_option("--budget", a->budget_s, "Sampling budget per cell in seconds")->capture_default_str();
  cmd->add_option("--buffer-size", a->buffer_size,
                  "Bytes per copy of every check cell (K/M/G binary suffixes; default 512M, as run)");
  cmd->add_option("--junit", a->junit_file, "Also write JUnit XML to FILE");
  cmd->add_flag("--summary", a->summary_only, "Print only the one-line summary (for node-health scripts)");
  cmd->add_option("--judge", a->judge_file,
                  "Judge a recorded run JSON instead of measuring (no lint, no telemetry), or a fabric file (FAIL "
                  "naming its culprits)");
  cmd->add_option("--soak", a->soak,
                  "Soak the check suite for DURATION (30m, 2h, 1h30m) and judge each cell's median over it; the "
                  "soak's findings (drift, steps, throttle and error episodes) fail the check (docs/soak.md)");
  cmd->add_option("--soak-file", a->soak_file,
                  "The soak's JSON Lines file (default: a new xferbench-soak-<UTC time>.jsonl here); one that already "
                  "holds a soak is refused unless --overwrite");
  cmd->add_flag("--overwrite", a->overwrite, "Start the --soak-file FILE anew even if it holds a soak");
  add_fleet_timeout_option(*cmd, a->fleet.timeout_s);
  auto* alias = cmd->add_option("--timeout", a->fleet.timeout_s, "Same as --fleet-timeout (its former name)");
  add_output_options(*cmd, a->out, false, {"prometheus"});
  add_stop_options(*cmd, a->stop, false);
  cmd->footer(
      "Expectations, in order: the --spec entry for a cell, the same cell of --baseline, then built-in\n"
      "minimums of the theoretical peak (PCIe 75%, PCIe both ways 65%, NVLink 70%, PCIe P2P 70%, device\n"
      "memory 70%). A cell below 85% of identical GPUs' median (latency above 115%) fails too.\n"
      "An interrupted check writes what was judged. See docs/check.md and docs/interrupts.md.");
  finish_command(*cmd, [&ctx, a, alias]() {
    a->timeout_alias = alias->count() > 0;
    validate(*a, ctx.argv);
    ctx.action = [a, &ctx]() { return execute(*a, ctx); };
  });
}

}  // namespace xb::app
