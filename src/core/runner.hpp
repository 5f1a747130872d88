// Runs a list of named cases against one Measurer and collects a RunResult.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/cases.hpp"
#include "core/pairs.hpp"
#include "core/result.hpp"

namespace xb {

struct RunRequest {
  std::vector<const CaseDef*> cases;
  std::uint64_t buffer_bytes = 512ull << 20;
  bool use_mean = false;
  MeasureOptions measure;
  std::vector<std::string> command_line;
  // GPU pairs of the pairwise cases (--pair, --sample-pairs, --seed),
  // checked against the machine by select_pairs when the run starts.
  std::vector<GpuPair> given_pairs;
  int sample_pairs = 0;  // 0: every pair
  std::uint64_t pair_seed = 1;
};

// Called after each case, e.g. for progress on stderr.
using CaseCallback = std::function<void(const CaseResult&, std::size_t done, std::size_t total)>;

// Throws Error(usage) for pairs that do not exist here and Error(resources)
// when the buffer cannot fit in a GPU's free memory, both before measuring
// anything; errors inside a case become that case's data.
RunResult run_cases(const System& sys, const RunRequest& req, const CaseCallback& on_case = {});

// Marks cells far below the others on the same kind of link in the same
// matrix (bandwidth < 80% of the group's median; latency > 125%).
void flag_outliers(Matrix& m);

// True when every case passed or was waived.
bool all_passed(const RunResult& r);

std::string utc_now_iso8601();

}  // namespace xb
