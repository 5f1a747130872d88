// Telemetry around every cell of a check: NVML clocks, throttle reasons,
// PCIe link state and the accumulated power / thermal throttle counters of
// every GPU, read just before and just after the cell (outside the timed
// region). A cell is throttled when a GPU it uses reports a slowdown reason
// after it, or a throttle counter grew while it ran.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cases/cases.hpp"
#include "machine/nvml.hpp"
#include "machine/topology.hpp"

namespace xb::check {

struct GpuWindow {
  int gpu = 0;
  NvmlSample before, after;
};

struct CellWindow {
  std::string case_name;
  int row = 0, col = 0;          // the cell's position in its case's matrices
  std::vector<int> gpus_used;
  std::vector<GpuWindow> gpus;   // every GPU of the node
  bool throttled = false;
  std::uint64_t reasons = 0;     // slowdown reasons seen after the cell on the GPUs used
  std::uint64_t power_throttle_ns = 0, thermal_throttle_ns = 0;  // growth during the cell
};

// Whether the window shows throttling on the GPUs it used; fills reasons
// and the counter growth. Pure, so it is unit-tested with fake samples.
void assess(CellWindow& w);

// Per GPU, the highest PCIe generation read right after a host-link cell
// on that GPU (-1: none), for the PCIe lint rule's recheck under load.
std::vector<int> pcie_gen_under_load(const std::vector<CellWindow>& windows, int gpu_count);

class TelemetryRecorder {
 public:
  // nvml may be null: no windows are recorded.
  TelemetryRecorder(const NvmlQueries* nvml, const System& sys) : nvml_(nvml), sys_(sys) {}
  // A CellHook for RunRequest::on_cell.
  void on_cell(const CaseDef& def, int row, int col, bool begin);
  const std::vector<CellWindow>& windows() const noexcept { return windows_; }

 private:
  std::vector<GpuWindow> read_all(bool before) const;
  const NvmlQueries* nvml_;
  const System& sys_;
  std::vector<CellWindow> windows_;
  bool open_ = false;
};

}  // namespace xb::check
