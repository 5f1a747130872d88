// What the machine is: GPUs, the links between them and to the host, NUMA
// nodes, and the theoretical peak of every link with the formula it came
// from. Built once per run by discover_system().
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/model.hpp"
#include "machine/gpu_models.hpp"
#include "machine/numa.hpp"

namespace xb {

// A theoretical peak per direction, with the inputs that produced it.
struct Peak {
  double gbps = 0.0;     // 1e9 bytes/s, one direction
  std::string formula;   // "32 GT/s x 16 lanes x 128/130 / 8"
  std::string source;    // where the inputs came from ("NVML", "CUDA attributes")
  bool known() const noexcept { return gbps > 0.0; }
};

struct GpuInfo {
  int index = 0;
  std::string name;
  std::string pci_bus_id;  // "0000:18:00.0"
  std::string uuid;        // "GPU-1a2b3c4d-...", as nvidia-smi prints it
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  std::uint64_t memory_bytes = 0;
  int numa_node = -1;  // -1: unknown (treated as node 0 when placing memory)
  int pcie_gen_current = -1, pcie_gen_max = -1;
  int pcie_width_current = -1, pcie_width_max = -1;
  int nvlink_count = 0;
  double nvlink_gbps_per_link = 0.0;
  std::string nvlink_rate_source;
  std::vector<std::string> nvlink_remote_bus_ids;  // as NVML reports them, one per active link
  bool managed_memory = false, unified_addressing = false, can_map_host_memory = false;
  int copy_engines = 0;  // cudaDevAttrAsyncEngineCount
  int shared_memory_per_sm_kib = 0;  // cudaDevAttrMaxSharedMemoryPerMultiprocessor / 1024
  int memory_bus_width_bits = 0;
  int memory_clock_khz = 0;
  // The host link: PCIe, or NVLink-C2C to a Grace CPU. C2C is detected from
  // NVML (nvmlDeviceGetC2cModeInfoV, field C2C_LINK_COUNT), else from the
  // CUDA attributes HostNativeAtomicSupported and
  // PageableMemoryAccessUsesHostPageTables (both 1: a coherent CPU link),
  // else from the GPU model (gpu_models.hpp); host_link_evidence says which.
  HostLinkKind host_link_kind = HostLinkKind::pcie;
  std::string host_link_evidence;  // empty for PCIe
  int c2c_links = 0, c2c_links_active = 0;  // NVML C2C_LINK_COUNT / C2C_LINK_GET_STATUS; 0: not reported
  // The CPU reads and writes this GPU's memory in place
  // (cudaDevAttrDirectManagedMemAccessFromHost), as on NVLink-C2C.
  bool memory_visible_to_cpu = false;
  int memory_numa_node = -1;  // cudaDevAttrNumaId: the NUMA node of the GPU's memory; -1: none
  Peak host_link;  // host <-> this GPU, per direction (PCIe or NVLink-C2C)
  // Device memory (HBM): memory clock x 2 (double data rate) x bus width /
  // 8, from NVML's maximum memory clock and bus width when it reports them,
  // else from the CUDA attributes. Reads and writes together.
  Peak memory;
};

enum class LinkKind { self, nvlink, pcie, none };
const char* to_string(LinkKind kind) noexcept;

struct PeerLink {
  LinkKind kind = LinkKind::none;
  int nvlinks = 0;
  bool peer_access = false;
  Peak peak;  // per direction
};

struct System {
  std::string hostname;
  std::string driver_version = "unknown";
  int cuda_driver_version = 0;   // e.g. 13000
  int cuda_runtime_version = 0;
  bool nvml_available = false;
  std::string nvml_error;        // why NVML is unavailable, if it is
  std::vector<GpuInfo> gpus;
  std::vector<std::vector<PeerLink>> links;  // [from][to]
  std::vector<NumaNode> numa;
  std::uint64_t host_memory_bytes = 0;  // physical memory of the host, 0 when unknown

  int gpu_count() const noexcept { return static_cast<int>(gpus.size()); }
  const PeerLink& link(int from, int to) const { return links.at(from).at(to); }
  // Host NUMA node that serves `gpu` (0 when unknown).
  int host_node_of(int gpu) const;
};

// Number of CUDA GPUs; throws Error(no_device) when there is none or the
// driver is missing, naming the CUDA error.
int cuda_device_count();

// Queries CUDA, NVML (if loadable) and libnuma. With require_nvml, an
// unavailable NVML throws Error(nvml); otherwise it is recorded in
// nvml_error and the NVML-derived fields stay unknown.
System discover_system(bool require_nvml);

// Peak of a PCIe link per direction; unknown for generation < 1.
Peak pcie_peak(int generation, int width);
// Peak of an NVLink-C2C link per direction: the model's total over both
// directions / 2, with the model's public source; unknown for 0.
Peak c2c_peak(double total_gbps, const std::string& source);

// The host link from what was detected: NVML's C2C mode (empty: not
// reported), the two CUDA coherence attributes, then the GPU model; a C2C
// model whose NVML reports C2C off stays C2C (lint flags it). Sets
// host_link_kind, host_link_evidence and, for C2C, host_link's peak.
void classify_host_link(GpuInfo& g, std::optional<bool> nvml_c2c, bool coherent_attributes);
// NUMA node kinds of a machine whose GPUs attach over NVLink-C2C: a node
// that holds a GPU's memory is "gpu_memory", the others "grace_lpddr5x"
// (Grace's memory). Unchanged without a C2C GPU.
void classify_numa_nodes(System& sys);

// Link names used in every report: "PCIe Gen5 x16", "NVLink-C2C",
// "NVLink x18", "PCIe peer", "device memory", "no peer link".
std::string host_link_label(const GpuInfo& g);
std::string peer_link_label(const PeerLink& l);

// Theoretical peak and link name of the path a transfer takes: the pair's
// link between two GPUs (device memory within one), otherwise the host link
// of the GPU on the device side (or of the executing GPU).
Peak transfer_peak(const System& sys, const Transfer& t, std::string* link = nullptr);

// Enables peer access between two GPUs in both directions (idempotent).
void enable_peer_access(int a, int b);

}  // namespace xb
