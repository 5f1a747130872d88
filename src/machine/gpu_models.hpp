// The NVIDIA data-centre GPU models xferbench knows from public
// specifications: how each attaches to the host (PCIe generation or
// NVLink-C2C), its NVLink generation and links, and whether peer access is
// expected. Every row carries the public document its facts come from.
// Discovery reads the hardware first (NVML, CUDA attributes); this table is
// the fallback when they cannot tell, and what lint compares them with.
#pragma once

#include <string>
#include <vector>

namespace xb {

// How a GPU attaches to the host CPU and its memory.
//   pcie: a PCIe link (every discrete card, HGX baseboards);
//   c2c:  NVLink-C2C to a Grace CPU (GH200, GB200, GB300), cache-coherent.
enum class HostLinkKind { pcie, c2c };
const char* to_string(HostLinkKind k) noexcept;

struct GpuModel {
  const char* key;          // "gh200": the kind's name in docs, fixtures and specs
  const char* match;        // a part of the CUDA device name that selects the row
  HostLinkKind host_link;
  int pcie_gen;             // the GPU's PCIe generation (x16); 0: none to the host
  double c2c_gbps_total;    // NVLink-C2C, both directions together, GB/s; 0: none
  int nvlink_version;       // 0: no NVLink
  int nvlinks;              // links per GPU
  double nvlink_gbps_per_link;  // one direction
  const char* nvlink_fabric;    // "NVSwitch", "bridge", "none"
  bool peer_access_expected;    // false: lint reports missing peer access as info
  const char* source;       // the public document(s) the row comes from
};

// Every known model, most specific first (GH200 before H200).
const std::vector<GpuModel>& gpu_models();
// The row whose `match` is in `cuda_name`; null for an unknown GPU.
const GpuModel* find_gpu_model(const std::string& cuda_name);

}  // namespace xb
