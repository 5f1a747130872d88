// What `xferbench soak` and `xferbench check --soak` share: the default
// cases, the soak file (named, or a new one here) and its rules, the
// clocks and NVML of the context, and the soak under a status line.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "app/command.hpp"
#include "check/node.hpp"
#include "report/output_file.hpp"
#include "soak/soak_run.hpp"

namespace xb::app {

// The cases a soak measures when none is named: the check suite, then the
// loaded-latency cases (latency idle and under load).
std::vector<const CaseDef*> default_soak_cases();

// How a soak opens its file. A soak file holds one soak: appending a new
// soak to an old one would make a file that reads back as neither.
enum class SoakFileMode {
  start,       // -o FILE: created, or an empty file or a special file (FIFO, /dev/stdout) written
               // in place; a regular file that holds anything is refused (Error(usage))
  overwrite,   // --overwrite: as start, but a non-empty regular file is emptied first
  append,      // --resume: appended to, its torn last line (a killed soak) cut first
};

// Refuses, before any measuring, a `path` that `mode` would refuse to open
// (start: a non-empty regular file), naming `option` and the way out, and
// checks that the path can be written (report::check_output_file).
// Throws Error(usage) or Error(io).
void check_soak_file(const std::string& path, SoakFileMode mode, const std::string& option);

// FILE opened as `mode` says, by report/output_file's rules (through a
// symlink or special file; `option` names it in messages), or with FILE
// empty a new xferbench-soak-<UTC time>.jsonl in the current directory
// (never an existing one: O_EXCL), its name printed on `err`.
std::unique_ptr<report::AppendFile> open_soak_file(const std::string& file, SoakFileMode mode,
                                                   const std::string& option, const soak::SoakClock& clock,
                                                   std::ostream& err);

soak::SoakClock soak_clock(const Context& ctx);
// The context's NVML, else the driver's; null where it cannot load.
std::shared_ptr<NvmlQueries> soak_nvml(const Context& ctx);

// run_soak with its lines appended to `out`, with a status line on a
// terminal, or a line per round on stderr when it is not one (nothing
// with -q).
soak::SoakOutcome run_soak_with_status(SampleSource& src, const NvmlQueries* nvml, soak::SoakRequest& req,
                                       report::AppendFile& out, const Context& ctx);

// check --soak: the check suite (`suite`, the preset) soaked for
// `duration_s` into `file`; the run returned carries each cell's median
// over the soak, `r` the soak's summary and file.
RunResult soak_for_check(const Context& ctx, SampleSource& src, const NvmlQueries* nvml, const RunRequest& suite,
                         double duration_s, const std::string& file, SoakFileMode mode, check::CheckResult& r);

}  // namespace xb::app
