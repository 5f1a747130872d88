// NVML loaded at run time with dlopen, so the binary starts (and reports a
// clear error) on machines without the NVIDIA driver. Only the queries the
// topology needs are exposed, already translated into plain values.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace xb {

struct NvmlLinkInfo {
  int pcie_gen_current = -1, pcie_gen_max = -1;
  int pcie_width_current = -1, pcie_width_max = -1;
  int nvlink_active = 0;           // active NVLink links on this GPU
  double nvlink_gbps_per_link = 0; // per direction, from NVML's link speed
  int nvlink_version = 0;
  std::string nvlink_rate_source;  // where nvlink_gbps_per_link came from
  std::vector<std::string> nvlink_remote_bus_ids;  // one per active link
  std::vector<bool> nvlink_remote_is_switch;
  unsigned max_mem_clock_mhz = 0;
  unsigned memory_bus_width_bits = 0;  // nvmlDeviceGetMemoryBusWidth; 0: not reported
  std::string uuid;                    // "GPU-4276d9f0-..."; empty: not reported
};

class Nvml {
 public:
  // Loads the library named by $XFERBENCH_NVML_LIBRARY or libnvidia-ml.so.1
  // and calls nvmlInit. Throws Error(nvml) naming the library and the cause.
  static std::shared_ptr<Nvml> load();
  ~Nvml();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  std::string driver_version() const;
  // Queries the GPU with this PCI bus id ("0000:18:00.0"). Fields NVML cannot
  // answer stay at their defaults; never throws for a missing field.
  NvmlLinkInfo link_info(const std::string& pci_bus_id) const;
  // Whether NVML reports NVLink peer-to-peer between the two GPUs.
  bool nvlink_p2p(const std::string& bus_a, const std::string& bus_b) const;

  struct Api;  // resolved NVML entry points (defined in nvml.cpp)

 private:
  explicit Nvml(std::unique_ptr<Api> api);
  std::unique_ptr<Api> api_;
};

}  // namespace xb
