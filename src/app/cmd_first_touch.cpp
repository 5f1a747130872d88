// xferbench first-touch: the gpudirect-p2p-overalloc seed's measurement
// (the first send from a freshly allocated GPU buffer against later ones)
// over every pingpong transport, with a per-phase breakdown, an
// overallocation sweep and a host-memory analogue. The measurement is
// firsttouch::run (collective over MPI) or firsttouch::run_host_analogue
// (one process); this file parses, launches, and decides who prints.
#include <iostream>
#include <memory>

#include "app/command.hpp"
#include "app/interrupt.hpp"
#include "app/mpi_errors.hpp"
#include "app/output.hpp"
#include "comm/mpi_comm.hpp"
#include "base/error.hpp"
#include "base/fault.hpp"
#include "base/run_control.hpp"
#include "base/time_budget.hpp"
#include "firsttouch/host_analogue.hpp"
#include "firsttouch/runner.hpp"
#include "report/reporter.hpp"

namespace xb::app {
namespace {

constexpr const char* kFirstTouchHint =
    "launch it with: mpirun -np 2 xferbench first-touch ITERATIONS SUB_ITERATIONS P2P_SIZE BUFFER_SIZE OVERALLOC_SIZE";

struct FirstTouchArgs {
  firsttouch::RawArgs raw;
  OutputOptions output;
  StopOptions stop;
};

// Returns --sweep-overalloc, whose presence (with or without a list) turns the sweep on.
CLI::Option* add_options(CLI::App& cmd, FirstTouchArgs& a) {
  cmd.add_option("values", a.raw.positional,
                 "ITERATIONS SUB_ITERATIONS P2P_SIZE BUFFER_SIZE OVERALLOC_SIZE (sizes take K, M, G suffixes)")
      ->expected(1, 5);
  CLI::Option* sweep = cmd.add_option("--sweep-overalloc", a.raw.sweep_list,
                                       "Measure every overalloc in LIST (default 0,1,4K,64K,2M); put it after the "
                                       "values or write --sweep-overalloc=LIST")
                           ->expected(0, 1);
  cmd.add_option("--buffer-sizes", a.raw.buffer_sizes, "Comma-separated buffer sizes, replacing BUFFER_SIZE");
  cmd.add_flag("--host", a.raw.host,
               "Host-memory analogue in this process (no mpirun): fresh pageable, pinned and registered host "
               "buffers -> GPU 0");
  cmd.add_option("--memory", a.raw.memory, "Where both ranks' fresh buffers live: gpu or host")->capture_default_str();
  cmd.add_option("--transport", a.raw.transport, "auto, mpi, staged, ipc or nccl (as pingpong)")->capture_default_str();
  cmd.add_option("--cuda-aware", a.raw.cuda_aware, "Whether MPI accepts GPU pointers: yes, no or auto (detect)")
      ->capture_default_str();
  cmd.add_option("--timeout", a.raw.timeout_s, "Seconds to wait for a peer before giving up")->capture_default_str();
  add_output_options(cmd, a.output, true, {"seed"});
  add_stop_options(cmd, a.stop, false);
  return sweep;
}

// The text and seed formats are printed as the run goes (as pingpong's
// rows): the head after the warm-up, then each iteration's "[i:j] time"
// lines (a sweep: each variant's row) as soon as it is measured, by the
// printing rank; the summaries follow at the end. JSON and CSV, and
// --output files, are written at the end only.
firsttouch::Observer live_rows(report::Reporter& screen, bool printer) {
  if (!printer || !screen.streams()) return {};
  firsttouch::Observer obs;
  obs.variant_started = [&screen](const firsttouch::Result& r) { screen.first_touch_rows(r, false); };
  obs.iteration_done = obs.variant_started;
  obs.variant_done = [&screen](const firsttouch::Result& r) { screen.first_touch_rows(r, true); };
  return obs;
}

// The communicator's launch errors name pingpong; say first-touch instead.
std::unique_ptr<comm::Communicator> make_communicator() {
  try {
    return comm::make_mpi_communicator(2);
  } catch (const Error& e) {
    std::string msg = e.what();
    const std::string hint = comm::kLaunchHint;
    const auto at = msg.find(hint);
    if (at != std::string::npos) msg.replace(at, hint.size(), kFirstTouchHint);
    throw Error(e.kind(), msg);
  }
}

int run_distributed(const FirstTouchArgs& args, const firsttouch::Options& options,
                    const std::vector<std::string>& argv) {
  TimeBudget budget(args.stop.time_limit_s);  // counts from the start, MPI start-up included
  const auto comm = make_communicator();
  // After MPI_Init, so these handlers are the ones in place. A signal to
  // any rank stops every rank at the next iteration (runner.hpp).
  StopSignals signals;
  budget.arm();
  FaultPlan faults = FaultPlan::from_env(comm->rank());
  RunControl control(&budget, &faults);
  try {
    on_rank0(*comm, options.timeout_s, [&] { check_output_writable(args.output); });
    report::Outputs out(args.output.format, args.output.file);
    firsttouch::Result result = firsttouch::run(*comm, options, firsttouch::default_environment(), &control,
                                                live_rows(out.screen(), comm->rank() == 0));
    result.completion.time_limit_s = args.stop.time_limit_s;
    on_rank0(*comm, options.timeout_s, [&] { out.emit([&](report::Reporter& r) { r.first_touch(result, argv); }); });
    const std::string& error = result.completion.error;
    if (!error.empty() && comm->rank() == 0) std::cerr << "xferbench: error: " << error << std::endl;
    return ending(result.completion, firsttouch::any_failed(result)).exit_code;
  } catch (const Error& e) {
    return finish_with_agreed_error(*comm, e);
  }
}

int run_host(const FirstTouchArgs& args, const firsttouch::Options& options, const std::vector<std::string>& argv) {
  check_output_writable(args.output);
  StopSignals signals;
  TimeBudget budget(args.stop.time_limit_s);
  budget.arm();
  report::Outputs out(args.output.format, args.output.file);
  firsttouch::Result result =
      firsttouch::run_host_analogue(options, firsttouch::default_environment(), live_rows(out.screen(), true));
  result.completion.time_limit_s = args.stop.time_limit_s;
  out.emit([&](report::Reporter& r) { r.first_touch(result, argv); });
  return ending(result.completion, firsttouch::any_failed(result)).exit_code;
}

}  // namespace

void add_first_touch_command(CLI::App& root, Context& ctx) {
  CLI::App* cmd = root.add_subcommand(
      "first-touch",
      "First send from a freshly allocated buffer versus later ones (the gpudirect-p2p-overalloc seed).\n"
      "Launch with: mpirun -np 2 xferbench first-touch 5 3 1K 1G 1");
  auto args = std::make_shared<FirstTouchArgs>();
  CLI::Option* sweep = add_options(*cmd, *args);
  cmd->footer("A SIGINT/SIGTERM to any rank stops every rank before the next iteration and rank 0 writes the\n"
              "iterations measured. XFERBENCH_FAULT=VARIANT/ITERATION:KIND injects a failure for tests\n"
              "(docs/interrupts.md).");
  finish_command(*cmd, [&ctx, args, sweep] {
    args->raw.sweep = sweep->count() > 0;
    // Converting here reports bad values before MPI or any GPU starts.
    const firsttouch::Options options = firsttouch::to_options(args->raw);
    ctx.plan = options;
    validate_stop_options(args->stop);
    (void)FaultPlan::from_env();  // a malformed XFERBENCH_FAULT is a usage error here too
    ctx.action = [args, options, &ctx] {
      return options.host_analogue ? run_host(*args, options, ctx.argv) : run_distributed(*args, options, ctx.argv);
    };
  });
}

}  // namespace xb::app
