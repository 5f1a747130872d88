#include "app/command.hpp"
#include "app/output.hpp"
#include "machine/topology.hpp"
#include "report/output_file.hpp"
#include "report/reporter.hpp"

namespace xb::app {

namespace {

// list and cases: output options only; `print` writes the listing once the
// -o file is known to be writable.
void add_listing(CLI::App* cmd, Context& ctx, std::function<void(const OutputOptions&)> print) {
  auto out = std::make_shared<OutputOptions>();
  add_output_options(*cmd, *out, true);
  finish_command(*cmd, [&ctx, out, print]() {
    ctx.action = [out, print]() {
      check_output_writable(*out);
      print(*out);
      return 0;
    };
  });
}

}  // namespace

void add_list_command(CLI::App& root, Context& ctx) {
  add_listing(root.add_subcommand("list", "Devices, links, NUMA nodes and the theoretical peak of every link (with its "
                                          "formula); also 'xferbench --list'"),
              ctx, [](const OutputOptions& out) {
                const System sys = discover_system(true);
                report::Outputs(out.format, out.file).emit([&](report::Reporter& r) { r.system(sys); });
              });
}

void add_cases_command(CLI::App& root, Context& ctx) {
  add_listing(root.add_subcommand("cases", "List the named cases with their index and meaning (no GPU needed)"), ctx,
              [](const OutputOptions& out) {
                report::Outputs(out.format, out.file).emit([](report::Reporter& r) { r.cases(); });
              });
}

}  // namespace xb::app
