// 'xferbench list' and 'xferbench cases' as CSV. The listing is one table
// with a `record` column, because it holds three kinds of rows (GPUs, links
// with their theoretical peaks, NUMA nodes); columns that do not apply to a
// record are empty.
#pragma once

#include <string>

#include "machine/topology.hpp"

namespace xb::report {

// record=gpu: id, name, pci_bus_id, compute_capability, sm_count,
//   memory_bytes, numa_node, pcie_current, pcie_max, nvlinks, copy_engines.
// record=link: from, to, kind (pcie|memory|nvlink|none), link, nvlinks,
//   peer_access, peak_gbps, peak_formula, peak_source: host->gpuN over
//   PCIe, gpuN->gpuN device memory, gpuA->gpuB for every pair.
// record=numa: id, cpus, memory_bytes, free_bytes.
std::string system_csv(const System& sys);

// 'xferbench cases' as CSV: index, name, engine, description.
std::string cases_csv();

}  // namespace xb::report
