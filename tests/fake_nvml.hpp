// A fake NVML for the check lint and telemetry tests: answers are set per
// PCI bus id; a GPU that was never set is "not found", like NVML answers
// for a bus id it does not know.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "machine/nvml.hpp"

class FakeNvml final : public xb::NvmlQueries {
 public:
  std::map<std::string, xb::NvmlHealth> healths;
  std::map<std::string, xb::NvmlSample> samples;
  std::optional<bool> cc;

  xb::NvmlHealth health(const std::string& bus) const override {
    auto it = healths.find(bus);
    return it == healths.end() ? xb::NvmlHealth{} : it->second;
  }
  xb::NvmlSample sample(const std::string& bus) const override {
    auto it = samples.find(bus);
    return it == samples.end() ? xb::NvmlSample{} : it->second;
  }
  std::optional<bool> confidential_compute() const override { return cc; }
};

// A healthy H200 as NVML would describe it: Gen5 x16, 18 of 18 NVLinks,
// persistence on, no throttle reason, no memory error, MIG off.
inline xb::NvmlHealth healthy_h200() {
  xb::NvmlHealth h;
  h.found = true;
  h.pcie_gen_current = 5;
  h.pcie_gen_max = 5;
  h.pcie_width_current = 16;
  h.pcie_width_max = 16;
  h.nvlinks_present = 18;
  h.nvlinks_active = 18;
  h.persistence_mode = true;
  h.clock_reasons = xb::clock_reason::gpu_idle;
  h.sm_clock_mhz = 345;
  h.mem_clock_mhz = 3201;
  h.sm_clock_max_mhz = 1980;
  h.mem_clock_max_mhz = 3201;
  h.app_sm_clock_mhz = 1980;
  h.default_app_sm_clock_mhz = 1980;
  h.app_mem_clock_mhz = 3201;
  h.default_app_mem_clock_mhz = 3201;
  h.ecc_enabled = true;
  h.ecc_pending_change = false;
  h.ecc_uncorrected_volatile = 0;
  h.row_remap_pending = false;
  h.row_remap_failure = false;
  h.mig_enabled = false;
  return h;
}
