// xferbench plot RESULT.json... -o FILE.png|FILE.svg: draws results with the
// xferbench_plot Python package (matplotlib), run as `python3 -m
// xferbench_plot`. Drawing lives in Python because matplotlib is the
// well-kept plotting library; this command only checks the arguments, finds
// python3 and passes its exit status on. The package validates schemas and
// writes the image atomically; it prints its own one-line errors.
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>

#include <fmt/format.h>

#include "app/command.hpp"
#include "core/error.hpp"
#include "report/output_file.hpp"

namespace xb::app {
namespace {

// Exit codes of `python3 -m xferbench_plot` (python/xferbench_plot/__main__.py).
constexpr int kPyBadInput = 2;
constexpr int kPyNoMatplotlib = 3;
constexpr int kPyWriteFailed = 4;
constexpr int kPyNoPackage = 1;  // python3 -m on a missing module (the package itself never exits 1)

struct PlotArgs {
  std::vector<std::string> inputs;
  std::string output, kind = "auto", title;
};

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string dir = end > start ? dirs.substr(start, end - start) : ".";
    const std::string candidate = dir + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return "";
}

// The source tree's python/ directory goes first on PYTHONPATH when it
// exists, so a build tree works without `pip install ./python`.
void prepend_source_package() {
#ifdef XFERBENCH_PYTHON_DIR
  if (access(XFERBENCH_PYTHON_DIR "/xferbench_plot/__main__.py", R_OK) != 0) return;
  const char* old = std::getenv("PYTHONPATH");
  const std::string value = old && *old ? std::string(XFERBENCH_PYTHON_DIR) + ":" + old : XFERBENCH_PYTHON_DIR;
  setenv("PYTHONPATH", value.c_str(), 1);
#endif
}

int run_python(const std::string& python, const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) fail(ErrorKind::internal, fmt::format("cannot start {}: {}", python, std::strerror(errno)));
  if (pid == 0) {
    prepend_source_package();
    execv(python.c_str(), argv.data());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) fail(ErrorKind::internal, fmt::format("waiting for {}: {}", python, std::strerror(errno)));
  }
  if (!WIFEXITED(status)) fail(ErrorKind::internal, fmt::format("{} -m xferbench_plot was killed", python));
  return WEXITSTATUS(status);
}

int execute(const PlotArgs& a) {
  report::check_output_file(a.output);  // before drawing: a directory or an unwritable path ends here with exit 7
  const std::string python = find_on_path("python3");
  if (python.empty())
    fail(ErrorKind::usage, "xferbench plot needs python3 on PATH with matplotlib (pip install ./python)");
  std::vector<std::string> args = {python, "-m", "xferbench_plot"};
  args.insert(args.end(), a.inputs.begin(), a.inputs.end());
  args.insert(args.end(), {"-o", a.output, "--kind", a.kind});
  if (!a.title.empty()) args.insert(args.end(), {"--title", a.title});
  const int code = run_python(python, args);
  if (code == 0) return 0;
  // The package already printed one line saying why; map its status onto
  // the documented exit codes without a second message.
  if (code == kPyBadInput || code == kPyNoMatplotlib) return exit_code(ErrorKind::usage);
  if (code == kPyWriteFailed) return exit_code(ErrorKind::io);
  if (code == kPyNoPackage)
    fail(ErrorKind::usage, fmt::format("the xferbench_plot package is not importable by {}: pip install ./python from "
                                       "the xferbench source tree", python));
  if (code == 127) fail(ErrorKind::usage, fmt::format("cannot run {}", python));
  return exit_code(ErrorKind::internal);
}

}  // namespace

void add_plot_command(CLI::App& root, Context& ctx) {
  auto* cmd = root.add_subcommand("plot", "Draw a run, sweep, sweep --sms, pingpong or scenario JSON as PNG or SVG (needs python3 "
                                          "with matplotlib)");
  auto args = std::make_shared<PlotArgs>();
  cmd->add_option("RESULT", args->inputs, "Result JSON file(s); several sweep/pingpong files share one figure")
      ->required();
  cmd->add_option("-o,--output", args->output, "Image to write: FILE.png or FILE.svg")->required();
  cmd->add_option("--kind", args->kind,
                  "auto, curves (bandwidth vs size), heatmap (matrices), timeline, sms (bandwidth vs SM count)")
      ->check(CLI::IsMember({"auto", "curves", "heatmap", "timeline", "sms"}))
      ->capture_default_str();
  cmd->add_option("--title", args->title, "Figure title (default: from the result)");
  cmd->footer("Nothing is written unless the whole image is. See docs/plots.md.");
  set_exit_code_footer(*cmd);
  cmd->callback([&ctx, args]() {
    if (!ends_with(args->output, ".png") && !ends_with(args->output, ".svg"))
      fail(ErrorKind::usage, fmt::format("invalid -o '{}': the image must end in .png or .svg", args->output));
    ctx.action = [args]() { return execute(*args); };
  });
}

}  // namespace xb::app
