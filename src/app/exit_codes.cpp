#include "app/exit_codes.hpp"

#include <algorithm>
#include <sstream>

#include <fmt/format.h>

namespace xb::app {
namespace {

// One row of a table. `commands`: space-separated names, "*" for every
// command.
struct Row {
  int code;
  const char* commands;
  const char* meaning;
};

const Row kRows[] = {
    {0, "*", "success (every case passed or was waived)"},
    {1, "run sweep cuts compare check soak pingpong first-touch fabric nvbandwidth bwtest",
     "a measurement failed: a data check or a case error; compare: a regression; check: FAIL"},
    {2, "*",
     "bad input: a bad argument or option value, or an input file (spec, baseline, judge file, topology, resume "
     "file, compared or plotted JSON) that cannot be read, is not a regular file or is malformed; the message names "
     "the value, or the file and the field"},
    {3, "list run sweep cuts check soak pingpong first-touch fabric nvbandwidth bwtest", "no usable CUDA GPU or driver"},
    {4, "run sweep cuts compare plot check soak pingpong first-touch fabric nvbandwidth bwtest",
     "not enough memory for the requested buffers"},
    {5, "list", "NVML unavailable (list needs it)"},
    {6, "run sweep check pingpong first-touch fabric",
     "MPI / launch problem (also srun without PMIx where Open MPI needs it: the message names the fix)"},
    {7, "*", "an output could not be written: an -o or --junit file, standard output, a FIFO without a reader"},
    {8, "list run sweep cuts check soak pingpong first-touch fabric nvbandwidth bwtest", "CUDA error"},
    {9, "run sweep cuts check soak pingpong first-touch fabric nvbandwidth bwtest",
     "timeout: a gate, a transfer or a peer that does not answer"},
    {10, "run sweep cuts check pingpong first-touch",
     "partial result: --time-limit left cells out, or cells were waived because they did not fit in memory or the "
     "--max-memory budget (both listed as not run)"},
    {70, "*", "internal error (a bug; never for user input)"},
    {130, "run sweep cuts plot check soak pingpong first-touch fabric nvbandwidth bwtest",
     "interrupted by SIGINT; what was measured is written (status interrupted)"},
    {143, "run sweep cuts plot check soak pingpong first-touch fabric nvbandwidth bwtest",
     "interrupted by SIGTERM; likewise"},
};

// What a code means for particular commands, where that says more than the
// row's meaning (which the other commands' --help shows).
const Row kSpecific[] = {
    {0, "list cases", "success"},
    {0, "compare", "no regression"},
    {0, "plot", "the image was written"},
    {0, "check", "PASS"},
    {0, "soak", "nothing found: no drift, step, episode or failed sample"},
    {0, "pingpong first-touch", "success (every size or iteration passed)"},
    {1, "run nvbandwidth", "a case failed: a data check or a case error"},
    {1, "sweep", "a size failed: a data check or an error"},
    {1, "cuts bwtest", "a transfer failed: a data check or an error"},
    {1, "compare", "a regression: a cell slower, or failed in NEW"},
    {1, "check", "FAIL"},
    {1, "soak", "findings: drift or a step the bad way, a throttle or error episode, a failed sample"},
    {1, "pingpong", "a data check or a size failed"},
    {1, "first-touch", "an iteration failed"},
    {0, "fabric", "every pair measured and verified (culprits named too, unless --fail-on-culprit)"},
    {1, "fabric", "a pair's data check failed, or --fail-on-culprit and a culprit was named"},
    {9, "fabric", "a rank was lost (dead or hung; the other pairs are in the result) or a pair's peer did not answer"},
    {130, "fabric", "interrupted by SIGINT; the rounds finished are written (status interrupted)"},
    {143, "fabric", "interrupted by SIGTERM; likewise"},
    {2, "list cases", "bad argument or option value"},
    {2, "run", "bad argument or option value, or a --topology or --resume file that cannot be read or is malformed"},
    {2, "sweep", "bad argument or option value, or a --resume file that cannot be read or is malformed"},
    {2, "cuts",
     "bad argument or option value (also a GPU pair without peer access), or a --resume file that cannot be read or "
     "is malformed"},
    {2, "compare", "bad argument, or an OLD or NEW file that cannot be read, is malformed, or does not match the other"},
    {2, "plot", "bad argument, a RESULT file that cannot be read or is malformed, or python3 or matplotlib missing"},
    {2, "soak",
     "bad argument or duration, a --resume or --summary file that is not a soak file or has other cases, or an -o file "
     "that already holds a soak (give --resume or --overwrite)"},
    {2, "check", "bad argument, or a --spec, --baseline or --judge file that cannot be read or is malformed"},
    {2, "pingpong first-touch fabric", "bad argument or option value (most are found before MPI starts)"},
    {2, "nvbandwidth", "bad argument or option value (also an unknown test case)"},
    {2, "bwtest", "bad argument or --do spec"},
    {6, "run sweep check",
     "MPI / launch problem under mpirun or srun (also srun without PMIx where Open MPI needs it: the message names "
     "the fix)"},
    {6, "pingpong first-touch fabric",
     "not launched as 2 or more MPI processes, srun without PMIx where Open MPI needs it (the message names the fix), "
     "or an MPI or NCCL problem"},
    {7, "list cases run sweep cuts compare pingpong first-touch fabric",
     "an output could not be written: the -o file, standard output, a FIFO without a reader"},
    {4, "plot", "not enough memory to start python3 or to draw"},
    {4, "compare", "not enough memory to read the files (under a memory limit)"},
    {7, "plot", "the -o image or standard output could not be written"},
    {7, "nvbandwidth bwtest", "standard output could not be written"},
    {10, "run sweep cuts", "partial result: --time-limit left cells out, or cells were waived for memory"},
    {10, "check", "PARTIAL: --time-limit left cells out (not accepted)"},
    {10, "pingpong", "partial result: --time-limit left sizes out"},
    {10, "first-touch", "partial result: --time-limit left iterations out"},
    {130, "soak", "interrupted by SIGINT; the summary is printed and the end line written"},
    {143, "soak", "interrupted by SIGTERM; likewise"},
    {130, "plot", "python3 was interrupted by SIGINT; no image"},
    {143, "plot", "python3 ended by SIGTERM, SIGHUP, SIGQUIT or SIGKILL; no image"},
};

bool names(const char* list, const std::string& command) {
  std::istringstream words(list);
  std::string w;
  while (words >> w)
    if (w == "*" || w == command) return true;
  return false;
}


// "  CODE meaning", wrapped to lines of at most `width` characters with the
// continuation lines indented under the meaning.
std::string footer_line(int code, const std::string& meaning, std::size_t width = 110) {
  std::string out = fmt::format("  {:<4}", code);
  std::size_t line_start = 0;
  std::istringstream words(meaning);
  std::string w;
  while (words >> w) {
    if (out.size() - line_start + 1 + w.size() > width) {
      out += "\n       ";
      line_start = out.size() - 7;
    } else {
      out += ' ';
    }
    out += w;
  }
  return out;
}

}  // namespace

const std::vector<std::string>& exit_code_commands() {
  static const std::vector<std::string> all = {"list",  "cases",    "run",         "sweep",       "cuts",  "compare",
                                               "plot",  "check",    "soak",        "pingpong",    "first-touch", "fabric",
                                               "nvbandwidth", "bwtest"};
  return all;
}

const std::vector<ExitCode>& exit_code_table() {
  static const std::vector<ExitCode> table = [] {
    std::vector<ExitCode> t;
    for (const Row& r : kRows) {
      ExitCode e{r.code, r.meaning, {}};
      for (const std::string& c : exit_code_commands())
        if (names(r.commands, c)) e.commands.push_back(c);
      t.push_back(std::move(e));
    }
    return t;
  }();
  return table;
}

std::vector<std::pair<int, std::string>> exit_codes_of(const std::string& command) {
  std::vector<std::pair<int, std::string>> out;
  for (const ExitCode& e : exit_code_table()) {
    if (command == "xferbench") {
      out.emplace_back(e.code, e.meaning);
      continue;
    }
    if (std::find(e.commands.begin(), e.commands.end(), command) == e.commands.end()) continue;
    std::string meaning = e.meaning;
    for (const Row& s : kSpecific)
      if (s.code == e.code && names(s.commands, command)) meaning = s.meaning;
    out.emplace_back(e.code, meaning);
  }
  return out;
}

std::string exit_code_commands_cell(const ExitCode& row) {
  if (row.commands == exit_code_commands()) return "every command";
  return fmt::format("{}", fmt::join(row.commands, ", "));
}

void set_exit_code_footer(CLI::App& cmd) {
  const std::string name = cmd.get_name();
  // A subcommand starts with a copy of its parent's footer (CLI11); that
  // copy is not this command's own text.
  std::string prose = cmd.get_footer();
  if (cmd.get_parent() != nullptr && prose == cmd.get_parent()->get_footer()) prose.clear();
  std::string text = prose.empty() ? "" : prose + "\n";
  text += "Exit codes: (README.md \"Exit codes\" has them for every command)";
  for (const auto& [code, meaning] : exit_codes_of(name)) text += "\n" + footer_line(code, meaning);
  cmd.footer(text);
}

}  // namespace xb::app
