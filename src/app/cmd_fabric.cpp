// xferbench fabric: every node pair's GPU<->GPU path over the network, one
// launch (docs/fabric.md). The measurement is fabric::Session (collective
// over MPI); this file parses the options, prints the plan (--dry-run: only
// the plan, no MPI), decides who prints (rank 0) and makes every rank exit
// with rank 0's code.
#include <cstdlib>
#include <iostream>
#include <memory>
#include <mutex>

#include <fmt/format.h>

#include "app/cli.hpp"
#include "app/command.hpp"
#include "app/interrupt.hpp"
#include "app/mpi_errors.hpp"
#include "app/output.hpp"
#include "app/progress.hpp"
#include "app/validators.hpp"
#include "base/units.hpp"
#include "comm/launch_env.hpp"
#include "comm/mpi_comm.hpp"
#include "fabric/polled_comm.hpp"
#include "fabric/runner.hpp"
#include "report/fabric_report.hpp"
#include "report/reporter.hpp"

namespace xb::app {
namespace {

struct FabricArgs {
  std::string buffers = "gpu", size = "64M", latency_size = "8", transport = "auto", rails = "all";
  std::string judge = "all", cuda_aware = "auto", ll_max = "16K", staged_chunk = "4M";
  bool dry_run = false;
  int nodes = 0, ranks_per_node = 1;
  fabric::Options options;
  OutputOptions out;
};

void add_options(CLI::App& cmd, FabricArgs& a) {
  auto& o = a.options;
  cmd.add_option("--buffers", a.buffers, "Each rank's buffers: gpu (by node-local rank), gpu:ID, or host")
      ->capture_default_str();
  cmd.add_option("--size", a.size, "Bandwidth message size (K/M/G)")->capture_default_str();
  cmd.add_option("--window", o.window, "Bandwidth messages in flight per repetition (osu_bw's window)")
      ->capture_default_str();
  cmd.add_option("--loop-count", o.bw_reps, "Timed bandwidth repetitions per direction")->capture_default_str();
  cmd.add_option("--warmup", o.bw_warmup, "Untimed bandwidth repetitions per direction first")->capture_default_str();
  cmd.add_option("--latency-size", a.latency_size, "Latency message size")->capture_default_str();
  cmd.add_option("--latency-loop-count", o.latency_reps, "Timed latency round trips (1000: p99 is a real percentile)")
      ->capture_default_str();
  cmd.add_option("--latency-warmup", o.latency_warmup, "Untimed latency round trips first")->capture_default_str();
  cmd.add_option("--transport", a.transport, "auto, mpi, staged, ipc, nccl or device (pingpong's transports)")
      ->capture_default_str();
  cmd.add_option("--rails", a.rails, "all: a node pair's rails (GPU i with GPU i) at once; one: one rail at a time")
      ->capture_default_str();
  cmd.add_option("--rounds", o.rounds,
                 "Rounds of random node matchings (0: every pair up to 64 nodes, 16 matchings above)")
      ->capture_default_str();
  cmd.add_option("--seed", o.seed, "Seed of the random matchings")->check(unsigned_number("--seed"))->capture_default_str();
  cmd.add_option("--min-ratio", o.min_ratio, "A pair below this fraction of the median of all pairs is an outlier")
      ->capture_default_str();
  cmd.add_option("--metric", a.judge, "Figures that make a pair an outlier: all, bandwidth or latency")
      ->capture_default_str();
  cmd.add_flag("--fail-on-culprit", o.fail_on_culprit, "Exit 1 when a culprit is named");
  cmd.add_option("--timeout", o.timeout_s, "Seconds to wait for a peer inside a pair; a rank silent for 2 x this + "
                                           "10 s is lost")
      ->capture_default_str();
  cmd.add_option("--cuda-aware", a.cuda_aware, "Whether MPI accepts GPU pointers: yes, no or auto")->capture_default_str();
  cmd.add_option("--ll-max", a.ll_max, "device transport: largest LL message")->capture_default_str();
  cmd.add_option("--staged-chunk", a.staged_chunk, "staged transport: pipeline chunk")->capture_default_str();
  cmd.add_option("--assume-gbps", o.assume_gbps, "Bandwidth the time estimate assumes (GB/s each way)")
      ->capture_default_str();
  cmd.add_flag("--dry-run", a.dry_run, "Print the plan and its estimated time for --nodes N, measure nothing");
  cmd.add_option("--nodes", a.nodes, "--dry-run: the number of nodes")->check(int_at_least("--nodes", 2));
  cmd.add_option("--ranks-per-node", a.ranks_per_node, "--dry-run: ranks (rails) per node")
      ->check(int_at_least("--ranks-per-node", 1))
      ->capture_default_str();
  add_output_options(cmd, a.out, true, {"prometheus"});
}

void convert(FabricArgs& a) {
  auto& o = a.options;
  try {
    o.buffers = pingpong::parse_endpoint(a.buffers);
  } catch (const Error&) {
    fail(ErrorKind::usage, fmt::format("invalid --buffers '{}': use gpu, gpu:ID or host", a.buffers));
  }
  o.bytes = positive_size(a.size, "--size");
  o.latency_bytes = positive_size(a.latency_size, "--latency-size");
  o.transport = pingpong::parse_transport(a.transport);
  if (a.rails != "all" && a.rails != "one")
    fail(ErrorKind::usage, fmt::format("invalid --rails '{}': expected all or one", a.rails));
  o.rails_one = a.rails == "one";
  o.judge = fabric::parse_judge(a.judge);
  o.cuda_aware = pingpong::parse_cuda_aware(a.cuda_aware);
  o.ll_max_bytes = parse_size(a.ll_max, "--ll-max");
  o.stage_chunk_bytes = parse_size(a.staged_chunk, "--staged-chunk");
  if (!(o.assume_gbps > 0)) fail(ErrorKind::usage, fmt::format("invalid --assume-gbps '{}': must be greater than 0", o.assume_gbps));
  fabric::validate(o);
  if (a.dry_run && a.nodes == 0) fail(ErrorKind::usage, "--dry-run needs --nodes N: the plan is for N nodes");
  if (!a.dry_run && a.nodes > 0) fail(ErrorKind::usage, "--nodes applies to --dry-run only: a run has the launch's nodes");
  if (report::is_metrics(a.out.format) && a.dry_run)
    fail(ErrorKind::usage, "--dry-run writes its plan as text or JSON, not --format prometheus");
}

int dry_run(const FabricArgs& a) {
  if (comm::launcher_world_rank(comm::process_getenv) > 0) return 0;  // under a launcher, rank 0 prints
  check_output_writable(a.out);
  fabric::Result r;
  r.options = a.options;
  const std::vector<int> rails_of(static_cast<std::size_t>(a.nodes), a.ranks_per_node);
  for (int n = 0; n < a.nodes; ++n) r.nodes.push_back({fmt::format("node{}", n), {}, {}});
  r.plan = fabric::make_plan(fabric::node_schedule(a.nodes, a.options.rounds, a.options.seed), rails_of, a.options);
  report::Outputs out(a.out.format, a.out.file);
  out.require(report::Kind::plan);
  out.emit([&](report::Reporter& rep) { rep.fabric_plan(r); });
  return 0;
}

// Under mpirun a signal is followed by SIGKILL about 1 s later; srun waits
// KillWait (30 s by default), time for the orderly ending. mpirun sets
// OMPI_COMM_WORLD_SIZE before the process starts (read before MPI_Init).
double emergency_grace_s(bool by_mpirun) { return by_mpirun ? 0.3 : 5.0; }

void mark_interrupted(fabric::Result& r, StopReason why) {
  r.completion.status = RunStatus::interrupted;
  r.completion.stop = why;
  r.completion.message = stop_message(why) + ", written by rank 0 before the other ranks stopped (rounds finished are kept)";
}

// Rank 0's screen and files, its progress line and its emergency copy.
class Rank0Output {
 public:
  Rank0Output(const FabricArgs& a, const Context& ctx, bool by_mpirun)
      : out_(a.out.format, a.out.file), progress_(progress_enabled(ctx), std::cerr), argv_(ctx.argv) {
    emergency_ = std::make_unique<EmergencyWriter>(emergency_grace_s(by_mpirun), [this](StopReason why) {
      mark_interrupted(copy_, why);
      out_.emit([&](report::Reporter& r) { r.fabric(copy_); });
    });
  }
  fabric::Hooks hooks(fabric::Hooks h, bool text) {
    h.planned = [this, text](const fabric::Result& r) {
      keep(r);
      if (text) progress_.print_above([&] { out_.screen().fabric_plan(with_argv(r)); });
    };
    h.progress = [this](const fabric::Result& r) {
      keep(r);
      int rounds = 0;
      for (const auto& p : r.pairs) rounds = std::max(rounds, p.round + 1);
      progress_.update(fmt::format("fabric: round {} of {} done", rounds, r.plan.rounds));
    };
    return h;
  }
  // Writes the result; returns the exit code (7 when a file cannot be written).
  int write(fabric::Result r) {
    emergency_->finished();
    progress_.finish();
    r.command_line = argv_;
    try {
      out_.emit([&](report::Reporter& rep) { rep.fabric(r); });
    } catch (const Error& e) {
      std::cerr << fmt::format("xferbench: error: {}\n", e.what()) << std::flush;
      return exit_code(e.kind());
    }
    return report::fabric_exit_code(r);
  }

