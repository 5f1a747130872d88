// NVML loaded at run time with dlopen, so the binary starts (and reports a
// clear error) on machines without the NVIDIA driver. Only the queries the
// topology needs are exposed, already translated into plain values.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
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
  std::optional<bool> c2c_enabled;     // nvmlDeviceGetC2cModeInfoV; empty: not reported
  int c2c_links = 0, c2c_links_active = 0;  // fields C2C_LINK_COUNT, C2C_LINK_GET_STATUS
};

// Why the clocks are below their maximum: NVML's clocks-event reason bits
// (nvmlClocksEventReason*, a stable part of its API; nvml.cpp checks them).
namespace clock_reason {
constexpr std::uint64_t gpu_idle = 0x1, app_clocks = 0x2, sw_power_cap = 0x4, hw_slowdown = 0x8, sync_boost = 0x10,
                        sw_thermal = 0x20, hw_thermal = 0x40, hw_power_brake = 0x80, display_clocks = 0x100;
// The reasons that slow a transfer down (power, thermal, hardware slowdown).
constexpr std::uint64_t slowdown = sw_power_cap | hw_slowdown | sw_thermal | hw_thermal | hw_power_brake;
}  // namespace clock_reason
// "hw_slowdown, sw_thermal" for a reason mask; "none" for 0.
std::string clock_reason_names(std::uint64_t mask);

// Health state of one GPU for node acceptance (xferbench check). Every
// field is empty when NVML cannot answer it (not supported, no permission),
// so a rule that needs it is reported as skipped, never as passed.
struct NvmlHealth {
  bool found = false;  // NVML knows a GPU with this bus id
  std::optional<int> pcie_gen_current, pcie_gen_max, pcie_width_current, pcie_width_max;
  std::optional<int> nvlinks_present;  // links the GPU has (NVML field NVLINK_LINK_COUNT or link states)
  std::optional<int> nvlinks_active;
  std::optional<bool> persistence_mode;
  std::optional<std::uint64_t> clock_reasons;  // clock_reason bits now
  std::optional<unsigned> sm_clock_mhz, mem_clock_mhz, sm_clock_max_mhz, mem_clock_max_mhz;
  std::optional<unsigned> app_sm_clock_mhz, app_mem_clock_mhz, default_app_sm_clock_mhz, default_app_mem_clock_mhz;
  std::optional<bool> ecc_enabled, ecc_pending_change;
  std::optional<std::uint64_t> ecc_uncorrected_volatile;
  std::optional<bool> retired_pages_pending;
  std::optional<bool> row_remap_pending, row_remap_failure;
  std::optional<bool> mig_enabled;
  // NVLink-C2C (Grace): nvmlDeviceGetC2cModeInfoV and the fields
  // C2C_LINK_COUNT / C2C_LINK_GET_STATUS.
  std::optional<bool> c2c_enabled;
  std::optional<int> c2c_links, c2c_links_active;
};

// One telemetry reading of a GPU (clocks, throttle state, PCIe link and
// NVML's accumulated power / thermal throttle counters, in ns).
struct NvmlSample {
  std::optional<unsigned> sm_clock_mhz, mem_clock_mhz;
  std::optional<std::uint64_t> clock_reasons;
  std::optional<int> pcie_gen_current, pcie_width_current;
  std::optional<std::uint64_t> power_throttle_ns, thermal_throttle_ns;
};

// What a soak reads of one GPU after every sample (soak::GpuTelemetry is
// filled from it). A field NVML cannot answer stays empty.
struct NvmlTelemetry {
  std::optional<double> temperature_c, power_w;
  std::optional<unsigned> sm_clock_mhz, mem_clock_mhz;
  std::optional<std::uint64_t> clock_reasons;
  std::optional<std::uint64_t> ecc_corrected, ecc_uncorrected;  // volatile totals
  std::optional<std::uint64_t> rows_remapped_correctable, rows_remapped_uncorrectable;
  std::optional<bool> row_remap_pending, row_remap_failure;
  std::optional<std::uint64_t> pcie_replays;
  // XID critical errors NVML delivered for this GPU since the previous
  // telemetry() of it; none where the GPU or driver has no events.
  std::vector<std::uint64_t> xids;
};

// What node acceptance asks NVML. The dlopen'd Nvml implements it; unit
// tests use a fake, so every health rule is tested without a GPU.
class NvmlQueries {
 public:
  virtual ~NvmlQueries() = default;
  virtual NvmlHealth health(const std::string& pci_bus_id) const = 0;
  virtual NvmlSample sample(const std::string& pci_bus_id) const = 0;
  // Confidential-computing mode of the system; empty when NVML cannot tell.
  virtual std::optional<bool> confidential_compute() const = 0;
  // Soak telemetry; the default reports nothing (every field empty).
  virtual NvmlTelemetry telemetry(const std::string& pci_bus_id) const {
    (void)pci_bus_id;
    return {};
  }
};

class Nvml final : public NvmlQueries {
 public:
  // Loads the library named by $XFERBENCH_NVML_LIBRARY or libnvidia-ml.so.1
  // and calls nvmlInit. Throws Error(nvml) naming the library and the cause.
  static std::shared_ptr<Nvml> load();
  ~Nvml() override;
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  std::string driver_version() const;
  // Queries the GPU with this PCI bus id ("0000:18:00.0"). Fields NVML cannot
  // answer stay at their defaults; never throws for a missing field.
  NvmlLinkInfo link_info(const std::string& pci_bus_id) const;
  // Whether NVML reports NVLink peer-to-peer between the two GPUs.
  bool nvlink_p2p(const std::string& bus_a, const std::string& bus_b) const;
  NvmlHealth health(const std::string& pci_bus_id) const override;
  NvmlSample sample(const std::string& pci_bus_id) const override;
  std::optional<bool> confidential_compute() const override;
  // The first call for a GPU registers it for XID events (when NVML has
  // events); every call polls them without waiting.
  NvmlTelemetry telemetry(const std::string& pci_bus_id) const override;
  // GPU memory process `pid` uses on this GPU (its context included), when
  // NVML lists the process there with a known amount.
  std::optional<std::uint64_t> process_memory(const std::string& pci_bus_id, unsigned pid) const;

  struct Api;     // resolved NVML entry points (defined in nvml.cpp)
  struct Events;  // the XID event set and the events read but not yet reported

 private:
  explicit Nvml(std::unique_ptr<Api> api);
  std::unique_ptr<Api> api_;
  std::unique_ptr<Events> events_;
};

}  // namespace xb
