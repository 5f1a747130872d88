#include "report/report.hpp"

#include <fmt/format.h>

#include "cases/cases.hpp"

namespace xb::report {
namespace {

constexpr const char* kHeader =
    "record,id,name,pci_bus_id,compute_capability,sm_count,memory_bytes,numa_node,pcie_current,pcie_max,copy_engines,"
    "free_bytes,cpus,from,to,kind,link,nvlinks,peer_access,peak_gbps,peak_formula,peak_source\n";

std::string peak_fields(const Peak& p) {
  if (!p.known()) return ",,";
  return fmt::format("{:.9g},{},{}", p.gbps, csv_escape(p.formula), csv_escape(p.source));
}

std::string link_row(const std::string& from, const std::string& to, const std::string& kind, const std::string& link,
                     int nvlinks, bool peer_access, const Peak& peak) {
  return fmt::format("link,,,,,,,,,,,,,{},{},{},{},{},{},{}\n", from, to, kind, csv_escape(link), nvlinks,
                     peer_access ? "true" : "false", peak_fields(peak));
}

std::string gpu_row(const GpuInfo& g) {
  return fmt::format("gpu,{},{},{},{}.{},{},{},{},Gen{} x{},Gen{} x{},{},,,,,,,{},,,,\n", g.index, csv_escape(g.name),
                     csv_escape(g.pci_bus_id), g.cc_major, g.cc_minor, g.sm_count, g.memory_bytes, g.numa_node,
                     g.pcie_gen_current, g.pcie_width_current, g.pcie_gen_max, g.pcie_width_max, g.copy_engines,
                     g.nvlink_count);
}

std::string pcie_name(const GpuInfo& g) {
  return g.pcie_gen_max < 1 ? "PCIe" : fmt::format("PCIe Gen{} x{}", g.pcie_gen_max, g.pcie_width_max);
}

}  // namespace

std::string system_csv(const System& sys) {
  std::string out = kHeader;
  for (const auto& g : sys.gpus) out += gpu_row(g);
  for (const auto& g : sys.gpus) {
    const std::string gpu = fmt::format("gpu{}", g.index);
    out += link_row("host", gpu, "pcie", pcie_name(g), 0, false, g.pcie);
    out += link_row(gpu, gpu, "memory", "device memory", 0, true, g.memory);
  }
  for (int a = 0; a < sys.gpu_count(); ++a) {
    for (int b = 0; b < sys.gpu_count(); ++b) {
      if (a == b) continue;
      const PeerLink& l = sys.link(a, b);
      const std::string name = l.kind == LinkKind::nvlink ? fmt::format("NVLink x{}", l.nvlinks)
                               : l.kind == LinkKind::pcie ? "PCIe peer" : "none";
      out += link_row(fmt::format("gpu{}", a), fmt::format("gpu{}", b), to_string(l.kind), name, l.nvlinks,
                      l.peer_access, l.peak);
    }
  }
  for (const auto& n : sys.numa)
    out += fmt::format("numa,{},,,,,{},,,,,{},{},,,,,,,,,\n", n.id, n.memory_bytes, n.free_bytes, csv_escape(n.cpus));
  return out;
}

std::string cases_csv() {
  std::string out = "index,name,engine,description,name_origin\n";
  for (const auto& d : case_catalogue())
    out += fmt::format("{},{},{},{},{}\n", d.index, csv_escape(d.name), to_string(d.engine), csv_escape(d.description),
                       csv_escape(d.origin));
  return out;
}

}  // namespace xb::report
