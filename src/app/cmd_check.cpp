// xferbench check: node acceptance. Lints the environment, runs the check
// suite with telemetry, judges every cell against the spec, a baseline or
// the built-in peaks, and exits 0 (PASS) or 1 (FAIL). Under mpirun / srun
// every node checks itself and rank 0 prints one row per node.
#include <cstdlib>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "app/cli.hpp"
#include "app/interrupt.hpp"
#include "app/command.hpp"
#include "app/output.hpp"
#include "app/progress.hpp"
#include "app/validators.hpp"
#include "check/fleet.hpp"
#include "check/node.hpp"
#include "comm/stop_relay.hpp"
#include "core/error.hpp"
#include "core/stop.hpp"
#include "core/units.hpp"
#include "report/check_report.hpp"
#include "report/reporter.hpp"
#ifdef XFERBENCH_CHECK_MPI
#include <optional>

#include "app/mpi_errors.hpp"
#include "comm/mpi_comm.hpp"
#endif

namespace xb::app {
namespace {

struct CheckArgs {
  check::CheckOptions opts;
  std::string judge_file;   // --judge: a recorded run instead of measuring
  std::string junit_file;
  bool summary_only = false;
  bool no_remeasure = false;
  double budget_s = 1.0;
  double gather_timeout_s = 900;
  OutputOptions out;
  StopOptions stop;
  std::string buffer_size;  // --buffer-size as typed
};

void validate(CheckArgs& a, const std::vector<std::string>& argv) {
  if (!(a.budget_s > 0)) fail(ErrorKind::usage, fmt::format("invalid --budget '{}': must be greater than 0", a.budget_s));
  if (!(a.opts.compare.tolerance_pct >= 0))
    fail(ErrorKind::usage, fmt::format("invalid --tolerance '{}': must be 0 or more", a.opts.compare.tolerance_pct));
  if (!(a.opts.compare.noise_k >= 0))
    fail(ErrorKind::usage, fmt::format("invalid --noise-k '{}': must be 0 or more", a.opts.compare.noise_k));
  if (!(a.gather_timeout_s > 0))
    fail(ErrorKind::usage, fmt::format("invalid --timeout '{}': must be greater than 0", a.gather_timeout_s));
  validate_stop_options(a.stop);
  if (!a.buffer_size.empty()) {
    a.opts.buffer_bytes = parse_size(a.buffer_size, "--buffer-size");
    if (a.opts.buffer_bytes == 0)
      fail(ErrorKind::usage, fmt::format("invalid --buffer-size '{}': must be greater than 0", a.buffer_size));
  }
  a.opts.time_limit_s = a.stop.time_limit_s;
  a.opts.measure.budget_s = a.budget_s;
  a.opts.remeasure = !a.no_remeasure;
  a.opts.command_line = argv;
  // A spec's errors (syntax, unknown case / link / unit) are usage errors:
  // report them now, before any GPU is touched.
  if (!a.opts.spec_file.empty()) (void)check::parse_spec_file(a.opts.spec_file);
}

void check_writable(const CheckArgs& a) {
  check_output_writable(a.out);
  OutputOptions junit;
  junit.file = a.junit_file;
  check_output_writable(junit);
}

// Stdout (--summary: one line), -o (always JSON) and --junit.
report::Outputs outputs(const CheckArgs& a) {
  report::ReportOptions o;
  o.summary = a.summary_only;
  o.csv_file = false;
  report::Outputs out(a.out.format, a.out.file, o);
  out.add_file(a.junit_file, "junit");
  return out;
}

void publish_node(const CheckArgs& a, const check::CheckResult& r) {
  outputs(a).emit([&](report::Reporter& rep) { rep.check(r); });
}

check::CheckResult measure_node(const CheckArgs& a, const Context& ctx, comm::StopRelay* relay = nullptr) {
  Progress progress(progress_enabled(ctx), std::cerr);
  check::CheckCallbacks cb;
  // Between cells and samples: a signal to another node stops this one too.
  std::optional<StopPoll> poll;
  if (relay != nullptr) poll.emplace([relay] { relay->poll(); });
  cb.open_source = ctx.open_source;
  cb.phase = [&progress](const std::string& what) { progress.update(what); };
  cb.on_case = [&progress](const CaseResult& c, std::size_t done, std::size_t total) {
    progress.update(fmt::format("[{}/{}] {} done", done, total, c.name));
  };
  check::CheckResult r = check::check_node(a.opts, cb);
  progress.finish();
  return r;
}

#ifdef XFERBENCH_CHECK_MPI
int execute_fleet(const CheckArgs& a, const Context& ctx) {
  const auto comm = comm::make_mpi_communicator(1);
  StopSignals signals;  // after MPI is up, as for pingpong
  const comm::Seconds timeout(a.gather_timeout_s);
  try {
    comm::StopRelay relay(*comm, "check");
    const auto nodes = check::gather_node_records(
        *comm,
        [&] {
          // A signal stops this node's check and, through the relay, every
          // other node's at its next sample. Once this node's work ends (also
          // by an error), it sends its last word and waits (up to
          // --timeout) for the others instead of giving up on them, so
          // rank 0 writes every node.
          struct LastWord {
            comm::StopRelay& relay;
            comm::Seconds timeout;
            ~LastWord() {
              acknowledge_stop();
              relay.close(timeout);  // a leader that never answers: the gather's own timeout reports it
            }
          } last_word{relay, timeout};
          return report::check_section_json(measure_node(a, ctx, &relay));
        },
        timeout);
    // Rank 0 prints and writes; the outcome (a file that cannot be written)
    // is agreed so every rank exits alike.
    std::optional<Error> err;
    if (comm->rank() == 0) {
      try {
        outputs(a).emit([&](report::Reporter& rep) { rep.check_fleet(nodes); });
      } catch (const Error& e) {
        err = e;
      }
    }
    comm::agree_or_throw(*comm, err ? &*err : nullptr, timeout);
    return check::fleet_exit_code(nodes);
  } catch (const Error& e) {
    return finish_with_agreed_error(*comm, e);
  }
}
#endif

int execute(const CheckArgs& a, const Context& ctx) {
  check_writable(a);
  if (!a.judge_file.empty()) {
    const check::CheckResult r = check::judge_recorded(a.opts, a.judge_file);
    publish_node(a, r);
    return r.pass ? 0 : 1;
  }
#ifdef XFERBENCH_CHECK_MPI
  if (comm::started_by_launcher([](const char* name) -> const char* { return std::getenv(name); }))
    return execute_fleet(a, ctx);
#endif
  // From here a signal stops the measuring; what was judged is still
  // printed and written (verdict interrupted, exit 130 / 143).
  StopSignals signals;
  const check::CheckResult r = measure_node(a, ctx);
  publish_node(a, r);
  return check::check_exit_code(r);
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
  cmd->add_option("--judge", a->judge_file, "Judge a recorded run JSON instead of measuring (no lint, no telemetry)");
  cmd->add_option("--timeout", a->gather_timeout_s, "Under mpirun/srun: seconds to wait for every node's result")
      ->capture_default_str();
  add_output_options(*cmd, a->out, false);
  add_stop_options(*cmd, a->stop, false);
  cmd->footer(
      "Expectations, in order: the --spec entry for a cell, the same cell of --baseline, then built-in\n"
      "minimums of the theoretical peak (PCIe 75%, PCIe both ways 65%, NVLink 70%, PCIe P2P 70%, device\n"
      "memory 70%). A cell below 85% of identical GPUs' median (latency above 115%) fails too.\n"
      "An interrupted check writes what was judged. See docs/check.md and docs/interrupts.md.");
  set_exit_code_footer(*cmd);
  reject_empty_values(*cmd);
  cmd->callback([&ctx, a]() {
    validate(*a, ctx.argv);
    ctx.action = [a, &ctx]() { return execute(*a, ctx); };
  });
}

}  // namespace xb::app
