#include "machine/numa.hpp"

#include <numa.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <fstream>

#include <fmt/format.h>

#include "base/units.hpp"

namespace xb {

namespace {

bool numa_available_here() noexcept { return numa_available() >= 0; }

}  // namespace

std::uint64_t host_memory_bytes() noexcept {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : 0;
}

std::string numa_memory_note(const std::vector<NumaNode>& nodes, std::uint64_t host_bytes) {
  std::uint64_t on_nodes = 0;
  for (const auto& n : nodes) on_nodes += n.memory_bytes;
  if (host_bytes == 0 || on_nodes == 0 || 2 * on_nodes >= host_bytes) return {};
  return fmt::format("the NUMA nodes hold {:.1f} GiB of the host's {:.1f} GiB as the kernel reports them "
                     "(seen in virtual machines)",
                     static_cast<double>(on_nodes) / (1ull << 30), static_cast<double>(host_bytes) / (1ull << 30));
}

std::vector<NumaNode> numa_nodes() {
  std::vector<NumaNode> nodes;
  if (!numa_available_here()) return nodes;
  struct bitmask* mask = numa_allocate_cpumask();
  for (int n = 0; n <= numa_max_node(); ++n) {
    if (!numa_bitmask_isbitset(numa_all_nodes_ptr, static_cast<unsigned>(n))) continue;
    NumaNode node;
    node.id = n;
    long long free_b = 0;
    const long long total = numa_node_size64(n, &free_b);
    node.memory_bytes = total > 0 ? static_cast<std::uint64_t>(total) : 0;
    node.free_bytes = free_b > 0 ? static_cast<std::uint64_t>(free_b) : 0;
    std::vector<int> cpus;
    if (numa_node_to_cpus(n, mask) == 0) {
      for (unsigned c = 0; c < mask->size; ++c) {
        if (numa_bitmask_isbitset(mask, c)) cpus.push_back(static_cast<int>(c));
      }
    }
    node.cpus = int_ranges(cpus);
    nodes.push_back(node);
  }
  numa_free_cpumask(mask);
  return nodes;
}

bool bind_thread_to_node(int node) noexcept {
  if (node < 0 || !numa_available_here()) return true;
  return numa_run_on_node(node) == 0;
}

void unbind_thread() noexcept {
  if (numa_available_here()) numa_run_on_node(-1);
}

int pci_numa_node(const std::string& pci_bus_id) {
  std::string id = pci_bus_id;
  std::transform(id.begin(), id.end(), id.begin(), [](unsigned char c) { return std::tolower(c); });
  // CUDA reports an 8-digit domain ("00000000:18:00.0"); sysfs uses 4.
  if (id.size() > 12 && id.find(':') == 8) id = id.substr(4);
  std::ifstream f("/sys/bus/pci/devices/" + id + "/numa_node");
  int node = -1;
  return f >> node ? node : -1;
}

}  // namespace xb
