#include "core/runner.hpp"

#include <chrono>
#include <ctime>
#include <map>

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "core/cuda_check.hpp"
#include "core/error.hpp"
#include "core/measure.hpp"
#include "core/stats.hpp"
#include "core/units.hpp"

namespace xb {
namespace {

void check_fits(const System& sys, std::uint64_t bytes) {
  for (const auto& g : sys.gpus) {
    std::size_t free_b = 0, total_b = 0;
    XB_CUDA_CHECK(cudaSetDevice(g.index));
    XB_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (bytes > free_b)
      fail(ErrorKind::resources, fmt::format("buffer size {} does not fit in gpu{}'s free memory ({} free)",
                                             bytes_label(bytes), g.index, bytes_label(free_b >> 20 << 20)));
  }
}

}  // namespace

std::string utc_now_iso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

void flag_outliers(Matrix& m) {
  std::map<std::string, std::vector<double>> groups;
  for (const auto& c : m.cells) groups[c.link].push_back(c.value);
  for (auto& c : m.cells) {
    const auto& g = groups[c.link];
    if (g.size() < 2) continue;
    const double med = median(g);
    if (med <= 0) continue;
    const double ratio = c.value / med;
    const bool slow = m.metric == Metric::bandwidth_gbps ? ratio < 0.8 : ratio > 1.25;
    if (slow) {
      c.outlier = true;
      c.note = fmt::format("{:.0f}% of the median of the {} cells on {}", ratio * 100, g.size(), c.link);
    }
  }
}

bool all_passed(const RunResult& r) {
  for (const auto& c : r.cases)
    if (c.status == CaseStatus::failed || c.status == CaseStatus::error) return false;
  return true;
}

RunResult run_cases(const System& sys, const RunRequest& req, const CaseCallback& on_case) {
  const auto t0 = std::chrono::steady_clock::now();
  RunResult run;
  run.command_line = req.command_line;
  run.start_time_utc = utc_now_iso8601();
  run.settings.buffer_bytes = req.buffer_bytes;
  run.settings.statistic = req.use_mean ? "mean" : "median";
  run.settings.measure = req.measure;
  run.system = sys;
  run.settings.pairs = select_pairs(req.given_pairs, req.sample_pairs, req.pair_seed, sys);
  check_fits(sys, req.buffer_bytes);
  Measurer measurer(run.system, req.measure);
  for (std::size_t i = 0; i < req.cases.size(); ++i) {
    CaseResult r = run_case(*req.cases[i], measurer, req.buffer_bytes, req.use_mean, &run.settings.pairs);
    for (auto& m : r.matrices) flag_outliers(m);
    run.cases.push_back(std::move(r));
    if (on_case) on_case(run.cases.back(), i + 1, req.cases.size());
  }
  run.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return run;
}

}  // namespace xb
