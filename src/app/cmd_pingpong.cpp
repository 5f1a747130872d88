// xferbench pingpong: process-to-process one-way time and bandwidth. The
// measurement is pingpong::run (collective over MPI); this file only
// launches it, decides who prints (rank 0) and makes every rank exit with
// the same status.
#include <iostream>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "app/command.hpp"
#include "app/interrupt.hpp"
#include "app/mpi_errors.hpp"
#include "app/seed_args.hpp"
#include "comm/mpi_comm.hpp"
#include "core/error.hpp"
#include "core/fault.hpp"
#include "core/run_control.hpp"
#include "core/stop.hpp"
#include "core/time_budget.hpp"
#include "pingpong/runner.hpp"
#include "report/pingpong_report.hpp"

namespace xb::app {
namespace {

// Stdout and the --output file, from this process.
void publish_local(const pingpong::Result& result, const PingpongArgs& args, const std::vector<std::string>& argv) {
  const auto format = report::parse_pingpong_format(args.output.format);
  std::cout << report::render_pingpong(result, format, argv) << std::flush;
  if (!args.output.file.empty()) {
    const auto file_format = args.output.file_is_csv() ? report::PingpongFormat::csv : report::PingpongFormat::json;
    report::write_file_atomically(args.output.file, report::render_pingpong(result, file_format, argv));
  }
}

// Rank 0 writes stdout and the --output file; the outcome (say a file that
// cannot be written) is agreed so all ranks exit alike.
void publish(comm::Communicator& comm, const pingpong::Result& result, const PingpongArgs& args,
             const std::vector<std::string>& argv, double timeout_s) {
  std::optional<Error> err;
  if (comm.rank() == 0) {
    try {
      publish_local(result, args, argv);
    } catch (const Error& e) {
      err = e;
    }
  }
  comm::agree_or_throw(comm, err ? &*err : nullptr, comm::Seconds(timeout_s));
}

// Under mpirun, SIGKILL follows mpirun's SIGTERM after 1 s.
constexpr double kEmergencyGraceS = 0.3;

pingpong::Result empty_result(const pingpong::Options& o, int world_size) {
  pingpong::Result r;
  r.mode = o.mode;
  r.loop_count = o.loop_count;
  r.warmup = o.warmup;
  r.window = o.window;
  r.world_size = world_size;
  r.all_pairs = o.all_pairs;
  r.requested_transport = pingpong::to_string(o.transport);
  return r;
}

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
  r.status = RunStatus::interrupted;
  r.stop = why;
  r.stop_reason = stop_message(why) + ", written by rank 0 before the other ranks agreed (sizes not run are not listed)";
}

int run_pingpong(const PingpongArgs& args, const StopOptions& stop, const pingpong::Options& options,
                 const std::vector<std::string>& argv) {
  TimeBudget budget(stop.time_limit_s);  // the limit counts from the start, MPI start-up included
  const auto comm = comm::make_mpi_communicator(2);
  // After MPI_Init, so these handlers are the ones in place. A signal to
  // any rank stops every rank at the next size (runner.hpp).
  StopSignals signals;
  budget.arm();
  FaultPlan faults = FaultPlan::from_env(comm->rank());
  RunControl control(&budget, &faults);
  try {
    std::optional<Error> err;
    if (comm->rank() == 0) {
      try {
        check_output_writable(args.output);
      } catch (const Error& e) {
        err = e;
      }
    }
    comm::agree_or_throw(*comm, err ? &*err : nullptr, comm::Seconds(options.timeout_s));
    // Rank 0 keeps what it measured for an emergency write (interrupt.hpp).
    pingpong::Result snapshot = empty_result(options, comm->size());
    std::unique_ptr<EmergencyWriter> emergency;
    if (comm->rank() == 0)
      emergency = std::make_unique<EmergencyWriter>(kEmergencyGraceS, [&](StopReason why) {
        mark_interrupted(snapshot, why);
        publish_local(snapshot, args, argv);
      });
    pingpong::Environment env = pingpong::default_environment();
    env.on_size = [&](const pingpong::PairResult& pair) {
      if (emergency) emergency->update([&] { keep_pair(snapshot, pair); });
    };
    pingpong::Result result = pingpong::run(*comm, options, env, &control);
    if (emergency) emergency->finished();
    result.time_limit_s = stop.time_limit_s;
    publish(*comm, result, args, argv, options.timeout_s);
    // Every rank holds the same result, so every rank reaches the same status.
    if (result.stop == StopReason::none || result.stop == StopReason::time_limit)
      if (const auto failure = pingpong::first_failure(result)) throw *failure;
    return pingpong::exit_code_of(result);
  } catch (const Error& e) {
    return finish_with_agreed_error(*comm, e);
  }
}

}  // namespace

void add_pingpong_command(CLI::App& root, Context& ctx) {
  CLI::App* cmd = root.add_subcommand(
      "pingpong",
      "One-way time and bandwidth between MPI processes over mpi, staged, ipc or nccl.\n"
      "Launch with: mpirun -np 2 xferbench pingpong --dev1 host --dev2 gpu");
  auto args = std::make_shared<PingpongArgs>();
  add_pingpong_options(*cmd, *args);
  auto stop = std::make_shared<StopOptions>();
  add_stop_options(*cmd, *stop, false);
  cmd->footer("Seed spellings also work: -dev1 vh|ve, -dev2 vh|ve, -n N, -loop_count L.\n"
              "A SIGINT/SIGTERM to any rank stops every rank before the next size; rank 0 writes the sizes measured\n"
              "(status interrupted, exit 130/143). --time-limit skips sizes that would not end in time (exit 10).\n"
              "XFERBENCH_FAULT=SIZE:KIND[@RANK] injects a failure for tests (docs/interrupts.md).");
  cmd->callback([&ctx, args, stop] {
    // Converting here reports bad values before MPI or any GPU starts.
    const pingpong::Options options = to_options(*args);
    validate_stop_options(*stop);
    (void)FaultPlan::from_env();  // a malformed XFERBENCH_FAULT is a usage error here too
    ctx.action = [args, stop, options, &ctx] { return run_pingpong(*args, *stop, options, ctx.argv); };
  });
}

}  // namespace xb::app
