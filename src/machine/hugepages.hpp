// Host memory on 2 MiB huge pages from the kernel's hugetlb pool
// (MAP_HUGETLB | MAP_HUGE_2MB), for `--host-mem hugepages` and the
// `hugepages` memory option of --do specs.
//
// Why the hugetlb pool and not transparent huge pages (madvise, as
// nvbandwidth v0.9 does): a hugetlb mapping either gets 2 MiB pages or fails
// at mmap time, so the page size is known; THP may quietly hand out 4 KiB
// pages (fragmentation, THP off) and the run would measure something else.
// The page size actually used is read back from /proc/self/smaps after the
// pages are faulted in, and recorded with the result.
#pragma once

#include <cstdint>
#include <string>

#include "base/error.hpp"

namespace xb {

inline constexpr std::uint64_t kHugePageBytes = 2ull << 20;

// Thrown when the pool cannot supply the pages (none reserved, too few
// free). Its kind is `resources`; named cases turn it into a waiver whose
// reason carries the fix.
class HugePagesUnavailable : public Error {
 public:
  explicit HugePagesUnavailable(const std::string& message) : Error(ErrorKind::resources, message) {}
};

// The 2 MiB pool: pages reserved and free; -1 when the kernel does not say.
struct HugePagePool {
  long total = -1;
  long free = -1;
  bool known() const noexcept { return total >= 0 && free >= 0; }
};

// Reads /sys/kernel/mm/hugepages/hugepages-2048kB/{nr,free}_hugepages.
HugePagePool read_hugepage_pool();

// 2 MiB pages that hold `bytes` (rounded up).
std::uint64_t hugepages_for(std::uint64_t bytes) noexcept;

// One line: why `pages` more pages cannot be had from `pool`, and the
// command that reserves enough ("sysctl vm.nr_hugepages=N").
std::string hugepage_shortage(const HugePagePool& pool, std::uint64_t pages);

// Maps `bytes` (rounded up to 2 MiB) of huge pages, prefers NUMA node `node`
// (>= 0) and faults every page in. Throws HugePagesUnavailable when the pool
// cannot supply them. Free with unmap_hugepages(ptr, bytes).
void* map_hugepages(std::uint64_t bytes, int node);
void unmap_hugepages(void* ptr, std::uint64_t bytes) noexcept;

// Kernel page size of the mapping that holds `addr`, from /proc/self/smaps;
// 0 when it cannot be read.
std::uint64_t kernel_page_bytes(const void* addr);
// The same from the text of a smaps file (pure, for tests).
std::uint64_t kernel_page_bytes_in(const std::string& smaps, std::uint64_t addr);

}  // namespace xb
