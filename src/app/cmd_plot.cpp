// xferbench plot RESULT.json...|SOAK.jsonl -o FILE.png|FILE.svg: draws results with the
// xferbench_plot Python package (matplotlib), run as `python3 -m
// xferbench_plot`. Drawing lives in Python because matplotlib is the
// well-kept plotting library; this command checks the arguments, finds
// python3, reads the image it draws from a pipe and writes -o itself, with
// report/output_file.hpp as every command writes its files (through
// /dev/stdout and its kin, in place for a FIFO, atomically for a regular
// file). The package validates schemas and prints its own one-line errors.
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "app/command.hpp"
#include "base/error.hpp"
#include "report/output_file.hpp"

extern char** environ;

namespace xb::app {
namespace {

// Exit codes of `python3 -m xferbench_plot` (python/xferbench_plot/__main__.py).
constexpr int kPyBadInput = 2;
constexpr int kPyNoMatplotlib = 3;
constexpr int kPyWriteFailed = 4;
constexpr int kPyNoPackage = 1;  // python3 -m on a missing module (the package itself never exits 1)
constexpr int kPyInternal = 5;   // a bug in the package; it printed the exception
constexpr int kPyNoMemory = 6;
// The descriptor python3 writes the image to (a pipe to this process).
constexpr int kImageFd = 3;

struct PlotArgs {
  std::vector<std::string> inputs;
  std::string output, kind = "auto", title;
};

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Only PATH's absolute directories are searched: an empty or relative entry
// names the current directory (or one below it), where anyone may have left
// a program called python3, and with no PATH at all nothing is guessed.
std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (path == nullptr)
    fail(ErrorKind::usage, fmt::format("PATH is not set: xferbench plot looks for {} only in PATH's absolute "
                                       "directories", name));
  const std::string dirs = path;
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string dir = dirs.substr(start, end - start);
    start = end + 1;
    if (dir.empty() || dir.front() != '/') continue;
    const std::string candidate = dir + "/" + name;
    struct stat st {};
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(candidate.c_str(), X_OK) == 0)
      return candidate;
  }
  return "";
}

// Where the xferbench_plot package is: an installed copy next to this
// binary (<prefix>/share/xferbench/python, found from /proc/self/exe, so
// any prefix and the seed-name links work), else the source tree's python/
// for a binary run from its build tree. Empty when neither is there.
std::string python_dir() {
  std::vector<std::string> candidates;
#ifdef XFERBENCH_INSTALLED_PYTHON_DIR
  std::string exe(4096, '\0');
  const ssize_t n = readlink("/proc/self/exe", exe.data(), exe.size());
  if (n > 0 && static_cast<std::size_t>(n) < exe.size()) {
    exe.resize(static_cast<std::size_t>(n));
    candidates.push_back(exe.substr(0, exe.rfind('/') + 1) + XFERBENCH_INSTALLED_PYTHON_DIR);
  }
#endif
#ifdef XFERBENCH_PYTHON_DIR
  candidates.emplace_back(XFERBENCH_PYTHON_DIR);
#endif
  for (const std::string& dir : candidates)
    if (access((dir + "/xferbench_plot/__main__.py").c_str(), R_OK) == 0) return dir;
  return "";
}

// The child's environment: this one, with the xferbench_plot package's
// directory first on PYTHONPATH when there is one, so neither a build tree
// nor an installed package needs `pip install ./python`. Python writes no
// __pycache__ there: an installed copy belongs to the package manager, which
// removes only the files it installed.
std::vector<std::string> child_environment() {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
  const std::string dir = python_dir();
  if (dir.empty()) return env;
  env.emplace_back("PYTHONDONTWRITEBYTECODE=1");
  const std::string key = "PYTHONPATH=";
  auto it = std::find_if(env.begin(), env.end(), [&](const std::string& v) { return v.rfind(key, 0) == 0; });
  if (it == env.end()) {
    env.push_back(key + dir);
  } else {
    const std::string old = it->substr(key.size());
    *it = key + dir + (old.empty() ? "" : ":" + old);
  }
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// While python3 runs, a Ctrl-C or Ctrl-\ from the terminal (sent to the whole
// process group) is left to it, as system(3) does: python3 removes a
// half-written image and ends by that signal, and this process says so.
class LeaveTerminalSignalsToChild {
 public:
  LeaveTerminalSignalsToChild() {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGINT, &ignore, &old_int_);
    sigaction(SIGQUIT, &ignore, &old_quit_);
  }
  ~LeaveTerminalSignalsToChild() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGQUIT, &old_quit_, nullptr);
  }
  LeaveTerminalSignalsToChild(const LeaveTerminalSignalsToChild&) = delete;
  LeaveTerminalSignalsToChild& operator=(const LeaveTerminalSignalsToChild&) = delete;
  // The child gets back the dispositions this process had (SIG_IGN stays ignored).
  void restore_in(posix_spawnattr_t& attr) const {
    sigset_t restored;
    sigemptyset(&restored);
    if (old_int_.sa_handler != SIG_IGN) sigaddset(&restored, SIGINT);
    if (old_quit_.sa_handler != SIG_IGN) sigaddset(&restored, SIGQUIT);
    posix_spawnattr_setsigdefault(&attr, &restored);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
  }

 private:
  struct sigaction old_int_ {}, old_quit_ {};
};

