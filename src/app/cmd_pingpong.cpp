// xferbench pingpong: process-to-process one-way time and bandwidth. The
// measurement is pingpong::run (collective over MPI); this file only
// launches it, decides who prints (rank 0) and makes every rank exit with
// the same status.
#include <iostream>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "app/cli.hpp"
#include "app/command.hpp"
#include "app/mpi_errors.hpp"
#include "app/progress.hpp"
#include "app/seed_args.hpp"
#include "comm/mpi_comm.hpp"
#include "core/error.hpp"
#include "pingpong/runner.hpp"
#include "report/pingpong_report.hpp"

namespace xb::app {
namespace {

// Rank 0 writes stdout and the --output file; the outcome (say a file that
// cannot be written) is agreed so all ranks exit alike. `streamed`: the text
// table's header and rows are already out, only the footer is left.
void publish(comm::Communicator& comm, const pingpong::Result& result, const PingpongArgs& args,
             const std::vector<std::string>& argv, double timeout_s, bool streamed) {
  std::optional<Error> err;
  if (comm.rank() == 0) {
    try {
      const auto format = report::parse_pingpong_format(args.output.format);
      if (streamed) {
        for (const auto& p : result.pairs) std::cout << report::pingpong_pair_foot(p);
        std::cout << std::flush;
      } else {
        std::cout << report::render_pingpong(result, format, argv) << std::flush;
      }
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

// A two-rank text table is printed row by row as sizes are measured (as OSU
// and nccl-tests do), so a piped or long run shows its progress; rank 0 is
// the pair's initiator and holds each row first. The progress line (stderr
// on a terminal; Open MPI gives ranks a pipe, so under mpirun it stays off)
// names the size being measured.
struct LiveOutput {
  Progress progress;
  bool streamed = false;

  explicit LiveOutput(bool progress_line) : progress(progress_line, std::cerr) {}

  pingpong::Observer observer(const pingpong::Result& header, bool rows) {
    pingpong::Observer obs;
    obs.size_started = [this](const pingpong::PairResult& p, std::uint64_t bytes, std::size_t i, std::size_t n) {
      progress.update(fmt::format("r{}-r{} {}: {} B ({}/{})", p.rank_a, p.rank_b, p.transport, bytes, i + 1, n));
    };
    if (!rows) return obs;
    obs.pair_started = [this, header](const pingpong::PairResult& p) {
      progress.print_above([&] {
        std::cout << report::pingpong_text_header(header) << report::pingpong_pair_head(p) << std::flush;
      });
      streamed = true;
    };
    obs.size_done = [this](const pingpong::PairResult&, const pingpong::SizeResult& s) {
      progress.print_above([&] { std::cout << report::pingpong_size_row(s) << std::flush; });
    };
    return obs;
  }
};

int run_pingpong(const PingpongArgs& args, const pingpong::Options& options, const Context& ctx) {
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
    const bool rank0 = comm->rank() == 0;
    LiveOutput live(rank0 && progress_enabled(ctx));
    const bool rows = rank0 && args.output.format == "text" && !options.all_pairs;
    const pingpong::Result result = pingpong::run(*comm, options, pingpong::default_environment(),
                                                  live.observer(pingpong::result_header(options, comm->size()), rows));
    live.progress.finish();
    publish(*comm, result, args, ctx.argv, options.timeout_s, live.streamed);
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
      "One-way time and bandwidth between MPI processes over mpi, staged, ipc, nccl or device.\n"
      "Launch with: mpirun -np 2 xferbench pingpong --dev1 host --dev2 gpu");
  auto args = std::make_shared<PingpongArgs>();
  add_pingpong_options(*cmd, *args);
  cmd->footer("Seed spellings also work: -dev1 vh|ve, -dev2 vh|ve, -n N, -loop_count L.");
  cmd->callback([&ctx, args] {
    // Converting here reports bad values before MPI or any GPU starts.
    const pingpong::Options options = to_options(*args);
    ctx.action = [args, options, &ctx] { return run_pingpong(*args, options, ctx); };
  });
}

}  // namespace xb::app