 private:
  fabric::Result with_argv(fabric::Result r) const {
    r.command_line = argv_;
    return r;
  }
  void keep(const fabric::Result& r) {
    emergency_->update([&] { copy_ = with_argv(r); });
  }
  report::Outputs out_;
  Progress progress_;
  std::vector<std::string> argv_;
  fabric::Result copy_;
  std::unique_ptr<EmergencyWriter> emergency_;
};

int run_fabric(const FabricArgs& a, const Context& ctx) {
  // NCCL reads its debug settings when it starts: name its log first.
  fabric::NcclLog nccl_log;
  if (a.options.buffers.gpu) nccl_log.enable();
  const bool by_mpirun = std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr;
  if (!comm::started_by_launcher(comm::process_getenv))
    fail(ErrorKind::comm, "xferbench fabric runs one MPI process per GPU on 2 or more nodes: launch it with srun "
                          "--mpi=pmix -N NODES --ntasks-per-node=GPUS xferbench fabric ... (or mpirun); "
                          "--dry-run --nodes N prints the plan without a launch");
  const auto world = comm::make_mpi_communicator(2);
  fabric::PolledComm comm(*world);
  StopSignals signals;  // after MPI_Init, so these handlers are the ones in place
  FaultPlan slot_faults = FaultPlan::from_env(comm.rank()), size_faults = FaultPlan::from_env(comm.rank());
  RunControl control(nullptr, &size_faults);
  try {
    on_rank0(comm, a.options.timeout_s, [&] { check_output_writable(a.out); });
    std::unique_ptr<Rank0Output> rank0;
    if (comm.rank() == 0) rank0 = std::make_unique<Rank0Output>(a, ctx, by_mpirun);
    fabric::Hooks hooks;
    hooks.faults = &slot_faults;
    hooks.control = &control;
    hooks.nccl_log = &nccl_log;
    if (rank0) hooks = rank0->hooks(std::move(hooks), report::is_text(a.out.format));
    fabric::Session session(comm, a.options, std::move(hooks));
    fabric::Result result = session.run();
    const int code = rank0 ? rank0->write(std::move(result)) : 0;
    return session.finish(code);
  } catch (const Error& e) {
    return finish_with_agreed_error(comm, e);
  }
}

}  // namespace

void add_fabric_command(CLI::App& root, Context& ctx) {
  CLI::App* cmd = root.add_subcommand(
      "fabric",
      "Every node pair's GPU<->GPU path (bandwidth both ways, latency), in rounds of disjoint pairs, with the slow\n"
      "node, pair or rail named. Launch one rank per GPU: srun --mpi=pmix -N 64 --ntasks-per-node=8 xferbench fabric");
  auto args = std::make_shared<FabricArgs>();
  add_options(*cmd, *args);
  cmd->footer("A pair is GPU i of node a with GPU i of node b (rail i). Up to 64 nodes every pair meets once; above,\n"
              "--rounds K random matchings (--seed S). A pair below --min-ratio of the median of all pairs is low;\n"
              "docs/fabric.md says how low pairs point at a node, a rail or a pair. SIGINT/SIGTERM keep the rounds\n"
              "finished (exit 130/143). XFERBENCH_FAULT=node:NAME:slow (pair:A-B, rail:R, round:K; also mark,\n"
              "signal_int, signal_term) plants a fault for tests.");
  finish_command(*cmd, [&ctx, args] {
    convert(*args);
    (void)FaultPlan::from_env();  // a malformed XFERBENCH_FAULT is a usage error here too
    ctx.plan = args->options;
    ctx.action = [args, &ctx] { return args->dry_run ? dry_run(*args) : run_fabric(*args, ctx); };
  });
}

}  // namespace xb::app
