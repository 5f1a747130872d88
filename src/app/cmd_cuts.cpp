// xferbench cuts: CUts (CUDA Transfer Streams) with its own spellings, so
// its users keep their muscle memory: -d/--dtoh, -h/--htod, -p/--dtod,
// -i/--iter/--iterations, -s/--size, -n, and -?/--help, --usage,
// -V/--version as CUts' argp parser spells them. The same plan
// also serves 'xferbench run --do / --htod ...'; execute_scenario, shared by
// both, lives here.
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "app/cli.hpp"
#include "app/command.hpp"
#include "app/fleet_launch.hpp"
#include "app/output.hpp"
#include "app/progress.hpp"
#include "app/run_options.hpp"
#include "app/validators.hpp"
#include "core/concurrent.hpp"
#include "core/error.hpp"
#include "core/topology.hpp"
#include "report/output_file.hpp"
#include "report/report.hpp"
#include "report/scenario_report.hpp"
#include "report/seed_formats.hpp"

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
}

// discover_system, with the spec that needed a GPU named when there is none.
System discover_for(const std::vector<TransferRequest>& requests) {
  try {
    return discover_system(false);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::no_device || requests.empty()) throw;
    const TransferRequest* quoted = &requests.front();
    for (const TransferRequest& r : requests)
      if (r.all_devices) quoted = &r;
    fail(ErrorKind::no_device, fmt::format("transfer spec '{}' needs a GPU: {}", quoted->spec, e.what()));
  }
}

std::string scenario_progress(const ScenarioPlan& plan, std::size_t transfers) {
  return fmt::format("{} scenario, {} transfer{}", plan.front_end == "cuts" ? "CUts" : "--do", transfers,
                     transfers == 1 ? "" : "s");
}

void write_outputs(const ScenarioPlan& plan, const ScenarioResult& r, const OutputOptions& out) {
  // The seed tools' own output alone (run under their names).
  if (out.format == "bwtest") report::bwtest_text(std::cout, r);
  if (out.format == "cuts") report::cuts_result_text(std::cout, r);
  if (out.format == "text") {
    if (plan.front_end == "cuts") {
      report::cuts_result_text(std::cout, r);
      std::cout << "\n";
    }
    report::scenario_text(std::cout, r);
  }
  if (out.format == "json") std::cout << report::scenario_json(r).dump(2) << "\n";
  if (out.format == "csv") std::cout << report::scenario_csv(r);
  if (!out.file.empty())
    report::write_output_file(out.file, out.file_is_csv() ? report::scenario_csv(r)
                                                          : report::scenario_json(r).dump(2) + "\n");
}

// The plan expanded for this machine's GPUs and checked (peer access and
// ids), before any allocation.
ScenarioRequest scenario_request(const ScenarioPlan& plan, const System& sys) {
  ScenarioRequest req;
  req.scenario = expand_requests(plan.requests, sys.gpu_count(), plan.streams);
  req.front_end = plan.front_end;
  req.use_mean = plan.use_mean;
  req.command_line = plan.command_line;
  check_scenario(sys, req.scenario);
  return req;
}

}  // namespace

fleet::NodeOutcome measure_scenario_node(const ScenarioPlan& plan) {
  const System sys = discover_for(plan.requests);
  const ScenarioRequest req = scenario_request(plan, sys);
  Measurer measurer(sys, plan.measure);
  const ScenarioResult r = run_scenario(measurer, req);
  return {report::scenario_json(r), all_valid(r) ? 0 : 1};
}

int execute_scenario(const ScenarioPlan& plan, const OutputOptions& out, const Context& ctx) {
  check_output_writable(out);
  const System sys = discover_for(plan.requests);
  const ScenarioRequest req = scenario_request(plan, sys);
  Measurer measurer(sys, plan.measure);
  if ((out.format == "text" || out.format == "cuts") && plan.front_end == "cuts") {
    report::cuts_launch_text(std::cout, describe_scenario(sys, req.scenario, [&measurer](const Location& l, int gpu) {
      return measurer.resolve(l, gpu);
    }));
    std::cout.flush();
  }
  Progress progress(progress_enabled(ctx), std::cerr);
  const std::string what = scenario_progress(plan, req.scenario.transfers.size());
  progress.update(what, 0);
  const ScenarioResult r = run_scenario(measurer, req, [&](int samples) { progress.update(what, samples); });
  progress.finish();
  write_outputs(plan, r, out);
  return all_valid(r) ? 0 : 1;
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
      "Exit codes: 0 passed; 1 verification failed; 2 bad arguments (also a GPU pair without peer access);\n"
      "3 no usable GPU; 7 the -o file cannot be written (checked before measuring).");
  cmd->callback([&ctx, opts, cmd]() {
    record_cuts_order(*cmd, opts->cuts_flags, opts->concurrent);
    auto plan = std::make_shared<ScenarioPlan>(build_scenario_plan(*opts, ctx.argv));
    ctx.plan = *plan;
    ctx.action = [plan, opts, &ctx]() { return execute_scenario(*plan, opts->out, ctx); };
  });
}

}  // namespace xb::app
