// xferbench sweep: one transfer (a --do spec or a named case) over a range
// of sizes, with the startup/asymptotic-bandwidth fit. Every argument is
// checked in the CLI callback, before any GPU is touched.
#include <algorithm>
#include <cstdint>
#include <iostream>
#include <limits>
#include <memory>

#include <fmt/format.h>

#include "app/cli.hpp"
#include "app/command.hpp"
#include "app/fleet_launch.hpp"
#include "app/interrupt.hpp"
#include "app/output.hpp"
#include "app/progress.hpp"
#include "app/run_options.hpp"
#include "app/validators.hpp"
#include "base/error.hpp"
#include "cases/sm_sweep.hpp"
#include "base/fault.hpp"
#include "cases/resume.hpp"
#include "cases/runner.hpp"
#include "cases/sweep.hpp"
#include "base/time_budget.hpp"
#include "machine/topology.hpp"
#include "base/units.hpp"
#include "frontends/spec.hpp"
#include "cases/sweep_json.hpp"
#include "report/output_file.hpp"
#include "report/reporter.hpp"

namespace xb::app {
namespace {

struct SweepOptions {
  std::vector<std::string> specs;
  std::string testcase, min_size, max_size, step, streams = "per-transfer";
  double factor = 2.0;
  bool factor_given = false;
  std::string sms, buffer_size;  // --sms [LIST], --buffer-size (SM budget sweeps)
  bool sms_given = false;
  RunOptions sampling;  // only the sampling fields are registered and used
};

struct SweepPlan {
  bool sms = false;     // an SM budget sweep (sms_req) instead of a size sweep (req)
  SmSweepRequest sms_req;
  SweepRequest req;
  std::vector<TransferRequest> transfers;
  StreamMode streams = StreamMode::per_transfer;
};

void add_sweep_options(CLI::App& cmd, SweepOptions& o) {
  cmd.add_option("--do", o.specs, "Transfer(s) to sweep, bwtest grammar (0:HtoD, 0:DtoD:peer=1); repeatable; size ignored");
  cmd.add_option("-t,--testcase", o.testcase, "Named case to sweep, by name or index (see 'xferbench cases')");
  cmd.add_option("--min", o.min_size, "Smallest size in bytes (K/M/G binary suffixes); required unless --sms");
  cmd.add_option("--max", o.max_size, "Largest size in bytes (always measured); required unless --sms");
  cmd.add_option("--sms", o.sms,
                 "SM budget sweep of the -t case: its kernel on 1, 2, 4, ... and all SMs (or the counts given, "
                 "e.g. --sms 1,8,32,all), on SMs spread over the GPU, then the named case again")
      ->expected(0, 1);
  cmd.add_option("--buffer-size", o.buffer_size, "With --sms: bytes per copy (default 512M)");
  cmd.add_option("--factor", o.factor, "Multiply the size by F each step")->capture_default_str();
  cmd.add_option("--step", o.step, "Add BYTES each step instead of multiplying");
  cmd.add_option("--streams", o.streams, "Stream mode for --do: per-transfer, per-device, only-one")->capture_default_str();
  RunOptions& s = o.sampling;
  cmd.add_option("-i,--samples", s.samples, "Take exactly N samples per size (default: adaptive)")
      ->check(int_at_least("-i/--samples", 1));
  cmd.add_option("--min-samples", s.min_samples, "Adaptive sampling: at least N samples")->capture_default_str();
  cmd.add_option("--max-samples", s.max_samples, "Adaptive sampling: at most N samples")->capture_default_str();
  cmd.add_option("--target-error", s.target_error_pct, "Adaptive sampling: median relative error goal, percent")
      ->capture_default_str();
  cmd.add_option("--budget", s.budget_s, "Adaptive sampling: seconds per size")->capture_default_str();
  cmd.add_option("--sample-ms", s.sample_ms, "Target duration of one sample in ms")->capture_default_str();
  cmd.add_option("--copies", s.copies, "Copies per sample (default: from --sample-ms)")
      ->check(int_at_least("--copies", 1));
  cmd.add_option("--gate-timeout", s.gate_timeout_s, "Seconds the gate kernel waits")->capture_default_str();
  cmd.add_flag("-m,--mean", s.mean, "Report the mean of samples instead of the median");
  cmd.add_flag("-s,--skip-verification", s.skip_verification, "Do not verify data after the timed copies");
  cmd.add_flag("-d,--disable-affinity", s.disable_affinity, "No NUMA placement of host buffers and the thread");
  add_output_options(cmd, s.out);
  add_stop_options(cmd, s.stop, true);
}

const CaseDef* sweepable_case(const std::string& name) {
  const CaseDef* def = select_cases({name}, {}).at(0);
  if (def->pattern == Pattern::host_device_latency || def->pattern == Pattern::d2d_latency)
    fail(ErrorKind::usage, fmt::format("case '{}' measures latency, which does not depend on the size: sweep a bandwidth "
                                       "case or a --do spec", def->name));
  return def;
}

// The --sms list's syntax, before any GPU work (README: "before any GPU
// work"): each item "all" or a whole number of at least 1. The counts are
// checked against the GPUs' SM counts once those are known.
void check_sms_syntax(const std::string& text) {
  std::size_t start = 0;
  while (!text.empty() && start <= text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, end - start);
    start = end + 1;
    if (item == "all") continue;
    std::int64_t n = 0;
    try {
      n = parse_int(item, "--sms");
    } catch (const Error&) {
      n = 0;
    }
    if (n < 1 || n > std::numeric_limits<int>::max())
      fail(ErrorKind::usage, fmt::format("invalid --sms '{}': '{}' is not an SM count (a whole number of at least 1) "
                                         "or 'all', e.g. 1,2,8,all", text, item));
  }
}

// --sms: an SM or TMA copy case at one size, over SM budgets.
SweepPlan build_sms_plan(const SweepOptions& o, const std::vector<std::string>& argv) {
  if (o.testcase.empty() || !o.specs.empty())
    fail(ErrorKind::usage, "--sms sweeps a named case: give -t/--testcase NAME (an SM or TMA copy case) and no --do");
  for (const auto& [given, name] : {std::pair{!o.min_size.empty(), "--min"}, std::pair{!o.max_size.empty(), "--max"},
                                    std::pair{o.factor_given, "--factor"}, std::pair{!o.step.empty(), "--step"}})
    if (given) fail(ErrorKind::usage, fmt::format("{} sweeps sizes; --sms measures one size (--buffer-size)", name));
  SweepPlan plan;
  plan.sms = true;
  SmSweepRequest& r = plan.sms_req;
  r.def = sm_sweep_case(o.testcase);
  r.sms_text = o.sms;
  if (!o.buffer_size.empty()) r.bytes = positive_size(o.buffer_size, "--buffer-size");
  const RunRequest sampling = build_request(o.sampling, argv);
  r.measure = sampling.measure;
  r.command_line = argv;
  check_sms_syntax(o.sms);
  return plan;
}

// Throws Error(usage) naming the bad value; touches no GPU.
SweepPlan build_plan(const SweepOptions& o, const std::vector<std::string>& argv) {
  if (o.sms_given) return build_sms_plan(o, argv);
  if (!o.buffer_size.empty()) fail(ErrorKind::usage, "--buffer-size applies to --sms; size sweeps take --min and --max");
  if (o.specs.empty() == o.testcase.empty()) fail(ErrorKind::usage, "give exactly one of --do SPEC or -t/--testcase NAME");
  if (o.min_size.empty() || o.max_size.empty())
    fail(ErrorKind::usage, "--min and --max are required (the size range), unless --sms sweeps SM counts");
  if (o.factor_given && !o.step.empty()) fail(ErrorKind::usage, "give --factor or --step, not both");
  SweepPlan plan;
  SweepRange range;
  range.min_bytes = parse_size(o.min_size, "--min");
  range.max_bytes = parse_size(o.max_size, "--max");
  range.factor = o.factor;
  if (!o.step.empty()) range.step_bytes = positive_size(o.step, "--step");
  plan.req.sizes = sweep_sizes(range);
  const RunRequest sampling = build_request(o.sampling, argv);
  plan.req.measure = sampling.measure;
  // One launch per copy: the fitted startup then includes the kernel launch,
  // as it includes the copy engine's per-copy work (docs/sweep.md).
  plan.req.measure.sm_repeat_in_kernel = false;
  plan.req.command_line = argv;
  if (!o.testcase.empty()) {
    plan.req.named_case = sweepable_case(o.testcase);
  } else {
    // Several --do values run together, as several specs in one value do.
    std::string joined;
    for (const auto& s : o.specs) joined += (joined.empty() ? "" : " ") + s;
    plan.transfers = parse_transfer_spec(joined);
    plan.streams = parse_stream_mode(o.streams);
    plan.req.spec = joined;
  }
  return plan;
}

int execute_sms(const SweepPlan& plan, const OutputOptions& out, const Context& ctx) {
  check_output_writable(out);
  const System sys = discover_system(false);
  Progress progress(progress_enabled(ctx), std::cerr);
  const SmSweepResult r = run_sm_sweep(sys, plan.sms_req, [&](int sms, std::size_t done, std::size_t total) {
    progress.update(fmt::format("[{}/{}] {} SMs done", done, total, sms > 0 ? std::to_string(sms) : "all"));
  });
  progress.finish();
  report::Outputs(out.format, out.file).emit([&](report::Reporter& rep) { rep.sm_sweep(r); });
  return r.status == SweepStatus::failed ? 1 : 0;
}

int execute(SweepPlan plan, const OutputOptions& out, const StopOptions& stop, const Context& ctx) {
  if (plan.sms) return execute_sms(plan, out, ctx);
  check_output_writable(out);
  const auto resume_doc = read_resume_file(stop.resume, records::kSweepSchemaName);
  FaultPlan faults = FaultPlan::from_env();
  // From here a signal stops the sweep; the sizes measured are still written.
  StopSignals signals;
  TimeBudget budget(stop.time_limit_s);
  budget.arm();
  const auto source = ctx.open_source ? ctx.open_source(plan.req.measure) : open_gpu_source(plan.req.measure);
  const System& sys = source->system();
  const auto earlier = resumed(stop.resume, resume_doc, sys, ctx.argv, records::decode_sweep);
  if (!plan.req.named_case) plan.req.scenario = expand_requests(plan.transfers, sys.gpu_count(), plan.streams);
  // Text rows go out as each size is measured (flushed, so a pipe sees them
  // too); on a terminal the progress line stays below them. A resumed sweep
  // prints its merged rows, those of FILE included, once it ends.
  report::Outputs outputs(out.format, out.file);
  const bool stream = outputs.screen().streams() && !earlier;
  Progress progress(progress_enabled(ctx), std::cerr);
  const auto on_size = [&](const SweepResult& partial, std::size_t done, std::size_t total) {
    if (stream) progress.print_above([&] { outputs.screen().sweep_rows(partial); });
    if (done < total) progress.update(fmt::format("[{}/{}] {} bytes", done + 1, total, partial.sizes[done]));
  };
  const SweepResult r =
      run_sweep(*source, plan.req, on_size, RunControls{&budget, &faults, nullptr}, earlier ? &*earlier : nullptr);
  progress.finish();
  outputs.emit([&](report::Reporter& rep) { rep.sweep(r); });
  return ending(r.completion, r.status == SweepStatus::failed).exit_code;
}

// The same sweep, silent, for one node of a fleet (docs/fleet.md), as
// run's measure_node.
fleet::NodeOutcome measure_node(SweepPlan plan, const StopOptions& stop, const Context& ctx) {
  if (!stop.resume.empty())
    fail(ErrorKind::usage, "--resume is not supported on several nodes: resume each node's sweep on its own");
  NodeControls node(stop.time_limit_s);
  const auto source = ctx.open_source ? ctx.open_source(plan.req.measure) : open_gpu_source(plan.req.measure);
  if (!plan.req.named_case)
    plan.req.scenario = expand_requests(plan.transfers, source->system().gpu_count(), plan.streams);
  const SweepResult r = run_sweep(*source, plan.req, {}, node.controls());
  const int code = ending(r.completion, r.status == SweepStatus::failed).exit_code;
  return node_outcome(records::sweep_json(r), r.completion.stop, code);
}

}  // namespace

