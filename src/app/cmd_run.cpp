// xferbench run: named cases (nvbandwidth names, suites), or one concurrent
// scenario described by multi-gpu-bwtest --do specs or CUts flags. Every
// argument is checked in the CLI11 callback, before any GPU is touched.
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "app/cli.hpp"
#include "app/command.hpp"
#include "app/fleet_launch.hpp"
#include "app/nvbandwidth_cli.hpp"
#include "app/interrupt.hpp"
#include "app/output.hpp"
#include "app/progress.hpp"
#include "app/run_options.hpp"
#include "base/error.hpp"
#include "cases/run_plan.hpp"
#include "base/fault.hpp"
#include "cases/resume.hpp"
#include "cases/runner.hpp"
#include "records/topology_file.hpp"
#include "base/time_budget.hpp"
#include "machine/topology.hpp"
#include "records/run_json.hpp"
#include "report/nvbandwidth.hpp"
#include "report/output_file.hpp"
#include "report/reporter.hpp"

namespace xb::app {
namespace {

std::string case_progress(const RunRequest& req, std::size_t index) {
  return fmt::format("[{}/{}] {}", index + 1, req.cases.size(), req.cases[index]->name);
}

// --dry-run: the plan and its estimate; no buffer, no kernel, no copy.
int execute_dry_run(const RunOptions& opts, const RunRequest& req, report::Outputs& out) {
  check_output_writable(opts.out);
  const System sys = opts.topology.empty() ? discover_system(false) : load_topology_file(opts.topology);
  const PairSelection pairs = select_pairs(req.given_pairs, req.sample_pairs, req.pair_seed, sys);
  const RunEstimate est = estimate_run(sys, req.cases, req.buffer_bytes, req.measure, pairs, req.stability_check);
  const report::PlanContext pc{opts.topology, req.buffer_bytes, req.measure};
  out.emit([&](report::Reporter& r) { r.plan(est, sys, pc); });
  return 0;
}

// Measures the cases, printing each as it ends (a piped run shows progress),
// the whole result at the end.
int run_named(const RunOptions& opts, RunRequest req, report::Outputs& out, const Context& ctx) {
  const auto resume_doc = read_resume_file(opts.stop.resume, records::kSchemaName);
  FaultPlan faults = FaultPlan::from_env();
  // From here a signal stops the run; the cells measured are still written.
  StopSignals signals;
  TimeBudget budget(opts.stop.time_limit_s);
  budget.arm();
  const auto source = ctx.open_source ? ctx.open_source(req.measure) : open_gpu_source(req.measure);
  const System& sys = source->system();
  const auto earlier = resumed(opts.stop.resume, resume_doc, sys, ctx.argv, records::decode_run);
  report::Reporter& screen = out.screen();
  RunResult header_only;
  header_only.system = sys;
  header_only.settings.buffer_bytes = req.buffer_bytes;
  header_only.settings.statistic = to_string(req.measure.statistic);
  header_only.settings.measure = req.measure;
  header_only.settings.pairs = select_pairs(req.given_pairs, req.sample_pairs, req.pair_seed, sys);
  screen.run_begin(header_only);  // a piped run shows the header now, and each case as it ends
  Progress progress(progress_enabled(ctx), std::cerr);
  if (screen.streams())
    req.on_stability_start = [&](const Stability& s) { progress.print_above([&] { screen.run_stability(s); }); };
  if (!req.cases.empty()) progress.update(case_progress(req, 0));
  const RunControls controls{&budget, &faults, earlier ? &*earlier : nullptr};
  const RunResult run = run_cases(*source, req, [&](const CaseResult& c, std::size_t done, std::size_t total) {
    if (done < total) progress.update(case_progress(req, done));
    if (screen.streams()) progress.print_above([&] { screen.run_case(c); });
  }, controls);
  progress.finish();
  out.emit([&](report::Reporter& r) { r.run(run); });
  // nvbandwidth's rule: cases and cells waived (also for memory) keep 0; the
  // time limit counts as in run.
  return ending(run.completion, !all_passed(run),
                screen.nvbandwidth_run() ? PartialMeans::time_limit_only : PartialMeans::partial)
      .exit_code;
}

int execute(const RunOptions& opts, const Context& ctx) {
  report::ReportOptions print = report_options(opts.out);
  print.verbose = opts.verbose;
  if (!opts.nvbandwidth_version.empty()) print.layout = report::parse_nvb_layout(opts.nvbandwidth_version);
  report::Outputs out(opts.out.format, opts.out.file, print);
  if (opts.list) {
    // --format nvbandwidth lists as nvbandwidth; any other format, as text.
    (out.screen().nvbandwidth_run() ? out.screen() : *report::make_reporter("text", std::cout)).cases();
    return 0;
  }
  RunRequest req = build_request(opts, ctx.argv);  // validates before any GPU is touched
  if (opts.dry_run) return execute_dry_run(opts, req, out);
  check_output_writable(opts.out);
  return run_named(opts, std::move(req), out, ctx);
}

// The same cases, silent, for one node of a fleet (docs/fleet.md): under
// the same time limit and fault hook, stopped by its own signal or one
// relayed from another node; the cells measured go to rank 0 like a whole
// result (docs/fleet.md, Signals).
fleet::NodeOutcome measure_node(const RunOptions& opts, const Context& ctx) {
  if (!opts.stop.resume.empty())
    fail(ErrorKind::usage, "--resume is not supported on several nodes: resume each node's run on its own");
  const RunRequest req = build_request(opts, ctx.argv);
  NodeControls node(opts.stop.time_limit_s);
  const auto source = ctx.open_source ? ctx.open_source(req.measure) : open_gpu_source(req.measure);
  const RunResult run = run_cases(*source, req, {}, node.controls());
  return node_outcome(records::run_json(run), run.completion.stop, ending(run.completion, !all_passed(run)).exit_code);
}

}  // namespace

int run_nvbandwidth(const NvbInvocation& inv, const Context& ctx) {
  if (inv.list) {
    report::nvb_text_list(std::cout, inv.listed);
    return 0;
  }
  report::Outputs out(inv.json ? "nvbandwidth-json" : "nvbandwidth", "", {inv.print});
  try {
    return nvb_exit_code(inv, run_named(inv.options, inv.request, out, ctx));
  } catch (const Error& e) {
    // The one-line error and the exit code still come from run_action.
    out.screen().run_failed(e.what());
    throw;
  }
}

void add_run_command(CLI::App& root, Context& ctx) {
  auto* cmd = root.add_subcommand("run", "Run named cases (default: the quick suite on every GPU), or concurrent "
                                         "transfers given as --do specs (multi-gpu-bwtest) or CUts flags");
  auto opts = std::make_shared<RunOptions>();
  add_run_options(*cmd, *opts);
  auto fleet_opts = std::make_shared<FleetOptions>();
  add_fleet_options(*cmd, *fleet_opts);
  cmd->footer(
      "Concurrent transfers: --do=SPEC (repeatable) as multi-gpu-bwtest, e.g. --do=all:1024:both or\n"
      "--do=0:DtoH:64M:mapped; extensions DtoD with peer=N, pageable/managed, numa=N, engine=ce|sm.\n"
      "CUts flags: --htod=ID --dtoh=ID --dtod=DST,SRC --iterations N --size BYTES -n ('xferbench cuts'\n"
      "takes CUts' own short options). multi-gpu-bwtest's --list is 'xferbench --list'. See docs/concurrent.md.\n"
      "Under mpirun/srun each node is measured once by its first process; several nodes give one fleet table\n"
      "and file (docs/fleet.md).");
  finish_command(*cmd, [&ctx, opts, fleet_opts, cmd]() {
    // Validate now so argument errors surface before any GPU is touched.
    check_fleet_options(*fleet_opts);
    validate_stop_options(opts->stop);
    if (opts->concurrent.any_transfer()) {
      record_cuts_order(*cmd, opts->cuts_flags, opts->concurrent);
      auto plan = std::make_shared<ScenarioPlan>(build_scenario_plan(*opts, ctx.argv));
      ctx.plan = *plan;
      ctx.action = [plan, opts, fleet_opts, &ctx]() {
        return run_single_or_per_node(ctx, {"run", opts->out, *fleet_opts,
                                            [&] { return execute_scenario(*plan, opts->out, ctx); },
                                            [&] { return measure_scenario_node(*plan); }});
      };
      return;
    }
    if (!opts->list) ctx.plan = build_request(*opts, ctx.argv);
    ctx.action = [opts, fleet_opts, &ctx]() {
      fleet::MeasureNode measure;
      // A listing or a dry run measures nothing: rank 0 prints it alone.
      if (!opts->list && !opts->dry_run) measure = [&] { return measure_node(*opts, ctx); };
      const auto single = [&] {
        return with_unmeasured_metrics(opts->out, "run", [&] { return execute(*opts, ctx); });
      };
      return run_single_or_per_node(ctx, {"run", opts->out, *fleet_opts, single, measure});
    };
  });
}

}  // namespace xb::app
