#include "app/command.hpp"
#include "app/output.hpp"
#include "app/validators.hpp"
#include "machine/topology.hpp"
#include "report/list_csv.hpp"
#include "report/output_file.hpp"
#include "report/report.hpp"
#include "report/reporter.hpp"

namespace xb::app {

void add_list_command(CLI::App& root, Context& ctx) {
  auto* cmd = root.add_subcommand(
      "list", "Devices, links, NUMA nodes and the theoretical peak of every link (with its formula); "
              "also 'xferbench --list'");
  auto out = std::make_shared<OutputOptions>();
  add_output_options(*cmd, *out, true);
  set_exit_code_footer(*cmd);
  reject_empty_values(*cmd);
  cmd->callback([&ctx, out]() {
    ctx.action = [out]() {
      check_output_writable(*out);
      const System sys = discover_system(true);
      report::Outputs(out->format, out->file).emit([&](report::Reporter& r) { r.system(sys); });
      return 0;
    };
  });
}

void add_cases_command(CLI::App& root, Context& ctx) {
  auto* cmd = root.add_subcommand("cases", "List the named cases with their index and meaning (no GPU needed)");
  auto out = std::make_shared<OutputOptions>();
  add_output_options(*cmd, *out, true);
  set_exit_code_footer(*cmd);
  reject_empty_values(*cmd);
  cmd->callback([&ctx, out]() {
    ctx.action = [out]() {
      check_output_writable(*out);
      report::Outputs(out->format, out->file).emit([](report::Reporter& r) { r.cases(); });
      return 0;
    };
  });
}

}  // namespace xb::app
