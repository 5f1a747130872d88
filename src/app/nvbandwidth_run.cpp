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
#include "report/report.hpp"

namespace xb::app {
namespace {

int print_run(const RunRequest& req, bool json, const report::NvbOptions& print, const OutputOptions* file,
              const Context& ctx) {
  const System sys = discover_system(false);
  // A signal stops at the cell in flight; the cases completed are printed
  // (text: already, as they finished; JSON and -o: at the end) and the
  // process exits 130 / 143 (docs/interrupts.md).
  StopSignals signals;
  if (!json) {
    report::nvb_text_header(std::cout, sys, req.buffer_bytes);
    std::cout.flush();
  }
  Progress progress(progress_enabled(ctx), std::cerr);
  auto what = [&req](std::size_t i) { return fmt::format("[{}/{}] {}", i + 1, req.cases.size(), req.cases[i]->name); };
  if (!req.cases.empty()) progress.update(what(0));
  const RunResult run = run_cases(sys, req, [&](const CaseResult& c, std::size_t done, std::size_t total) {
    if (done < total) progress.update(what(done));
    if (json) return;
    progress.print_above([&] {
      report::nvb_text_case(std::cout, c, print);
      std::cout.flush();
      if (const std::string why = report::nvb_waiver_line(c); !why.empty()) std::cerr << why << "\n";
    });
  });
  progress.finish();
  if (json) std::cout << report::nvb_json_text(report::nvb_json(run));
  if (file && !file->file.empty())
    report::write_output_file(file->file, file->file_is_csv() ? report::run_csv(run) : report::run_json(run).dump(2) + "\n");
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
  try {
    return print_run(inv.request, inv.json, inv.print, nullptr, ctx);
  } catch (const Error& e) {
    // nvbandwidth -j reports a fatal error in its JSON; the one-line error
    // and the exit code still come from run_action.
    if (inv.json) std::cout << report::nvb_json_text(report::nvb_json_not_found({}, e.what()));
    throw;
  }
}

bool is_nvbandwidth_format(const std::string& format) {
  return format == "nvbandwidth" || format == "nvbandwidth-json";
}

int execute_nvbandwidth_format(const RunOptions& opts, const Context& ctx) {
  if (opts.list) {
    std::vector<const CaseDef*> all;
    for (const CaseDef& d : case_catalogue()) all.push_back(&d);
    report::nvb_text_list(std::cout, all);
    return 0;
  }
  const RunRequest req = build_request(opts, ctx.argv);
  check_output_writable(opts.out);
  report::NvbOptions print;
  print.verbose = opts.verbose;
  return print_run(req, opts.out.format == "nvbandwidth-json", print, &opts.out, ctx);
}

}  // namespace xb::app
