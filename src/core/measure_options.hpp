// How a measurement samples and checks: the options every measuring
// command passes down, the SM kernel shape, and a transfer's verification
// outcome. Plain data (no CUDA types): result records carry them.
#pragma once

#include <cstdint>

#include "core/model.hpp"

namespace xb {

// Launch shape of the SM copy kernel. Zero fields mean "choose".
//  - vector: every thread moves 16-byte vectors, `unroll` loads in flight;
//  - bulk (Hopper and later): one thread per block drives the SM's bulk
//    asynchronous copy unit (cp.async.bulk) through `stages` shared-memory
//    buffers of `chunk_kib` KiB each: global -> shared -> global.
struct SmCopyConfig {
  enum class Method { vector, bulk };
  Method method = Method::vector;
  int blocks_per_sm = 0;
  int threads = 0;   // per block (vector)
  int unroll = 0;    // 16-byte vectors in flight per thread: 1, 2, 4, 8 or 16 (vector)
  bool streaming = false;  // evict-first cache hints on loads and stores (vector)
  bool l2_256b = false;    // loads ask L2 for 256-byte blocks (vector)
  bool l2_only = false;    // loads and stores cached in L2 only, .cg (vector)
  int chunk_kib = 0;  // bulk
  int stages = 0;     // bulk: 2, 3 or 4
  // Each block reserves more than half an SM's shared memory, so no two
  // blocks share an SM and `sm_count` blocks run on that many SMs (the SM
  // budget of `sweep --sms`); implies one block per SM.
  bool one_block_per_sm = false;
};

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
  // SM budget (sweep --sms): SM kernels run this many blocks, each alone on
  // its SM (SmCopyConfig::one_block_per_sm); 0: every SM, as chosen.
  int sm_limit = 0;
};

struct Verification {
  enum class Status { passed, failed, skipped };
  Status status = Status::skipped;
  std::uint64_t first_bad_offset = 0;  // meaningful when failed
};
const char* to_string(Verification::Status s) noexcept;

}  // namespace xb
