// Reporters for `xferbench run --dry-run`: the planned cases and cells,
// bytes moved and the time model's estimate, as text or JSON.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "cases/run_plan.hpp"

namespace xb::report {

inline constexpr const char* kPlanSchemaName = "xferbench-plan";
inline constexpr int kPlanSchemaVersion = 1;

struct PlanContext {
  std::string topology;            // the --topology file, empty: this machine
  std::uint64_t buffer_bytes = 0;
  MeasureOptions measure;
};

std::string plan_text(const RunEstimate& e, const System& sys, const PlanContext& ctx);
nlohmann::json plan_json(const RunEstimate& e, const System& sys, const PlanContext& ctx);

// "all 2 ordered pairs", "given: 0->1", "sampled 8 of 56 (seed 1): 0->3 ...".
std::string pairs_text(const PairSelection& p);

}  // namespace xb::report
