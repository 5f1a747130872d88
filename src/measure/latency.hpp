// Latency by a dependent pointer chase: one GPU thread follows a ring of
// 8-byte pointers spaced 128 bytes apart (one cache line per hop) through a
// 2 MiB buffer, so every access waits for the previous one. Reported as
// nanoseconds per access, never derived from bytes / bandwidth.
#pragma once

#include <cstdint>
#include <vector>

#include "base/model.hpp"

namespace xb {

class Measurer;

// Bytes of one pointer-chase ring.
constexpr std::uint64_t kChaseBytes = 2ull << 20;

struct LatencySamples {
  std::vector<double> ns_per_access;  // one value per sample
  std::uint64_t accesses_per_sample = 0;
  std::uint64_t buffer_bytes = 0;
  std::uint64_t host_page_bytes = 0;  // the ring's page size when on huge pages, else 0
};

// How each hop reads its pointer: a plain dependent load, or a 16-byte
// bulk copy into shared memory through the Tensor Memory Accelerator
// (launch_tma_chase: the latency of one small TMA transfer, issue to
// arrival, as a chain where each copy's source comes from the last one).
enum class ChaseKind { load, tma };

// GPU `gpu` chases pointers that live at `target` (host memory or another
// GPU's memory). Sampling follows the measurer's options (min/max samples,
// relative-error target, budget).
LatencySamples measure_latency(Measurer& measurer, int gpu, const Location& target, ChaseKind kind = ChaseKind::load);

}  // namespace xb
