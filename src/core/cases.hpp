// The named case catalogue (nvbandwidth's names, indices and meanings),
// generated from data: each case is a traffic pattern x an engine, and the
// pattern decides which transfers run together for each matrix cell.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/model.hpp"
#include "core/result.hpp"

namespace xb {

class Measurer;

enum class Pattern {
  host_to_device, device_to_host,
  host_to_device_bidir, device_to_host_bidir,
  d2d_read, d2d_write, d2d_bidir_read, d2d_bidir_write,
  all_to_host, all_to_host_bidir, host_to_all, host_to_all_bidir,
  all_to_one_write, all_to_one_read, one_to_all_write, one_to_all_read,
  host_device_latency, d2d_latency,
  local_copy,
};

struct CaseDef {
  int index = 0;
  std::string name;
  Pattern pattern;
  Engine engine;
  std::string description;
};

const std::vector<CaseDef>& case_catalogue();

// Resolves names, indices ("3") and prefixes to cases in catalogue order
// (names/indices keep the order given). Throws Error(usage) naming an
// unknown name, an index out of range or a prefix matching nothing.
std::vector<const CaseDef*> select_cases(const std::vector<std::string>& names,
                                         const std::vector<std::string>& prefixes);

// The cases of a named suite: "quick" (the default: the main host<->GPU,
// GPU<->GPU, latency and local-copy cases) or "full" (all 35).
std::vector<const CaseDef*> suite_cases(const std::string& suite);

// Why this machine cannot run the case (one GPU, no peer access), if so.
std::optional<std::string> waive_reason(const CaseDef& def, const System& sys);

// Runs one case; errors inside become data (status error / failed).
CaseResult run_case(const CaseDef& def, Measurer& measurer, std::uint64_t bytes, bool use_mean);

class SampleSource;
class RunControl;
// The same into `r`, through any source and under a RunControl (stops,
// time limit, faults, resume). A stop request throws Stopped out of it with
// the cells measured so far in `r`.
void run_case_into(const CaseDef& def, SampleSource& src, std::uint64_t bytes, bool use_mean, CaseResult& r,
                   RunControl* ctl = nullptr);

}  // namespace xb
