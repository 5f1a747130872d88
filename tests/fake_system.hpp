// A System built by hand, so case planning and reporting are tested
// without a GPU: n H200-like GPUs on PCIe Gen5 x16, fully joined by NVLink.
#pragma once

#include <fmt/format.h>

#include <utility>
#include <vector>

#include "records/result.hpp"
#include "base/stats.hpp"
#include "machine/topology.hpp"

inline xb::System fake_system(int n, bool peers = true) {
  xb::System sys;
  sys.hostname = "testhost";
  sys.driver_version = "580.00";
  sys.cuda_driver_version = 13000;
  sys.cuda_runtime_version = 13000;
  sys.nvml_available = true;
  for (int g = 0; g < n; ++g) {
    xb::GpuInfo gi;
    gi.index = g;
    gi.name = "Fake H200";
    gi.pci_bus_id = fmt::format("00000000:{:02x}:00.0", 0x18 + g);
    gi.sm_count = 132;
    gi.cc_major = 9;
    gi.shared_memory_per_sm_kib = 228;
    gi.numa_node = 0;
    gi.pcie_gen_max = 5;
    gi.pcie_width_max = 16;
    gi.nvlink_count = peers ? 18 : 0;
    gi.nvlink_gbps_per_link = 26.5625;
    gi.host_link = xb::pcie_peak(5, 16);
    gi.memory.gbps = 4900;
    gi.memory.formula = "fake";
    sys.gpus.push_back(gi);
  }
  sys.links.assign(n, std::vector<xb::PeerLink>(n));
  for (int a = 0; a < n; ++a) {
    for (int b = 0; b < n; ++b) {
      xb::PeerLink& l = sys.links[a][b];
      if (a == b) {
        l.kind = xb::LinkKind::self;
        l.peer_access = true;
        l.peak.gbps = 2450;
        l.peak.formula = "fake / 2";
      } else if (peers) {
        l.kind = xb::LinkKind::nvlink;
        l.nvlinks = 18;
        l.peer_access = true;
        l.peak.gbps = 18 * 26.5625;
        l.peak.formula = "18 NVLinks x 26.5625 GB/s";
      }
    }
  }
  return sys;
}

// A measured host<->GPU cell in column `col` with the given samples (GB/s),
// its median as the value, on a PCIe Gen5 x16 link, verified.
inline xb::Cell pcie_cell(int col, std::vector<double> samples) {
  xb::Cell cell;
  cell.col = col;
  cell.samples = std::move(samples);
  cell.stats = xb::summarize(cell.samples);
  cell.value = cell.stats.median;
  cell.peak = xb::pcie_peak(5, 16);
  cell.efficiency = cell.value / cell.peak.gbps;
  cell.link = "PCIe Gen5 x16";
  cell.verification.status = xb::Verification::Status::passed;
  return cell;
}
