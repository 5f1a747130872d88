#include "core/runner.hpp"

#include <chrono>
#include <ctime>
#include <map>

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "core/cuda_check.hpp"
#include "core/error.hpp"
#include "core/case_plan.hpp"
#include "core/measure.hpp"
#include "core/memory_plan.hpp"
#include "core/memory_probe.hpp"
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

MemoryAmount budget_of(const MemoryLimit& limit, const System& sys) {
  MemoryAmount b;
  b.gpu.assign(static_cast<std::size_t>(sys.gpu_count()), limit.gpu);
  b.host = b.host_locked = limit.host;
  return b;
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

std::string impossible_reason(double gbps, const Peak& peak) {
  if (!peak.known() || gbps <= peak.gbps) return "";
  return fmt::format("{:.2f} GB/s is {:.1f}% of the theoretical peak {:.2f} GB/s ({}): more than the link can carry, "
                     "so this is not a measurement of that link",
                     gbps, 100 * gbps / peak.gbps, peak.gbps, peak.formula);
}

void mark_impossible_cells(CaseResult& c) {
  for (auto& m : c.matrices) {
    if (m.metric != Metric::bandwidth_gbps) continue;
    for (auto& cell : m.cells) {
      cell.invalid_reason = impossible_reason(cell.value, cell.peak);
      cell.invalid = !cell.invalid_reason.empty();
      if (!cell.invalid || c.status == CaseStatus::failed || c.status == CaseStatus::error) continue;
      c.status = CaseStatus::failed;
      c.message = fmt::format("invalid cell [{},{}] {}: {}", m.row_labels.at(cell.row), m.col_labels.at(cell.col),
                              cell.link, cell.invalid_reason);
    }
  }
}

void flag_outliers(Matrix& m) {
  std::map<std::string, std::vector<double>> groups;
  for (const auto& c : m.cells)
    if (!c.invalid) groups[c.link].push_back(c.value);
  for (auto& c : m.cells) {
    if (c.invalid) continue;
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

bool memory_partial(const RunResult& r) {
  for (const auto& c : r.cases)
    if (!c.waived_cells.empty()) return true;
  return false;
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
  run.memory.planned = run_memory_need(req.cases, sys, req.buffer_bytes);
  run.memory.budget_fixed = req.max_memory.has_value();
  run.memory.budget = req.max_memory ? budget_of(*req.max_memory, sys) : run.memory.planned;
  measurer.pool().set_budget(run.memory.budget, run.memory.budget_fixed);
  // After the measurer, so a rise of used memory leaves out its contexts.
  MemoryProbe probe(run.system);
  measurer.set_memory_probe(&probe);
  StabilityCheck stability(reference_cells(run.system),
                           [&](const ReferenceCell& ref) {
                             const CaseDef& def = *select_cases({ref.case_name}, {}).at(0);
                             return measure_one_cell(def, measurer, req.buffer_bytes, ref.row, ref.col);
                           },
                           req.stability_tolerance_pct);
  const bool check = req.stability_check && !req.cases.empty();
  if (check) {
    try {
      stability.start();
    } catch (const Error& e) {
      run.stability.error = e.what();
    }
    if (req.on_stability_start) req.on_stability_start(run.stability.error.empty() ? stability.peek() : run.stability);
  }
  for (std::size_t i = 0; i < req.cases.size(); ++i) {
    CaseResult r = run_case(*req.cases[i], measurer, req.buffer_bytes, req.use_mean, req.on_cell,
                            &run.settings.pairs);
    mark_impossible_cells(r);
    for (auto& m : r.matrices) flag_outliers(m);
    run.cases.push_back(std::move(r));
    if (on_case) on_case(run.cases.back(), i + 1, req.cases.size());
  }
  if (check && run.stability.error.empty()) {
    try {
      run.stability = stability.finish();
    } catch (const Error& e) {
      run.stability.error = e.what();
    }
  }
  probe.sample();
  run.memory.gpus = probe.gpu_peaks();
  run.memory.host_peak_rss_bytes = peak_rss_bytes();
  run.memory.pool = measurer.pool().stats();
  run.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return run;
}

}  // namespace xb
