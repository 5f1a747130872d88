// xferbench pingpong: process-to-process one-way time and bandwidth. The
// measurement is pingpong::run (collective over MPI); this file only
// launches it, decides who prints (rank 0) and makes every rank exit with
// the same status.
#include <iostream>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "app/command.hpp"
#include "app/mpi_errors.hpp"
#include "app/seed_args.hpp"
#include "comm/mpi_comm.hpp"
#include "core/error.hpp"
#include "pingpong/runner.hpp"
#include "report/pingpong_report.hpp"

namespace xb::app {
namespace {

// Rank 0 writes stdout and the --output file; the outcome (say a file that
// cannot be written) is agreed so all ranks exit alike.
void publish(comm::Communicator& comm, const pingpong::Result& result, const PingpongArgs& args,
             const std::vector<std::string>& argv, double timeout_s) {
  std::optional<Error> err;
  if (comm.rank() == 0) {
    try {
      const auto format = report::parse_pingpong_format(args.output.format);
      std::cout << report::render_pingpong(result, format, argv) << std::flush;
      if (!args.output.file.empty()) {
        const auto file_format = args.output.file_is_csv() ? report::PingpongFormat::csv : report::PingpongFormat::json;
        report::write_file_atomically(args.output.file, report::render_pingpong(result, file_format, argv));
      }
    } catch (const Error& e) {
      err = e;
    }
  }
  comm::agree_or_throw(comm, err ? &*err : nullptr, comm::Seconds(timeout_s));
}

int run_pingpong(const PingpongArgs& args, const pingpong::Options& options, const std::vector<std::string>& argv) {
  const auto comm = comm::make_mpi_communicator(2);
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
    const pingpong::Result result = pingpong::run(*comm, options);
    publish(*comm, result, args, argv, options.timeout_s);
    // Every rank holds the same result, so every rank reaches the same status.
    if (const auto failure = pingpong::first_failure(result)) throw *failure;
    return 0;
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
  cmd->footer("Seed spellings also work: -dev1 vh|ve, -dev2 vh|ve, -n N, -loop_count L.");
  cmd->callback([&ctx, args] {
    // Converting here reports bad values before MPI or any GPU starts.
    const pingpong::Options options = to_options(*args);
    ctx.action = [args, options, &ctx] { return run_pingpong(*args, options, ctx.argv); };
  });
}

}  // namespace xb::app
