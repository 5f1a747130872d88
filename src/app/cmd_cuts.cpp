// xferbench cuts: CUts (CUDA Transfer Streams) with its own spellings, so
// its users keep their muscle memory: -d/--dtoh, -h/--htod, -p/--dtod,
// -i/--iter/--iterations, -s/--size, -n, and -?/--help, --usage,
// -V/--version as CUts' argp parser spells them. The same plan
// also serves 'xferbench run --do / --htod ...'; execute_scenario, shared by
// both, lives here.
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "app/cli.hpp"
#include "app/command.hpp"
#include "app/fleet_launch.hpp"
#include "app/interrupt.hpp"
#include "app/output.hpp"
#include "app/progress.hpp"
#include "app/run_options.hpp"
#include "app/validators.hpp"
#include "cases/concurrent.hpp"
#include "base/error.hpp"
#include "base/fault.hpp"
#include "base/input_file.hpp"
#include "cases/resume.hpp"
#include "measure/sample_source.hpp"
#include "base/stop.hpp"
#include "base/time_budget.hpp"
#include "machine/topology.hpp"
#include "records/scenario_json.hpp"
#include "report/output_file.hpp"
#include "report/reporter.hpp"

namespace xb::app {
namespace {

void add_cuts_options(CLI::App& cmd, RunOptions& o) {
  // CUts' own help and version flags, first: -h is --htod, as in CUts.
  cmd.set_help_flag("-?,--help", "Print this help message and exit");
  cmd.add_flag_callback("--usage", [] { throw CLI::CallForHelp(); }, "Same as --help");
  cmd.set_version_flag("-V,--version", std::string("xferbench ") + XFERBENCH_VERSION);
  ConcurrentOptions& c = o.concurrent;
  o.cuts_flags.dtoh = cmd.add_option("-d,--dtoh", c.dtoh, "GPU id for a Device to Host transfer (repeatable)")
                          ->allow_extra_args(false);
  o.cuts_flags.htod =
      cmd.add_option("-h,--htod", c.htod, "GPU id for a Host to Device transfer (repeatable)")->allow_extra_args(false);
  o.cuts_flags.dtod = cmd.add_option("-p,--dtod", c.dtod, "GPU pair DST,SRC for a peer-to-peer transfer: the first "
                                                          "id is the destination (repeatable)")->allow_extra_args(false);
  cmd.add_option("-i,--iter,--iterations", c.iterations, "Copies per transfer (default 100)")
      ->check(non_empty("-i/--iter"));
  cmd.add_option("-s,--size", c.size, "Bytes per copy, K/M/G binary suffixes (default 1073741824)")
      ->check(non_empty("-s/--size"));
  cmd.add_flag("-n,--no-numa-affinity", c.no_numa_affinity, "Do not place host buffers on the GPU's NUMA node");
  cmd.add_option("--streams", c.streams, "Stream mode: per-transfer (default, as CUts), per-device, only-one");
  cmd.add_option("--samples", o.samples, "Repeat the timed iterations N times and report the median (default 1)")
      ->check(int_at_least("--samples", 1));
  cmd.add_flag("--skip-verification", o.skip_verification, "Do not verify data after the timed copies");
  cmd.add_option("--gate-timeout", o.gate_timeout_s, "Seconds the gate kernel waits")->capture_default_str();
  add_output_options(cmd, o.out, true, {"cuts"});
  add_stop_options(cmd, o.stop, true);
}

// The measurement source, with the spec that needed a GPU named when there is none.
std::unique_ptr<SampleSource> open_for(const ScenarioPlan& plan, const SourceFactory& open_source) {
  try {
    return open_source ? open_source(plan.measure) : open_gpu_source(plan.measure);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::no_device || plan.requests.empty()) throw;
    const TransferRequest* quoted = &plan.requests.front();
    for (const TransferRequest& r : plan.requests)
      if (r.all_devices) quoted = &r;
    fail(ErrorKind::no_device, fmt::format("transfer spec '{}' needs a GPU: {}", quoted->spec, e.what()));
  }
}

std::string scenario_progress(const ScenarioPlan& plan, std::size_t transfers) {
  return fmt::format("{} scenario, {} transfer{}", plan.front_end == "cuts" ? "CUts" : "--do", transfers,
                     transfers == 1 ? "" : "s");
}

// The plan expanded for this machine's GPUs and checked (peer access and
// ids), before any allocation.
ScenarioRequest scenario_request(const ScenarioPlan& plan, const System& sys) {
  ScenarioRequest req;
  req.scenario = expand_requests(plan.requests, sys.gpu_count(), plan.streams);
  req.front_end = plan.front_end;
  req.command_line = plan.command_line;
  check_scenario(sys, req.scenario);
  return req;
}

// A scenario is one cell: --resume measures it again unless FILE already
// holds its complete result (passed or failed), which is then written as
// it was (the record read back and written by its codec).
bool resume_complete(const ScenarioPlan& plan, const std::optional<nlohmann::json>& resume_doc, const System& sys,
                     const OutputOptions& out, report::Reporter& screen, const Context& ctx) {
  if (!resume_doc) return false;
  const nlohmann::json& doc = *resume_doc;
  const std::string name = "'" + plan.stop.resume + "'";
  check_same_identity(identity_of(doc, name), identity_of(sys, ctx.argv), name);
  const std::string status = string_field(doc, "status");
  if (status != "passed" && status != "failed") return false;
  const ScenarioResult r = records::decode_scenario(doc, name);
  screen.scenario_resumed(plan.stop.resume, r);
  if (out.file.empty()) return true;
  std::ostringstream file;  // JSON, whatever the screen's format
  report::make_reporter("json", file)->scenario_resumed(plan.stop.resume, r);
  report::write_output_file(out.file, file.str());
  return true;
}

// Measures under the stop state and the fault hook, starting from the
// scenario as described (`r`); a stop or an error becomes the result's
// status, so the result is always written.
ScenarioResult measure(SampleSource& src, const ScenarioRequest& req, ScenarioResult r, const SampleCallback& on_sample) {
  FaultPlan faults = FaultPlan::from_env();
  const FaultKind fault = faults.match({"scenario"}, 0);
  r.command_line = req.command_line;
  r.measure = src.options();
  try {
    throw_if_stopped();
    inject_fault(fault, "scenario");
    r = run_scenario(src, req, on_sample);
    if (fault == FaultKind::verify && !r.transfers.empty()) r.transfers[0].verification = {Verification::Status::failed, 0};
  } catch (const Stopped& stop) {
    record_stop(r.completion, stop);
    r.completion.not_run = {"scenario"};
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::usage) throw;  // a spec this machine cannot run: nothing was measured
    r.completion.error = e.what();
    r.completion.error_kind = e.kind();
  }
  return r;
}

}  // namespace

