// check_node on a real GPU: lint, the check suite with telemetry, verdicts.
// Skipped visibly without a GPU. Small buffers keep it short; it checks the
// structure of the result, not the node's verdict (bench/suites/node_check.sh does).
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include "check/node.hpp"
#include "report/reporter.hpp"

namespace {

TEST(CheckGpu, CheckNodeLintsMeasuresAndJudgesEveryCell) {
  int n = 0;
  const cudaError_t err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess || n == 0) {
    (void)cudaGetLastError();
    GTEST_SKIP() << "no CUDA GPU: " << cudaGetErrorName(err);
  }
  xb::check::CheckOptions opts;
  opts.buffer_bytes = 32ull << 20;
  opts.measure.budget_s = 0.2;
  const xb::check::CheckResult r = xb::check::check_node(opts);
  EXPECT_EQ(r.lint.rules.size(), xb::check::lint_rule_ids().size());
  ASSERT_FALSE(r.cells.empty());
  for (const auto& p : r.problems) EXPECT_EQ(p.status, xb::CaseStatus::waived) << p.case_name << ": " << p.message;
  const bool nvml = r.run.system.nvml_available;
  if (nvml) {
    ASSERT_FALSE(r.telemetry.empty());
    for (const auto& w : r.telemetry) {
      ASSERT_EQ(w.gpus.size(), static_cast<std::size_t>(n));
      EXPECT_TRUE(w.gpus[0].after.sm_clock_mhz.has_value()) << w.case_name;
    }
  }
  for (const auto& c : r.cells) {
    EXPECT_GT(c.value, 0) << c.key;
    if (nvml && !c.latency) {
      EXPECT_NE(c.verdict, xb::check::CellVerdict::unjudged) << c.key << ": " << c.note;
    }
  }
  const nlohmann::json doc = xb::report::check_json(r);
  EXPECT_EQ(doc["check"]["cells"].size(), r.cells.size());
  EXPECT_EQ(doc["check"]["verdict"], r.pass ? "pass" : "fail");
  EXPECT_EQ(xb::report::check_summary_line(r).rfind("xferbench check: ", 0), 0u);
}

}  // namespace