// posix_spawn reports a failed fork or exec as its result, so a python3
// that cannot be started is told apart from one that ran and failed.
[[noreturn]] void start_failed(const std::string& python, int error) {
  // The file was there when PATH was searched: ENOENT from exec means the
  // interpreter its #! line names is missing.
  const std::string why = fmt::format("cannot start {}: {}{}", python, std::strerror(error),
                                      error == ENOENT ? " (its #! interpreter)" : "");
  if (error == ENOMEM) fail(ErrorKind::resources, why);
  fail(ErrorKind::usage, why + " (xferbench plot needs a working python3 with matplotlib: pip install ./python)");
}

// A python3 ended by a signal: one a user sends (or the kernel's SIGKILL
// when memory runs out) is an interruption, 130 / 143 as for every command;
// any other (SIGSEGV, SIGABRT, ...) is a crash, 70.
int killed_by(const std::string& python, int signal_number) {
  const std::string what =
      fmt::format("{} -m xferbench_plot was ended by signal {} ({})", python, signal_number, strsignal(signal_number));
  const int s = signal_number;
  if (s != SIGINT && s != SIGTERM && s != SIGHUP && s != SIGQUIT && s != SIGKILL) fail(ErrorKind::internal, what);
  fmt::print(stderr, "xferbench: error: {}\n", what);
  return s == SIGINT ? 130 : 143;
}

// Everything python3 writes to the image pipe, until it closes it.
std::string read_image(int fd) {
  std::string image;
  char chunk[1 << 16];
  for (;;) {
    const ssize_t n = read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return image;  // an error reads as an end: the exit status says what happened
    image.append(chunk, static_cast<std::size_t>(n));
  }
}

// The wait status of python3 run with `args`; `image` gets what it wrote to
// descriptor kImageFd.
int run_python(const std::string& python, std::vector<std::string> args, std::string& image) {
  std::vector<std::string> env = child_environment();
  std::vector<char*> argv = c_strings(args), envp = c_strings(env);
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0)
    fail(errno == EMFILE || errno == ENFILE ? ErrorKind::resources : ErrorKind::internal,
         fmt::format("cannot make a pipe for the image: {}", std::strerror(errno)));
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_adddup2(&files, pipe_fds[1], kImageFd);  // the copy is not close-on-exec
  LeaveTerminalSignalsToChild terminal;
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  terminal.restore_in(attr);
  pid_t pid = 0;
  const int error = posix_spawn(&pid, python.c_str(), &files, &attr, argv.data(), envp.data());
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&files);
  close(pipe_fds[1]);
  if (error != 0) {
    close(pipe_fds[0]);
    start_failed(python, error);
  }
  image = read_image(pipe_fds[0]);
  close(pipe_fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) fail(ErrorKind::internal, fmt::format("waiting for {}: {}", python, std::strerror(errno)));
  }
  return status;
}

int execute(const PlotArgs& a) {
  report::check_output_file(a.output);  // before drawing: a directory or an unwritable path ends here with exit 7
  const std::string python = find_on_path("python3");
  if (python.empty())
    fail(ErrorKind::usage, "xferbench plot needs python3 on PATH with matplotlib (pip install ./python)");
  // Options as --name=value and the files after "--": a title or a file
  // name that starts with '-' is then not taken for an option.
  std::vector<std::string> args = {python,         "-m", "xferbench_plot", "--output=" + a.output,
                                   "--kind=" + a.kind, fmt::format("--image-fd={}", kImageFd)};
  if (!a.title.empty()) args.push_back("--title=" + a.title);
  args.push_back("--");
  args.insert(args.end(), a.inputs.begin(), a.inputs.end());
  std::string image;
  const int status = run_python(python, args, image);
  if (WIFSIGNALED(status)) return killed_by(python, WTERMSIG(status));
  const int code = WEXITSTATUS(status);
  if (code == 0 && image.empty())
    fail(ErrorKind::internal, fmt::format("{} -m xferbench_plot exited with 0 but drew no image", python));
  if (code == 0) {
    report::write_output_file(a.output, image);  // whole or not at all, as every output file
    return 0;
  }
  // The package already printed one line saying why; map its status onto
  // the documented exit codes without a second message.
  if (code == kPyBadInput || code == kPyNoMatplotlib) return exit_code(ErrorKind::usage);
  if (code == kPyWriteFailed) return exit_code(ErrorKind::io);
  if (code == kPyNoPackage)
    fail(ErrorKind::usage, fmt::format("the xferbench_plot package is not importable by {}: pip install ./python from "
                                       "the xferbench source tree", python));
  if (code == kPyInternal) return exit_code(ErrorKind::internal);
  if (code == kPyNoMemory) return exit_code(ErrorKind::resources);
  fail(ErrorKind::internal, fmt::format("{} -m xferbench_plot exited with {}, which it never does", python, code));
}

}  // namespace

void add_plot_command(CLI::App& root, Context& ctx) {
  auto* cmd = root.add_subcommand("plot", "Draw a run, sweep, sweep --sms, pingpong, scenario or fabric JSON, or a "
                                          "soak file, as PNG or SVG (needs python3 with matplotlib)");
  auto args = std::make_shared<PlotArgs>();
  cmd->add_option("RESULT", args->inputs,
                  "Result JSON file(s), or a soak file (JSON Lines); several sweep/pingpong files share one figure")
      ->required();
  cmd->add_option("-o,--output", args->output, "Image to write: FILE.png or FILE.svg")->required();
  cmd->add_option("--kind", args->kind,
                  "auto, curves (bandwidth vs size), heatmap (matrices), timeline, sms (bandwidth vs SM count), "
                  "soak (cells and GPU telemetry over time), fabric (node x node matrix per rail, culprits marked)")
      ->check(CLI::IsMember({"auto", "curves", "heatmap", "timeline", "sms", "soak", "fabric"}))
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
