#include "base/memory_types.hpp"

#include <algorithm>

namespace xb {

int memory_group(const Location& loc) noexcept {
  if (loc.kind == MemKind::device) return loc.device;
  if (loc.kind == MemKind::managed && loc.device >= 0) return loc.device;
  return kHostGroup;
}

std::uint64_t footprint_bytes(const Location& loc, std::uint64_t bytes) noexcept {
  const bool small_pages = memory_group(loc) == kHostGroup && loc.kind != MemKind::hugepages;
  const std::uint64_t unit = small_pages ? 4096 : 2ull << 20;
  return (bytes + unit - 1) / unit * unit;
}

std::uint64_t MemoryAmount::get(int group) const noexcept {
  if (group == kHostGroup) return host;
  return group >= 0 && static_cast<std::size_t>(group) < gpu.size() ? gpu[static_cast<std::size_t>(group)] : 0;
}

void MemoryAmount::add(int group, std::uint64_t bytes) {
  if (group == kHostGroup) {
    host += bytes;
    return;
  }
  if (group < 0) return;
  if (static_cast<std::size_t>(group) >= gpu.size()) gpu.resize(static_cast<std::size_t>(group) + 1, 0);
  gpu[static_cast<std::size_t>(group)] += bytes;
}

MemoryAmount max_of(const MemoryAmount& a, const MemoryAmount& b) {
  MemoryAmount out;
  out.gpu.resize(std::max(a.gpu.size(), b.gpu.size()), 0);
  for (std::size_t g = 0; g < out.gpu.size(); ++g)
    out.gpu[g] = std::max(a.get(static_cast<int>(g)), b.get(static_cast<int>(g)));
  out.host = std::max(a.host, b.host);
  out.host_locked = std::max(a.host_locked, b.host_locked);
  out.host_hugepages = std::max(a.host_hugepages, b.host_hugepages);
  return out;
}

}  // namespace xb
