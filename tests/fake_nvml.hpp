// A fake NVML for the check lint and telemetry tests: answers are set per
// PCI bus id; a GPU that was never set is "not found", like NVML answers
// for a bus id it does not know.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

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

// A fake NVML for soaks, on a fake clock (`now` points at the test's fake
// seconds): every GPU answers healthy telemetry; a test plants a throttle
// reason over a span, an XID at a time (reported once, by the first
// telemetry() of that GPU at or after it, as NVML's event queue does) and
// an ECC count increase from a time on.
class FakeSoakNvml final : public xb::NvmlQueries {
 public:
  explicit FakeSoakNvml(const double* now) : now_(now) {}
  struct Throttle {
    std::string bus;
    double from_s, to_s;
    std::uint64_t reasons;
  };
  struct Xid {
    std::string bus;
    double at_s;
    std::uint64_t xid;
  };
  struct Ecc {
    std::string bus;
    double at_s;
    std::uint64_t corrected, uncorrected;
  };
  std::vector<Throttle> throttles;
  std::vector<Xid> xids;
  std::vector<Ecc> ecc;

  xb::NvmlHealth health(const std::string&) const override { return healthy_h200(); }
  xb::NvmlSample sample(const std::string&) const override { return {}; }
  std::optional<bool> confidential_compute() const override { return false; }
  xb::NvmlTelemetry telemetry(const std::string& bus) const override {
    xb::NvmlTelemetry t;
    t.temperature_c = 41;
    t.power_w = 130.5;
    t.sm_clock_mhz = 1980;
    t.mem_clock_mhz = 3201;
    t.clock_reasons = 0;
    t.ecc_corrected = t.ecc_uncorrected = 0;
    t.rows_remapped_correctable = t.rows_remapped_uncorrectable = 0;
    t.row_remap_pending = t.row_remap_failure = false;
    t.pcie_replays = 0;
    for (const Throttle& th : throttles)
      if (th.bus == bus && *now_ >= th.from_s && *now_ < th.to_s) {
        *t.clock_reasons |= th.reasons;
        t.sm_clock_mhz = 1400;
      }
    for (const Ecc& e : ecc)
      if (e.bus == bus && *now_ >= e.at_s) {
        *t.ecc_corrected += e.corrected;
        *t.ecc_uncorrected += e.uncorrected;
      }
    for (std::size_t i = 0; i < xids.size(); ++i) {
      if (xids[i].bus != bus || *now_ < xids[i].at_s || delivered_.count(i)) continue;
      delivered_[i] = true;
      t.xids.push_back(xids[i].xid);
    }
    return t;
  }

 private:
  const double* now_;
  mutable std::map<std::size_t, bool> delivered_;
};
