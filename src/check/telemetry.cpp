#include "check/telemetry.hpp"

#include <algorithm>

namespace xb::check {
namespace {

std::uint64_t growth(const std::optional<std::uint64_t>& a, const std::optional<std::uint64_t>& b) {
  return a && b && *b > *a ? *b - *a : 0;
}

}  // namespace

void assess(CellWindow& w) {
  w.throttled = false;
  w.reasons = 0;
  w.power_throttle_ns = w.thermal_throttle_ns = 0;
  for (const GpuWindow& g : w.gpus) {
    if (std::find(w.gpus_used.begin(), w.gpus_used.end(), g.gpu) == w.gpus_used.end()) continue;
    w.reasons |= g.after.clock_reasons.value_or(0) & clock_reason::slowdown;
    w.power_throttle_ns += growth(g.before.power_throttle_ns, g.after.power_throttle_ns);
    w.thermal_throttle_ns += growth(g.before.thermal_throttle_ns, g.after.thermal_throttle_ns);
  }
  w.throttled = w.reasons != 0 || w.power_throttle_ns > 0 || w.thermal_throttle_ns > 0;
}

std::vector<GpuWindow> TelemetryRecorder::read_all(bool before) const {
  std::vector<GpuWindow> out;
  for (const auto& g : sys_.gpus) {
    GpuWindow w;
    w.gpu = g.index;
    (before ? w.before : w.after) = nvml_->sample(g.pci_bus_id);
    out.push_back(w);
  }
  return out;
}

void TelemetryRecorder::on_cell(const CaseDef& def, int row, int col, bool begin) {
  if (!nvml_) return;
  if (begin) {
    CellWindow w;
    w.case_name = def.name;
    w.row = row;
    w.col = col;
    w.gpus_used = gpus_used(def, row, col, sys_.gpu_count());
    w.gpus = read_all(true);
    windows_.push_back(std::move(w));
    open_ = true;
    return;
  }
  if (!open_ || windows_.empty()) return;
  CellWindow& w = windows_.back();
  const std::vector<GpuWindow> after = read_all(false);
  for (std::size_t i = 0; i < after.size() && i < w.gpus.size(); ++i) w.gpus[i].after = after[i].after;
  assess(w);
  open_ = false;
}

std::vector<int> pcie_gen_under_load(const std::vector<CellWindow>& windows, int gpu_count) {
  std::vector<int> gen(static_cast<std::size_t>(gpu_count), -1);
  for (const CellWindow& w : windows) {
    const auto def = std::find_if(case_catalogue().begin(), case_catalogue().end(),
                                  [&](const CaseDef& d) { return d.name == w.case_name; });
    if (def == case_catalogue().end() || !is_host_copy(def->pattern)) continue;
    for (const GpuWindow& g : w.gpus) {
      if (std::find(w.gpus_used.begin(), w.gpus_used.end(), g.gpu) == w.gpus_used.end()) continue;
      const auto i = static_cast<std::size_t>(g.gpu);
      if (g.after.pcie_gen_current && i < gen.size()) gen[i] = std::max(gen[i], *g.after.pcie_gen_current);
    }
  }
  return gen;
}

}  // namespace xb::check
