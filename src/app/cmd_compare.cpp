// xferbench compare OLD.json NEW.json: per-cell faster / slower / same under
// a tolerance and the cells' own noise (rule in compare/compare.hpp), exit 1 on
// any regression so it can gate node acceptance in CI. Every input problem
// (unreadable file, not JSON, another tool or version, mismatched cases) is
// a usage error: exit 2 with one line.
#include <memory>

#include <fmt/format.h>

#include "app/command.hpp"
#include "app/output.hpp"
#include "compare/compare.hpp"
#include "base/error.hpp"
#include "base/input_file.hpp"
#include "report/reporter.hpp"
#include "report/output_file.hpp"

namespace xb::app {
namespace {

struct CompareArgs {
  std::string old_path, new_path;
  CompareOptions options;
  OutputOptions out;
};

int execute(const CompareArgs& a) {
  check_output_writable(a.out);
  const nlohmann::json old_doc = read_input_json(a.old_path, "");
  const nlohmann::json new_doc = read_input_json(a.new_path, "");
  const CompareResult r = compare_documents(old_doc, new_doc, a.options, "'" + a.old_path + "'", "'" + a.new_path + "'");
  report::Outputs(a.out.format, a.out.file).emit([&](report::Reporter& rep) { rep.compare(r, a.old_path, a.new_path); });
  return r.regression() ? 1 : 0;
}

}  // namespace

void add_compare_command(CLI::App& root, Context& ctx) {
  auto* cmd = root.add_subcommand("compare", "Compare two run or sweep JSON results cell by cell; exit 1 on a regression");
  auto args = std::make_shared<CompareArgs>();
  cmd->add_option("OLD", args->old_path, "Baseline result (xferbench run or sweep JSON)")->required();
  cmd->add_option("NEW", args->new_path, "Result to check, of the same kind")->required();
  cmd->add_option("--tolerance", args->options.tolerance_pct, "Changes within PCT percent of OLD are 'same'")
      ->capture_default_str();
  cmd->add_option("--noise-k", args->options.noise_k,
                  "Changes within K x the combined standard error of the two medians are 'same'")
      ->capture_default_str();
  add_output_options(*cmd, args->out);
  cmd->footer(
      "A cell is slower/faster only if the change exceeds both --tolerance and --noise-k x\n"
      "sqrt(se_old^2 + se_new^2), se = sqrt(pi/2) x stddev / sqrt(samples) from each file's cell stats.\n"
      "A case that errored or was waived in NEW but measured in OLD, or a failed data check in NEW, is 'failed'.");
  finish_command(*cmd, [&ctx, args]() {
    if (!(args->options.tolerance_pct >= 0))
      fail(ErrorKind::usage, fmt::format("invalid --tolerance '{}': must be 0 or more", args->options.tolerance_pct));
    if (!(args->options.noise_k >= 0))
      fail(ErrorKind::usage, fmt::format("invalid --noise-k '{}': must be 0 or more", args->options.noise_k));
    ctx.action = [args]() { return execute(*args); };
  });
}

}  // namespace xb::app
