// Runs named cases and prints them as nvbandwidth does: the text case by
// case as each finishes (so a pipe sees progress, as with nvbandwidth), the
// JSON at the end. Used under the nvbandwidth name and by 'xferbench run
// --format nvbandwidth|nvbandwidth-json'.
#include <iostream>

#include <fmt/format.h>

#include "app/cli.hpp"
#include "app/interrupt.hpp"
#include "app/nvbandwidth_cli.hpp"
#include "app/progress.hpp"
#include "cases/cases.hpp"
#include "base/error.hpp"
#include "cases/runner.hpp"
#include "machine/topology.hpp"
#include "report/output_file.hpp"
#include "report/reporter.hpp"

namespace xb::app {
namespace {

int print_run(const RunRequest& req, report::Outputs& out, const Context& ctx) {
  const System sys = discover_system(false);
  // A signal stops at the cell in flight; the cases completed are printed
  // (text: already, as they finished; JSON and -o: at the end) and the
  // process exits 130 / 143 (docs/interrupts.md).
  StopSignals signals;
  RunResult header;
  header.system = sys;
  header.settings.buffer_bytes = req.buffer_bytes;
  report::Reporter& screen = out.screen();
  screen.run_begin(header);
  Progress progress(progress_enabled(ctx), std::cerr);
  auto what = [&req](std::size_t i) { return fmt::format("[{}/{}] {}", i + 1, req.cases.size(), req.cases[i]->name); };
  if (!req.cases.empty()) progress.update(what(0));
  const RunResult run = run_cases(sys, req, [&](const CaseResult& c, std::size_t done, std::size_t total) {
    if (done < total) progress.update(what(done));
    if (screen.streams()) progress.print_above([&] { screen.run_case(c); });
  });
  progress.finish();
  out.emit([&](report::Reporter& r) { r.run(run); });
  if (is_interruption(run.stop))
    return stop_exit_code(run.stop);
  return all_passed(run) ? 0 : 1;  // as nvbandwidth: waived cases do not change it
}

}  // namespace

int run_nvbandwidth(const NvbInvocation& inv, const Context& ctx) {
  if (inv.list) {
    report::nvb_text_list(std::cout, inv.listed);
    return 0;
  }
  report::Outputs out(inv.json ? "nvbandwidth-json" : "nvbandwidth", "", {inv.print});
  try {
    return print_run(inv.request, out, ctx);
  } catch (const Error& e) {
    // The one-line error and the exit code still come from run_action.
    out.screen().run_failed(e.what());
    throw;
  }
}

int execute_nvbandwidth_format(const RunOptions& opts, report::Outputs& out, const Context& ctx) {
  if (opts.list) {
    std::vector<const CaseDef*> all;
    for (const CaseDef& d : case_catalogue()) all.push_back(&d);
    report::nvb_text_list(std::cout, all);
    return 0;
  }
  const RunRequest req = build_request(opts, ctx.argv);
  check_output_writable(opts.out);
  return print_run(req, out, ctx);
}

}  // namespace xb::app