fleet::NodeOutcome measure_scenario_node(const ScenarioPlan& plan) {
  const auto src = open_for(plan, {});
  const ScenarioRequest req = scenario_request(plan, src->system());
  const ScenarioResult r = run_scenario(*src, req);
  return node_outcome(records::scenario_json(r), StopReason::none, all_valid(r) ? 0 : 1);
}

int execute_scenario(const ScenarioPlan& plan, const OutputOptions& out, const Context& ctx) {
  check_output_writable(out);
  (void)FaultPlan::from_env();  // a malformed XFERBENCH_FAULT is a usage error before any GPU work
  const auto resume_doc = read_resume_file(plan.stop.resume, records::kScenarioSchemaName);
  StopSignals signals;
  TimeBudget budget(plan.stop.time_limit_s);
  budget.arm();
  const auto src = open_for(plan, ctx.open_source);
  const System& sys = src->system();
  report::Outputs outputs(out.format, out.file);
  if (resume_complete(plan, resume_doc, sys, out, outputs.screen(), ctx)) return 0;
  const ScenarioRequest req = scenario_request(plan, sys);
  ScenarioResult described =
      describe_scenario(sys, req.scenario, [&src](const Location& l, int gpu) { return src->resolve(l, gpu); });
  described.front_end = plan.front_end;
  outputs.screen().scenario_begin(described);
  Progress progress(progress_enabled(ctx), std::cerr);
  const std::string what = scenario_progress(plan, req.scenario.transfers.size());
  progress.update(what, 0);
  const ScenarioResult r = measure(*src, req, described, [&](int samples) { progress.update(what, samples); });
  progress.finish();
  outputs.emit([&](report::Reporter& rep) { rep.scenario(r); });
  return ending(r.completion, !all_valid(r)).exit_code;
}

void add_cuts_command(CLI::App& root, Context& ctx) {
  auto* cmd = root.add_subcommand("cuts", "CUts (CUDA Transfer Streams) with its own options: concurrent HtoD, DtoH "
                                          "and peer transfers, host buffers on the GPU's NUMA node");
  auto opts = std::make_shared<RunOptions>();
  add_cuts_options(*cmd, *opts);
  cmd->footer(
      "Example: xferbench cuts --dtoh=0 --htod=1 --dtod=1,0\n"
      "Each transfer runs --iterations copies of --size bytes at the same time as the others (one sample,\n"
      "as CUts; --samples N repeats it). Prints CUts' lines, then the xferbench table, the span, aggregate\n"
      "bandwidth, overlap and timeline (--format cuts: CUts' lines only, as the 'cuts' name prints).\n"
      "Same as 'xferbench run --htod/--dtoh/--dtod'. See docs/concurrent.md.\n"
      "The -o file is checked before measuring. An interrupted run is written as not measured; --resume FILE\n"
      "runs it again. See docs/interrupts.md.");
  finish_command(*cmd, [&ctx, opts, cmd]() {
    validate_stop_options(opts->stop);
    record_cuts_order(*cmd, opts->cuts_flags, opts->concurrent);
    // run's own hint names --do, which cuts does not take.
    if (!opts->concurrent.any_transfer())
      fail(ErrorKind::usage, "no transfer given (use -h/--htod ID, -d/--dtoh ID or -p/--dtod DST,SRC, e.g. "
                             "--dtoh=0 --htod=1)");
    auto plan = std::make_shared<ScenarioPlan>(build_scenario_plan(*opts, ctx.argv));
    ctx.plan = *plan;
    ctx.action = [plan, opts, &ctx]() { return execute_scenario(*plan, opts->out, ctx); };
  });
}

}  // namespace xb::app
