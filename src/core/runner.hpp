// Runs a list of named cases against one Measurer and collects a RunResult.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/cases.hpp"
#include "core/result.hpp"

namespace xb {

struct RunRequest {
  std::vector<const CaseDef*> cases;
  std::uint64_t buffer_bytes = 512ull << 20;
  bool use_mean = false;
  MeasureOptions measure;
  std::vector<std::string> command_line;
  // --max-memory; without it the pool's budget is the largest need of any
  // one cell of the run (memory_plan.hpp, docs/memory.md).
  std::optional<MemoryLimit> max_memory;
};

// Called after each case, e.g. for progress on stderr.
using CaseCallback = std::function<void(const CaseResult&, std::size_t done, std::size_t total)>;

// Throws Error(resources) before measuring anything when the buffer cannot
// fit in a GPU's free memory; errors inside a case become that case's data.
RunResult run_cases(const System& sys, const RunRequest& req, const CaseCallback& on_case = {});

// Marks cells far below the others on the same kind of link in the same
// matrix (bandwidth < 80% of the group's median; latency > 125%).
void flag_outliers(Matrix& m);

// True when every case passed or was waived.
bool all_passed(const RunResult& r);
// True when cells were waived because their buffers did not fit (exit 10).
bool memory_partial(const RunResult& r);

std::string utc_now_iso8601();

}  // namespace xb
