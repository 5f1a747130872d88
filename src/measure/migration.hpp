// On-demand migration of managed memory: what a program pays when it
// touches cudaMallocManaged pages that sit on the other side of the link.
//
//   to_device  the pages are placed on the host (prefetch, untimed); a GPU
//              kernel reads them, so they fault over to the GPU.
//   to_host    the pages are placed on the GPU; one host thread reads them,
//              so they fault back to the host.
//
// Three figures per direction, each from its own timed touch of freshly
// placed pages: every 16 bytes read (GB/s over the bytes), and one read per
// 4 KiB and per 2 MiB page (time per page touched). The GPU touches all its
// pages at once from every SM, so its per-page time is a throughput cost;
// the host thread touches them in order, one after another.
#pragma once

#include <cstdint>
#include <vector>

namespace xb {

class Measurer;

enum class MigrationDirection { to_device, to_host };

struct MigrationSamples {
  std::vector<double> dense_gbps;         // every byte read
  std::vector<double> ns_per_4k_page;     // one read per 4 KiB page
  std::vector<double> ns_per_2m_page;     // one read per 2 MiB page
  std::uint64_t dense_bytes = 0, small_page_bytes = 0, large_page_bytes = 0;
  bool verified = false;                  // the pattern survived the round trips
  std::uint64_t first_bad_offset = 0;     // meaningful when !verified
};

// Bytes touched by the per-4 KiB-page measurement: at most this much of the
// buffer, so one sample stays short (every 4 KiB page is its own fault).
inline constexpr std::uint64_t kSmallPageRegion = 32ull << 20;
inline constexpr std::uint64_t kSmallPage = 4096, kLargePage = 2ull << 20;

// `bytes` of managed memory between the host and GPU `gpu`; sampling follows
// the measurer's options. Throws Error(resources) when managed memory cannot
// be allocated, Error(usage) when the GPU cannot use managed memory.
MigrationSamples measure_migration(Measurer& measurer, int gpu, MigrationDirection dir, std::uint64_t bytes);

}  // namespace xb
