// How a measurement samples and checks: the options every measuring
// command passes down, the SM kernel shape, and a transfer's verification
// outcome. Plain data (no CUDA types): result records carry them.
#pragma once

#include <cstdint>

#include "base/model.hpp"
#include "base/stats.hpp"
#include "kernels/sm_copy_config.hpp"

namespace xb {

struct MeasureOptions {
  int copies_per_sample = 0;       // 0: chosen from the warm-up so a sample lasts ~target_sample_s
  double target_sample_s = 0.02;
  int warmup_copies = 2;
  int min_samples = 3;
  int max_samples = 40;
  double target_rel_error = 0.005; // stop when the median's relative error is below this
  double budget_s = 3.0;           // per scenario; min_samples are always taken
  bool verify = true;
  double gate_timeout_s = 10.0;
  bool numa_affinity = true;       // host buffers and the measuring thread on the GPU's node
  SmCopyConfig sm;                 // zero fields: per-link defaults (sm_shape.hpp)
  // SM transfers: one kernel launch per sample that repeats the copy
  // copies_per_sample times (as nvbandwidth's kernels loop), instead of one
  // launch per copy. Per-copy launches add a launch gap and a drain of the
  // link to every copy; sweeps use them so the startup time includes the
  // launch, as it includes the copy engine's per-copy work.
  bool sm_repeat_in_kernel = true;
  // Memory kind of the named cases' host buffers (they ask for pinned):
  // pinned, or hugepages (--host-mem hugepages).
  MemKind host_kind = MemKind::pinned;
  // SM budget (sweep --sms): SM kernels run pinned to this many SMs
  // (kernels.hpp, SM pinning); 0: every SM.
  int sm_limit = 0;
  Statistic statistic = Statistic::median;  // what a cell reports
  // Cells nvbandwidth measures another way (case_plan.hpp,
  // CellPlan::nvbandwidth) are measured that way too; check, which judges
  // xferbench's own figures, and `run --no-nvbandwidth-way` skip it.
  bool nvbandwidth_way = true;
};

struct Verification {
  enum class Status { passed, failed, skipped };
  Status status = Status::skipped;
  std::uint64_t first_bad_offset = 0;  // meaningful when failed
};
const char* to_string(Verification::Status s) noexcept;

}  // namespace xb
