// What `xferbench soak` and `xferbench check --soak` share: the soak file
// (named, or a new one here), the clocks and NVML of the context, and the
// soak loop under a status line (defined in cmd_soak.cpp).
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "app/command.hpp"
#include "check/soak_run.hpp"

namespace xb::app {

// The cases a soak measures when none is named: the check suite. (The
// lead adds the loaded-latency cells here.)
std::vector<const CaseDef*> default_soak_cases();

// FILE opened as `mode` says (through a symlink or special file; `option`
// names it in messages), or with FILE empty a new
// xferbench-soak-<UTC time>.jsonl in the current directory (O_EXCL), its
// name printed on `err`.
std::unique_ptr<check::SoakFileWriter> open_soak_file(const std::string& file, check::SoakFileMode mode,
                                                      const std::string& option, const check::SoakClock& clock,
                                                      std::ostream& err);

check::SoakClock soak_clock(const Context& ctx);
// The context's NVML, else the driver's; null where it cannot load.
std::shared_ptr<NvmlQueries> soak_nvml(const Context& ctx);

// run_soak with a status line on a terminal, or a line per round on
// stderr when it is not one (nothing with -q).
check::SoakOutcome run_soak_with_status(SampleSource& src, const NvmlQueries* nvml, check::SoakRequest& req,
                                        check::SoakFileWriter& out, const Context& ctx);

}  // namespace xb::app