void add_sweep_command(CLI::App& root, Context& ctx) {
  auto* cmd = root.add_subcommand("sweep", "Measure one transfer (--do SPEC or -t CASE) over a range of sizes, with a fit "
                                           "of startup time and asymptotic bandwidth");
  auto opts = std::make_shared<SweepOptions>();
  add_sweep_options(*cmd, *opts);
  auto fleet_opts = std::make_shared<FleetOptions>();
  add_fleet_options(*cmd, *fleet_opts);
  cmd->footer(
      "Rows, printed as each size is measured: size, time per copy, bandwidth, % of the link's peak, series;\n"
      "then per series its link, peak and a least-squares fit of\n"
      "time = startup + size / asymptotic bandwidth (relative residuals), and n_half, the size reaching half of it.\n"
      "Sweeps between processes are 'mpirun -np 2 xferbench pingpong -n N' (its table is a size sweep).\n"
      "Under mpirun/srun each node is swept once by its first process; several nodes give a fleet (docs/fleet.md).\n"
      "--sms: bandwidth of an SM or TMA copy case against the SMs its kernel may use, and the fewest SMs reaching\n"
      "90% and 95% of the all-SM figure (docs/sweep.md); --sms 0 or more SMs than a GPU has: exit 2. Under a\n"
      "launcher an --sms sweep runs on rank 0's node only. The -o file is checked before measuring; an\n"
      "interrupted sweep writes the sizes measured.");
  finish_command(*cmd, [&ctx, opts, fleet_opts, cmd]() {
    opts->factor_given = cmd->count("--factor") > 0;
    opts->sms_given = cmd->count("--sms") > 0;
    check_fleet_options(*fleet_opts);
    validate_stop_options(opts->sampling.stop);
    auto plan = std::make_shared<SweepPlan>(build_plan(*opts, ctx.argv));
    ctx.action = [plan, opts, fleet_opts, &ctx]() {
      // A fleet compares size sweeps; an SM budget sweep is one node's curve.
      fleet::MeasureNode measure;
      if (!plan->sms) measure = [&] { return measure_node(*plan, opts->sampling.stop, ctx); };
      return run_single_or_per_node(ctx, {"sweep", opts->sampling.out, *fleet_opts,
                                          [&] { return execute(*plan, opts->sampling.out, opts->sampling.stop, ctx); }, measure});
    };
  });
}

}  // namespace xb::app
