#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "app/cli.hpp"
#include "app/command.hpp"
#include "app/output.hpp"
#include "app/run_options.hpp"
#include "core/runner.hpp"
#include "core/topology.hpp"
#include "report/report.hpp"

namespace xb::app {
namespace {

int execute(const RunOptions& opts, const Context& ctx) {
  if (opts.list) {
    report::text_cases(std::cout);
    return 0;
  }
  const RunRequest req = build_request(opts, ctx.argv);  // validates before any GPU is touched
  check_output_writable(opts.out);
  const System sys = discover_system(false);
  const bool text = opts.out.format == "text";
  const bool progress = progress_enabled(ctx);
  RunResult header_only;
  header_only.system = sys;
  header_only.settings.buffer_bytes = req.buffer_bytes;
  header_only.settings.statistic = req.use_mean ? "mean" : "median";
  header_only.settings.measure = req.measure;
  if (text) report::text_run_header(std::cout, header_only);
  const RunResult run = run_cases(sys, req, [&](const CaseResult& c, std::size_t done, std::size_t total) {
    if (text) {
      report::text_case(std::cout, c);
      std::cout.flush();
    }
    if (progress) fmt::print(std::cerr, "[{}/{}] {} {} ({:.1f} s)\n", done, total, c.name, to_string(c.status), c.wall_seconds);
  });
  if (text) report::text_run_footer(std::cout, run);
  if (opts.out.format == "json") std::cout << report::run_json(run).dump(2) << "\n";
  if (opts.out.format == "csv") std::cout << report::run_csv(run);
  if (!opts.out.file.empty())
    report::write_file_atomic(opts.out.file, opts.out.file_is_csv() ? report::run_csv(run) : report::run_json(run).dump(2) + "\n");
  return all_passed(run) ? 0 : 1;
}

}  // namespace

void add_run_command(CLI::App& root, Context& ctx) {
  auto* cmd = root.add_subcommand("run", "Run named cases (default: the quick suite on every GPU)");
  auto opts = std::make_shared<RunOptions>();
  add_run_options(*cmd, *opts);
  cmd->callback([&ctx, opts]() {
    // Validate now so argument errors surface before any GPU is touched.
    if (!opts->list) build_request(*opts, ctx.argv);
    ctx.action = [opts, &ctx]() { return execute(*opts, ctx); };
  });
}

}  // namespace xb::app
