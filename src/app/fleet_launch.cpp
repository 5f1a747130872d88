#include "app/fleet_launch.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <optional>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "app/cli.hpp"
#include "app/interrupt.hpp"
#include "comm/launch_env.hpp"
#include "fleet/node_json.hpp"
#include "fleet/per_node.hpp"
#include "base/error.hpp"
#include "base/stop.hpp"
#include "report/output_file.hpp"
#include "report/reporter.hpp"

#ifdef XFERBENCH_HAVE_MPI
#include "comm/mpi_comm.hpp"
#endif

namespace xb::app {
namespace {

// Rank 0: the fleet table, JSON or CSV on `out`, the file; returns the
// fleet's exit code.
int publish(const FleetJob& job, std::vector<fleet::NodeRecord> records, const std::vector<std::string>& argv,
            const std::string& start_utc, double wall_s, std::ostream& out) {
  fleet::Fleet f = fleet::build_fleet(std::move(records), job.options.threshold_pct / 100, job.options.fail_on_outlier);
  f.command = job.command;
  f.command_line = argv;
  f.start_time_utc = start_utc;
  f.wall_seconds = wall_s;
  if (job.publish) return job.publish(f, out);
  report::Outputs(job.out.format, job.out.file, report_options(job.out), out)
      .emit([&](report::Reporter& r) { r.fleet(f); });
  return f.exit_code;
}

// A rank other than 0 waits, measures its node, or reports its leader's
// death; it prints only when everything else failed (rank 0 is gone), and
// then only the node's first two ranks do.
int follow(comm::Communicator& comm, fleet::Session& session, const fleet::MeasureNode& measure, std::ostream& err) {
  try {
    if (measure) session.gather(measure);
    return session.finish(0);
  } catch (const Error& e) {
    if (session.measures() || session.deputy()) fmt::print(err, "xferbench: error: rank {}: {}\n", comm.rank(), e.what());
    return exit_code(e.kind());
  }
}

// After every node has reported (or been given up on), the leaders' last
// words have been sent: a short wait collects them, and a dead node's is
// abandoned.
constexpr double kRelayCloseS = 10;

}  // namespace

NodeControls::NodeControls(double time_limit_s)
    : budget_(time_limit_s, measured_cost_model, process_start()),
      faults_(FaultPlan::from_env(comm::launcher_world_rank(comm::process_getenv))) {
  budget_.arm();
}

fleet::NodeOutcome node_outcome(const nlohmann::json& result, StopReason stop, int exit_code) {
  if (is_signal(stop)) acknowledge_stop();
  return {fleet::node_document(result), exit_code};
}

void add_fleet_options(CLI::App& cmd, FleetOptions& o) {
  cmd.add_option("--fleet-threshold", o.threshold_pct,
                 "Under mpirun/srun on several nodes: cells below PCT% of the fleet median are outliers")
      ->capture_default_str();
  cmd.add_flag("--fail-on-outlier", o.fail_on_outlier, "Under mpirun/srun on several nodes: exit 1 if any node is an outlier");
  add_fleet_timeout_option(cmd, o.timeout_s);
}

CLI::Option* add_fleet_timeout_option(CLI::App& cmd, double& timeout_s) {
  return cmd.add_option("--fleet-timeout", timeout_s,
                        "Under mpirun/srun on several nodes: seconds a node's measurement may take before it is an "
                        "error row")
      ->capture_default_str();
}

void check_fleet_options(const FleetOptions& o) {
  if (!(o.threshold_pct > 0 && o.threshold_pct <= 100))
    fail(ErrorKind::usage,
         fmt::format("invalid --fleet-threshold '{}': must be above 0 and at most 100 (percent of the fleet median)",
                     o.threshold_pct));
  check_fleet_timeout(o.timeout_s, "--fleet-timeout");
}

void check_fleet_timeout(double timeout_s, const std::string& name) {
  if (!(timeout_s > 0) || !std::isfinite(timeout_s))
    fail(ErrorKind::usage, fmt::format("invalid {} '{}': must be a number of seconds above 0", name, timeout_s));
}

int run_fleet(comm::Communicator& comm, const FleetJob& job, const std::vector<std::string>& argv, std::ostream& out,
              std::ostream& err, fleet::Options session_options, comm::StopRelay::Hooks relay_hooks) {
  session_options.timeout = comm::Seconds(job.options.timeout_s);
  session_options.before_measuring = [&job] { check_output_writable(job.out); };
  const auto t0 = std::chrono::steady_clock::now();
  const std::string start_utc = utc_now_iso8601();
  fleet::Session session(comm, session_options);
  // From here a signal stops this node's measurement at its next sample;
  // the node's partial result is sent like any other (docs/fleet.md, Signals).
  StopSignals signals;
  // Several nodes measure: a signal to one node's measuring process stops
  // every node's at its next sample (docs/fleet.md, Signals).
  std::optional<comm::StopRelay> relay;
  fleet::MeasureNode measure;
  if (!session.stop() && !session.single_node() && job.measure) {
    relay.emplace(comm, job.command, std::move(relay_hooks));
    measure = [&]() -> fleet::NodeOutcome {
      struct LastWord {
        comm::StopRelay& relay;
        ~LastWord() { relay.last_word(); }  // also when the node's work throws
      } last_word{*relay};
      const StopPoll poll([&] { relay->poll(); });  // between cells and samples
      return job.measure();
    };
  }
  const auto close_relay = [&](int code) {
    if (relay) relay->close(std::min(comm::Seconds(kRelayCloseS), session_options.timeout));
    return code;
  };
  if (comm.rank() != 0) return close_relay(follow(comm, session, measure, err));
  int code = 0;
  try {
    if (session.stop()) throw *session.stop();
    if (!measure) {
      code = job.single();
    } else {
      auto records = session.gather(measure);
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      code = publish(job, std::move(records), argv, start_utc, wall, out);
    }
  } catch (const Error& e) {
    fmt::print(err, "xferbench: error: {}{}\n", e.what(), session.single_node() ? error_hint(e.kind()) : "");
    code = exit_code(e.kind());
  } catch (const std::exception& e) {
    fmt::print(err, "xferbench: internal error: {}\n", e.what());
    code = exit_code(ErrorKind::internal);
  }
  err.flush();
  return close_relay(session.finish(code));
}

int run_single_or_per_node(const Context& ctx, const FleetJob& job) {
  if (ctx.launch != nullptr) return run_fleet(*ctx.launch, job, ctx.argv, std::cout, std::cerr);
#ifdef XFERBENCH_HAVE_MPI
  const int launched = comm::launcher_world_size(comm::process_getenv);
  if (launched == 0 || launched == 1) return job.single();
  const auto comm = comm::make_mpi_communicator(1);
  if (comm->size() == 1) return job.single();
  return run_fleet(*comm, job, ctx.argv, std::cout, std::cerr);
#else
  return job.single();
#endif
}

}  // namespace xb::app
