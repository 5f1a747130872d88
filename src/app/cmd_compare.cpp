// xferbench compare OLD.json NEW.json: per-cell faster / slower / same under
// a tolerance and the cells' own noise (rule in compare/compare.hpp), exit 1 on
// any regression so it can gate node acceptance in CI. Two soak files
// (OLD.jsonl NEW.jsonl) are compared by compare_soaks. Every input problem
// (unreadable file, not JSON, another tool or version, mismatched cases) is
// a usage error: exit 2 with one line.
#include <memory>

#include <fmt/format.h>

#include "app/command.hpp"
#include "app/output.hpp"
#include "compare/compare_json.hpp"
#include "base/error.hpp"
#include "base/input_file.hpp"
#include "report/reporter.hpp"
#include "report/output_file.hpp"
#include "soak/soak_analysis.hpp"
#include "soak/soak_data.hpp"

namespace xb::app {
namespace {

struct CompareArgs {
  std::string old_path, new_path;
  CompareOptions options;
  OutputOptions out;
};

// One compared file, opened and its kind told from its first line.
struct Input {
  explicit Input(const std::string& path) : file(path, "") {
    soak = soak::is_soak_text(file.peek_line(soak::kMaxSoakLineBytes));
  }
  InputFile file;
  bool soak = false;
};

// A soak file is read line by line, analysed and let go (any size, in
// bounded memory); a JSON document is read whole (at most 256 MiB).
soak::SoakSummary soak_summary(Input& in) { return soak::analyze(soak::read_soak_data(in.file)); }
nlohmann::json document(Input& in) { return parse_input_json(in.file.rest(), in.file.path(), ""); }

int execute(const CompareArgs& a) {
  check_output_writable(a.out);
  // Read and parsed in this order, so the first bad input is the one named.
  const std::string old_name = input_label("", a.old_path), new_name = input_label("", a.new_path);
  Input old_in(a.old_path);
  Input new_in(a.new_path);
  if (new_in.soak != old_in.soak)
    fail(ErrorKind::usage, fmt::format("{} is a soak file but {} is not: compare a soak file with a soak file",
                                       old_in.soak ? old_name : new_name, old_in.soak ? new_name : old_name));
  CompareResult r;
  if (old_in.soak) {
    const soak::SoakSummary o = soak_summary(old_in);
    r = compare_soaks(o, soak_summary(new_in), a.options, old_name, new_name);
  } else {
    const nlohmann::json o = document(old_in);
    r = compare_documents(o, document(new_in), a.options, old_name, new_name);
  }
  report::Outputs(a.out.format, a.out.file).emit([&](report::Reporter& rep) { rep.compare(r, a.old_path, a.new_path); });
  return r.regression() ? 1 : 0;
}

}  // namespace

void add_compare_command(CLI::App& root, Context& ctx) {
  auto* cmd = root.add_subcommand(
      "compare",
      "Compare two run, sweep, fleet or fabric JSON results, or two soak files, cell by cell; exit 1 on a regression");
  auto args = std::make_shared<CompareArgs>();
  cmd->add_option("OLD", args->old_path, "Baseline result (xferbench run, sweep or fleet JSON, or a soak file)")->required();
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
      "A case that errored or was waived in NEW but measured in OLD, or a failed data check in NEW, is 'failed'.\n"
      "Two soak files: a cell is also 'slower' when NEW drifts or steps the bad way and OLD does not.");
  finish_command(*cmd, [&ctx, args]() {
    if (!(args->options.tolerance_pct >= 0))
      fail(ErrorKind::usage, fmt::format("invalid --tolerance '{}': must be 0 or more", args->options.tolerance_pct));
    if (!(args->options.noise_k >= 0))
      fail(ErrorKind::usage, fmt::format("invalid --noise-k '{}': must be 0 or more", args->options.noise_k));
    ctx.action = [args]() { return execute(*args); };
  });
}

}  // namespace xb::app
