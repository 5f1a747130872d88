#include "memory/memory_plan.hpp"

#include <sstream>

#include <fmt/format.h>

#include "machine/hugepages.hpp"
#include "base/units.hpp"

namespace xb {
namespace {

std::string up_to_mib(std::uint64_t bytes) { return bytes_label((bytes + (1ull << 20) - 1) >> 20 << 20); }
std::string down_to_mib(std::uint64_t bytes) { return bytes_label(bytes >> 20 << 20); }

}  // namespace

std::vector<BufferRequest> scenario_requests(const Scenario& sc, const LocationResolver& resolve) {
  std::vector<BufferRequest> out;
  for (const Transfer& t : sc.transfers) {
    const Location src = resolve ? resolve(t.src, t.exec_device) : t.src;
    const Location dst = resolve ? resolve(t.dst, t.exec_device) : t.dst;
    if (uses_source(t.engine)) out.push_back({src, t.bytes, true});
    if (uses_destination(t.engine)) out.push_back({dst, t.bytes, false});
  }
  return out;
}

std::optional<std::string> memory_shortfall(const MemoryAmount& need, const MemoryAvailable& avail) {
  for (int g = 0; g < static_cast<int>(std::max(need.gpu.size(), avail.free.gpu.size())); ++g) {
    if (need.get(g) > avail.free.get(g))
      return fmt::format("needs {} of gpu{} memory at once, {} free; lower -b or free memory on gpu{}",
                         up_to_mib(need.get(g)), g, down_to_mib(avail.free.get(g)), g);
  }
  if (need.host - need.host_hugepages > avail.free.host)
    return fmt::format("needs {} of host memory at once, {} available (MemAvailable); lower -b or free host memory",
                       up_to_mib(need.host - need.host_hugepages), down_to_mib(avail.free.host));
  const std::uint64_t pages = hugepages_for(need.host_hugepages);
  if (avail.hugepages_free >= 0 && pages > static_cast<std::uint64_t>(avail.hugepages_free))
    return "--host-mem hugepages: " + hugepage_shortage({avail.hugepages_total, avail.hugepages_free}, pages);
  if (need.host_locked > avail.locked_limit)
    return fmt::format("needs {} of page-locked host memory, above the locked-memory limit of {}; raise it "
                       "(ulimit -l) or lower -b",
                       up_to_mib(need.host_locked), down_to_mib(avail.locked_limit));
  return std::nullopt;
}

std::optional<std::uint64_t> parse_mem_available(const std::string& meminfo) {
  std::istringstream in(meminfo);
  std::string key, unit;
  std::uint64_t value = 0;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    if (!(ls >> key >> value)) continue;
    if (key != "MemAvailable:") continue;
    ls >> unit;
    return unit == "kB" ? value * 1024 : value;
  }
  return std::nullopt;
}

bool parse_cap_ipc_lock(const std::string& proc_status) {
  constexpr unsigned kCapIpcLock = 14;
  std::istringstream in(proc_status);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("CapEff:", 0) != 0) continue;
    try {
      return (std::stoull(line.substr(7), nullptr, 16) >> kCapIpcLock & 1) != 0;
    } catch (const std::exception&) {
      return false;
    }
  }
  return false;
}

}  // namespace xb
