#include <iostream>

#include "app/command.hpp"
#include "app/output.hpp"
#include "app/validators.hpp"
#include "machine/topology.hpp"
#include "report/list_csv.hpp"
#include "report/output_file.hpp"
#include "report/report.hpp"

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
      if (out->format == "json") {
        std::cout << report::system_json(sys).dump(2) << "\n";
      } else if (out->format == "csv") {
        std::cout << report::system_csv(sys);
      } else {
        report::text_list(std::cout, sys);
      }
      if (!out->file.empty())
        report::write_output_file(out->file, out->file_is_csv() ? report::system_csv(sys)
                                                                : report::system_json(sys).dump(2) + "\n");
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
      if (out->format == "json") {
        std::cout << report::cases_json().dump(2) << "\n";
      } else if (out->format == "csv") {
        std::cout << report::cases_csv();
      } else {
        report::text_cases(std::cout);
      }
      if (!out->file.empty())
        report::write_output_file(out->file, out->file_is_csv() ? report::cases_csv() : report::cases_json().dump(2) + "\n");
      return 0;
    };
  });
}

}  // namespace xb::app
