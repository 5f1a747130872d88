#include "machine/hugepages.hpp"

#include <numa.h>
#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace xb {
namespace {

#ifndef MAP_HUGE_2MB
// <linux/mman.h>: the page size (log2 21) in the bits above MAP_HUGE_SHIFT (26).
#define MAP_HUGE_2MB (21 << 26)
#endif

constexpr const char* kPoolDir = "/sys/kernel/mm/hugepages/hugepages-2048kB/";

long read_count(const std::string& path) {
  std::ifstream f(path);
  long v = -1;
  return f >> v ? v : -1;
}

}  // namespace

HugePagePool read_hugepage_pool() {
  HugePagePool p;
  p.total = read_count(std::string(kPoolDir) + "nr_hugepages");
  p.free = read_count(std::string(kPoolDir) + "free_hugepages");
  return p;
}

std::uint64_t hugepages_for(std::uint64_t bytes) noexcept { return (bytes + kHugePageBytes - 1) / kHugePageBytes; }

std::string hugepage_shortage(const HugePagePool& pool, std::uint64_t pages) {
  if (!pool.known())
    return fmt::format("needs {} free 2 MiB huge pages, and this kernel has no 2 MiB hugetlb pool ({} is missing)",
                       pages, kPoolDir);
  const long want = pool.total - pool.free + static_cast<long>(pages);
  const std::string fix = fmt::format("reserve them with 'sysctl vm.nr_hugepages={}' (as root; 2 MiB is the default "
                                      "huge page size on x86-64) or write {} to {}nr_hugepages", want, want, kPoolDir);
  if (pool.total == 0) return fmt::format("needs {} 2 MiB huge pages and none are reserved; {}", pages, fix);
  return fmt::format("needs {} free 2 MiB huge pages, the pool has {} free of {}; {}", pages, pool.free, pool.total, fix);
}

void* map_hugepages(std::uint64_t bytes, int node) {
  const std::uint64_t pages = hugepages_for(bytes);
  const std::uint64_t len = pages * kHugePageBytes;
  void* p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_HUGE_2MB, -1, 0);
  if (p == MAP_FAILED) {
    const int err = errno;
    if (err == ENOMEM || err == EINVAL) throw HugePagesUnavailable(hugepage_shortage(read_hugepage_pool(), pages));
    throw Error(ErrorKind::resources, fmt::format("mmap of {} bytes of 2 MiB huge pages failed: {}", len, std::strerror(err)));
  }
  // The mapping reserved its pages; faulting them in with the node
  // preferred (not bound: a bound fault on a node without free huge pages
  // would be SIGBUS) places them there when that node has some.
  const bool place = node >= 0 && numa_available() >= 0;
  if (place) numa_set_preferred(node);
  std::memset(p, 0, len);
  if (place) numa_set_localalloc();
  return p;
}

void unmap_hugepages(void* ptr, std::uint64_t bytes) noexcept {
  if (ptr) munmap(ptr, hugepages_for(bytes) * kHugePageBytes);
}

std::uint64_t kernel_page_bytes_in(const std::string& smaps, std::uint64_t addr) {
  std::istringstream in(smaps);
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    // A mapping header starts with "start-end " in hex; field lines start
    // with a capitalised name and a colon.
    unsigned long long lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-' && line.find(':') > line.find(' ')) {
      inside = addr >= lo && addr < hi;
      continue;
    }
    if (!inside || line.rfind("KernelPageSize:", 0) != 0) continue;
    std::istringstream field(line.substr(15));
    std::uint64_t kib = 0;
    if (field >> kib) return kib * 1024;
    return 0;
  }
  return 0;
}

std::uint64_t kernel_page_bytes(const void* addr) {
  std::ifstream f("/proc/self/smaps");
  if (!f) return 0;
  std::stringstream all;
  all << f.rdbuf();
  return kernel_page_bytes_in(all.str(), reinterpret_cast<std::uint64_t>(addr));
}

}  // namespace xb
