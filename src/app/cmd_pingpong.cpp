// xferbench pingpong: process-to-process one-way time and bandwidth. The
// measurement is pingpong::run (collective over MPI); this file only
// launches it, decides who prints (rank 0) and makes every rank exit with
// the same status.
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "app/cli.hpp"
#include "app/command.hpp"
#include "app/interrupt.hpp"
#include "app/mpi_errors.hpp"
#include "app/progress.hpp"
#include "app/seed_args.hpp"
#include "comm/mpi_comm.hpp"
#include "base/error.hpp"
#include "base/fault.hpp"
#include "base/run_control.hpp"
#include "base/stop.hpp"
#include "base/time_budget.hpp"
#include "pingpong/runner.hpp"
#include "report/reporter.hpp"

namespace xb::app {
namespace {

// A two-rank text table is printed row by row as sizes are measured (as OSU
// and nccl-tests do), so a piped or long run shows its progress; rank 0 is
// the pair's initiator and holds each row first. The progress line (stderr
// on a terminal; Open MPI gives ranks a pipe, so under mpirun it stays off)
// names the size being measured.
struct LiveOutput {
  Progress progress;
  report::Reporter& screen;

  LiveOutput(bool progress_line, report::Reporter& s) : progress(progress_line, std::cerr), screen(s) {}

