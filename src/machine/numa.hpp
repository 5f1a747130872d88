// Host NUMA topology and placement through libnuma.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace xb {

struct NumaNode {
  int id = 0;
  std::string cpus;                // "0-15,32-47"
  std::uint64_t memory_bytes = 0;  // total, as the kernel reports it
  std::uint64_t free_bytes = 0;
  // Empty: ordinary host memory. On NVLink-C2C machines (classify_numa_nodes):
  // "grace_lpddr5x" for the CPU's memory, "gpu_memory" for a GPU's memory
  // that the kernel exposes as a node of its own.
  std::string kind;
};

std::vector<NumaNode> numa_nodes();
// Physical memory of the host (sysconf), 0 when unknown.
std::uint64_t host_memory_bytes() noexcept;
// When the nodes hold less than half of the host's memory as the kernel
// reports them (seen in virtual machines), a one-line note saying so; empty
// otherwise or when either figure is unknown.
std::string numa_memory_note(const std::vector<NumaNode>& nodes, std::uint64_t host_bytes);

// Runs the calling thread on the CPUs of `node` (no-op when node < 0 or
// NUMA is unavailable). Returns false if the kernel refused.
bool bind_thread_to_node(int node) noexcept;
// Undoes bind_thread_to_node: the thread may run on every CPU again.
void unbind_thread() noexcept;

// NUMA node of a PCI device from sysfs ("0000:18:00.0"); -1 if unknown.
int pci_numa_node(const std::string& pci_bus_id);

}  // namespace xb