  pingpong::Observer observer(const pingpong::Result& header, bool rows) {
    pingpong::Observer obs;
    obs.size_started = [this](const pingpong::PairResult& p, std::uint64_t bytes, std::size_t i, std::size_t n) {
      progress.update(fmt::format("r{}-r{} {}: {} B ({}/{})", p.rank_a, p.rank_b, p.transport, bytes, i + 1, n));
    };
    if (!rows) return obs;
    obs.pair_started = [this, header](const pingpong::PairResult& p) {
      progress.print_above([&] { screen.pingpong_pair(header, p); });
    };
    obs.size_done = [this](const pingpong::PairResult&, const pingpong::SizeResult& s) {
      progress.print_above([&] { screen.pingpong_size(s); });
    };
    return obs;
  }
};

// Under mpirun, SIGKILL follows mpirun's SIGTERM after 1 s.
constexpr double kEmergencyGraceS = 0.3;

void keep_pair(pingpong::Result& r, const pingpong::PairResult& pair) {
  for (auto& p : r.pairs) {
    if (p.rank_a == pair.rank_a && p.rank_b == pair.rank_b) {
      p = pair;
      return;
    }
  }
  r.pairs.push_back(pair);
}

void mark_interrupted(pingpong::Result& r, StopReason why) {
  r.completion.status = RunStatus::interrupted;
  r.completion.stop = why;
  r.completion.message =
      stop_message(why) + ", written by rank 0 before the other ranks agreed (sizes not run are not listed)";
}

// The live observer with its output made under the emergency writer's
// lock (the writer may print from its own thread), each pair's record so
// far kept in the writer's copy.
pingpong::Observer kept_for_emergency(EmergencyWriter* emergency, pingpong::Result& copy, pingpong::Observer live) {
  if (emergency == nullptr) return live;
  pingpong::Observer out;
  out.size_started = live.size_started;  // the progress line only
  out.pair_started = [emergency, &copy, live](const pingpong::PairResult& p) {
    emergency->update([&] {
      keep_pair(copy, p);
      if (live.pair_started) live.pair_started(p);
    });
  };
  out.size_done = [emergency, &copy, live](const pingpong::PairResult& p, const pingpong::SizeResult& s) {
    emergency->update([&] {
      keep_pair(copy, p);
      if (live.size_done) live.size_done(p, s);
    });
  };
  return out;
}

int run_pingpong(const PingpongArgs& args, const StopOptions& stop, const pingpong::Options& options,
                 const Context& ctx) {
  TimeBudget budget(stop.time_limit_s);  // the limit counts from the start, MPI start-up included
  const auto comm = comm::make_mpi_communicator(2);
  // After MPI_Init, so these handlers are the ones in place. A signal to
  // any rank stops every rank within about 0.1 s (runner.hpp).
  StopSignals signals;
  budget.arm();
  FaultPlan faults = FaultPlan::from_env(comm->rank());
  RunControl control(&budget, &faults);
  try {
    on_rank0(*comm, options.timeout_s, [&] { check_output_writable(args.output); });
    const bool rank0 = comm->rank() == 0;
    report::Outputs out(args.output.format, args.output.file);
    LiveOutput live(rank0 && progress_enabled(ctx), out.screen());
    const bool rows = rank0 && out.screen().streams() && !options.all_pairs;
    // Rank 0 keeps what it measured for an emergency write (interrupt.hpp).
    pingpong::Result snapshot = pingpong::result_header(options, comm->size());
    std::unique_ptr<EmergencyWriter> emergency;
    if (rank0)
      emergency = std::make_unique<EmergencyWriter>(kEmergencyGraceS, [&](StopReason why) {
        mark_interrupted(snapshot, why);
        out.emit([&](report::Reporter& r) { r.pingpong(snapshot, ctx.argv); });
      });
    const pingpong::Observer observer = kept_for_emergency(
        emergency.get(), snapshot, live.observer(pingpong::result_header(options, comm->size()), rows));
    pingpong::Result result = pingpong::run(*comm, options, pingpong::default_environment(), observer, &control);
    if (emergency) emergency->finished();
    live.progress.finish();
    result.completion.time_limit_s = stop.time_limit_s;
    // Rank 0 writes stdout and the --output file (a text table whose rows
    // are already out gets its footers only).
    on_rank0(*comm, options.timeout_s, [&] { out.emit([&](report::Reporter& r) { r.pingpong(result, ctx.argv); }); });
    // Every rank holds the same result, so every rank reaches the same status.
    if (result.completion.stop == StopReason::none || result.completion.stop == StopReason::time_limit)
      if (const auto failure = pingpong::first_failure(result)) throw *failure;
    return ending(result.completion, pingpong::failure_kind(result)).exit_code;
  } catch (const Error& e) {
    return finish_with_agreed_error(*comm, e);
  }
}

}  // namespace

void add_pingpong_command(CLI::App& root, Context& ctx) {
  CLI::App* cmd = root.add_subcommand(
      "pingpong",
      "One-way time and bandwidth between MPI processes over mpi, staged, ipc, nccl or device.\n"
      "Launch with: mpirun -np 2 xferbench pingpong --dev1 host --dev2 gpu");
  auto args = std::make_shared<PingpongArgs>();
  add_pingpong_options(*cmd, *args);
  auto buffers = std::make_shared<std::string>("separate");
  cmd->add_option("--buffers", *buffers,
                  "pingpong mode: separate (each rank sends from its send buffer and receives into its receive "
                  "buffer, as osu_latency) or echo (the responder sends back from the buffer it received into)")
      ->capture_default_str();
  auto stop = std::make_shared<StopOptions>();
  add_stop_options(*cmd, *stop, false);
  cmd->footer("Seed spellings also work: -dev1 vh|ve, -dev2 vh|ve, -n N, -loop_count L.\n"
              "A SIGINT/SIGTERM to any rank stops every rank within about 0.1 s; rank 0 writes the sizes measured\n"
              "(status interrupted, exit 130/143). --time-limit skips sizes that would not end in time (exit 10).\n"
              "XFERBENCH_FAULT=SIZE:KIND[@RANK] injects a failure for tests (docs/interrupts.md).");
  finish_command(*cmd, [&ctx, args, buffers, stop] {
    // Converting here reports bad values before MPI or any GPU starts.
    pingpong::Options options = to_options(*args);
    options.buffers = pingpong::parse_buffers(*buffers);
    pingpong::validate(options);
    validate_stop_options(*stop);
    (void)FaultPlan::from_env();  // a malformed XFERBENCH_FAULT is a usage error here too
    ctx.action = [args, stop, options, &ctx] { return run_pingpong(*args, *stop, options, ctx); };
  });
}

}  // namespace xb::app
