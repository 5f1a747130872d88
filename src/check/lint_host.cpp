// Lint rules that read the kernel's view of the host: PCIe ACS on the
// bridges between GPUs that use PCIe P2P (config space from sysfs), the
// IOMMU mode, and where host buffers would land relative to each GPU.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "check/lint.hpp"

namespace xb::check {
namespace fs = std::filesystem;

namespace {

std::string read_line(const fs::path& p) {
  std::ifstream f(p);
  std::string line;
  std::getline(f, line);
  return line;
}

bool is_bus_id(const std::string& s) {
  // dddd:bb:dd.f
  return s.size() == 12 && s[4] == ':' && s[7] == ':' && s[10] == '.';
}

// Bridges from the root down to (not including) the device, as sysfs
// names, from the device's canonical path under devices/pciDDDD:BB/.
// Empty when the device sits directly on a root bus (as in most VMs).
std::vector<std::string> bridges_above(const SysPaths& paths, const std::string& bus_id) {
  std::error_code ec;
  const fs::path real = fs::canonical(fs::path(paths.sys) / "bus/pci/devices" / bus_id, ec);
  std::vector<std::string> out;
  if (ec) return out;
  for (const auto& part : real) {
    const std::string name = part.string();
    if (is_bus_id(name)) out.push_back(name);
  }
  if (!out.empty() && out.back() == bus_id) out.pop_back();
  return out;
}

// ACS control register of a device, from its extended capability list
// (ID 0x000D at 0x100 and on). Empty with `why` when config space cannot
// be read past the first 64 bytes (only root can) or has no ACS capability.
std::optional<std::uint16_t> acs_control(const SysPaths& paths, const std::string& bus_id, std::string& why) {
  std::ifstream f(fs::path(paths.sys) / "bus/pci/devices" / bus_id / "config", std::ios::binary);
  const std::vector<unsigned char> cfg((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (cfg.size() < 0x104) {
    why = fmt::format("{}: extended config space not readable ({} bytes; reading it needs root)", bus_id, cfg.size());
    return std::nullopt;
  }
  auto u16 = [&](std::size_t o) { return static_cast<std::uint16_t>(cfg[o] | (cfg[o + 1] << 8)); };
  std::size_t off = 0x100;
  for (int guard = 0; guard < 64 && off >= 0x100 && off + 8 <= cfg.size(); ++guard) {
    const std::uint32_t header = u16(off) | (static_cast<std::uint32_t>(u16(off + 2)) << 16);
    if (header == 0 || header == 0xffffffffu) break;
    if ((header & 0xffff) == 0x000d) return u16(off + 6);
    off = (header >> 20) & 0xffc;
  }
  return std::uint16_t{0};  // no ACS capability: nothing redirects P2P here
}

// ACS control bits that send peer-to-peer traffic up to the root complex.
std::string redirect_bits(std::uint16_t ctrl) {
  std::vector<std::string> on;
  if (ctrl & 0x04) on.push_back("P2P request redirect");
  if (ctrl & 0x08) on.push_back("P2P completion redirect");
  if (ctrl & 0x20) on.push_back("P2P egress control");
  return fmt::format("{}", fmt::join(on, ", "));
}

std::vector<std::pair<int, int>> pcie_p2p_pairs(const System& sys) {
  std::vector<std::pair<int, int>> pairs;
  for (int a = 0; a < sys.gpu_count(); ++a)
    for (int b = a + 1; b < sys.gpu_count(); ++b)
      if (sys.link(a, b).kind == LinkKind::pcie || sys.link(b, a).kind == LinkKind::pcie) pairs.emplace_back(a, b);
  return pairs;
}

// Bridges strictly below the lowest common bridge of two devices: their
// downstream ports, where ACS redirect sends P2P up instead of across.
std::vector<std::string> bridges_between(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::size_t common = 0;
  while (common < a.size() && common < b.size() && a[common] == b[common]) ++common;
  if (common == 0) return {};  // different root ports: P2P crosses the root complex anyway
  std::vector<std::string> out(a.begin() + static_cast<long>(common), a.end());
  out.insert(out.end(), b.begin() + static_cast<long>(common), b.end());
  return out;
}

// "0-3,8" -> {0,1,2,3,8}; empty on anything unexpected.
std::set<int> parse_list(const std::string& text) {
  std::set<int> out;
  std::istringstream in(text);
  for (std::string part; std::getline(in, part, ',');) {
    const auto dash = part.find('-');
    try {
      const int lo = std::stoi(part.substr(0, dash));
      const int hi = dash == std::string::npos ? lo : std::stoi(part.substr(dash + 1));
      for (int i = lo; i <= hi && i - lo < 4096; ++i) out.insert(i);
    } catch (const std::exception&) {
      return {};
    }
  }
  return out;
}

std::string mems_allowed(const SysPaths& paths) {
  std::ifstream f(fs::path(paths.proc) / "self/status");
  for (std::string line; std::getline(f, line);)
    if (line.rfind("Mems_allowed_list:", 0) == 0) return line.substr(line.find_first_not_of(" \t", 18));
  return {};
}

std::string distance_of(const SysPaths& paths, int from, int to) {
  std::istringstream row(read_line(fs::path(paths.sys) / fmt::format("devices/system/node/node{}/distance", from)));
  int d = 0;
  for (int i = 0; row >> d; ++i)
    if (i == to) return std::to_string(d);
  return "unknown";
}

}  // namespace

std::string sysfs_bus_id(const std::string& pci_bus_id) {
  std::string id = pci_bus_id;
  std::transform(id.begin(), id.end(), id.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  // CUDA reports an 8-digit domain ("00000000:18:00.0"); sysfs uses 4.
  if (id.size() > 12 && id.find(':') == 8) id = id.substr(4);
  return id;
}

RuleOutcome lint_pcie_acs(const LintInput& in, std::vector<Finding>& out) {
  RuleOutcome o{"pcie_acs", "no ACS redirect on PCIe bridges between GPUs that use PCIe P2P", RuleStatus::passed, ""};
  const auto pairs = pcie_p2p_pairs(*in.sys);
  if (pairs.empty()) {
    o.status = RuleStatus::not_applicable;
    o.note = "no GPU pair uses PCIe P2P";
    return o;
  }
  std::set<std::string> reported;
  std::vector<std::string> unreadable;
  for (const auto& [a, b] : pairs) {
    const auto bridges = bridges_between(bridges_above(in.paths, sysfs_bus_id(in.sys->gpus[a].pci_bus_id)),
                                         bridges_above(in.paths, sysfs_bus_id(in.sys->gpus[b].pci_bus_id)));
    for (const auto& bridge : bridges) {
      std::string why;
      const auto ctrl = acs_control(in.paths, bridge, why);
      if (!ctrl) unreadable.push_back(why);
      if (!ctrl || !(*ctrl & 0x2c) || !reported.insert(bridge).second) continue;
      out.push_back(Finding{"pcie_acs", Severity::error, fmt::format("gpu{}-gpu{}", a, b),
                            fmt::format("ACS on bridge {} between gpu{} and gpu{}: control 0x{:04x} ({})", bridge, a, b,
                                        *ctrl, redirect_bits(*ctrl)),
                            fmt::format("disable it ('setpci -s {} ECAP_ACS+6.w=0', or in the BIOS) unless the IOMMU "
                                        "isolation it gives is needed",
                                        bridge)});
    }
  }
  if (!reported.empty()) o.status = RuleStatus::findings;
  else if (!unreadable.empty()) {
    o.status = RuleStatus::skipped;
    o.note = unreadable.front();
  }
  return o;
}

RuleOutcome lint_iommu(const LintInput& in, std::vector<Finding>& out) {
  RuleOutcome o{"iommu", "IOMMU off or in passthrough for the GPUs", RuleStatus::passed, ""};
  const std::string cmdline = read_line(fs::path(in.paths.proc) / "cmdline");
  std::vector<std::string> iommu_args;
  std::istringstream words(cmdline);
  for (std::string w; words >> w;)
    if (w.find("iommu") != std::string::npos) iommu_args.push_back(w);
  const std::string args = iommu_args.empty() ? "no iommu option on the kernel command line"
                                              : fmt::format("kernel command line: {}", fmt::join(iommu_args, " "));
  const auto pairs = pcie_p2p_pairs(*in.sys);
  bool translated_any = false;
  for (const auto& g : in.sys->gpus) {
    const fs::path group = fs::path(in.paths.sys) / "bus/pci/devices" / sysfs_bus_id(g.pci_bus_id) / "iommu_group";
    const std::string type = read_line(group / "type");
    if (type != "DMA" && type != "DMA-FQ") continue;  // absent (no IOMMU) or identity (passthrough)
    translated_any = true;
    const bool p2p = std::any_of(pairs.begin(), pairs.end(), [&](auto p) { return p.first == g.index || p.second == g.index; });
    out.push_back(Finding{"iommu", p2p ? Severity::error : Severity::warn, fmt::format("gpu{}", g.index),
                          fmt::format("IOMMU translates the GPU's DMA (group type {}; {}){}", type, args,
                                      p2p ? "; its PCIe P2P traffic is translated too" : ""),
                          "boot with iommu=pt (intel_iommu=on iommu=pt or amd_iommu=on iommu=pt) for GPU nodes",
                          g.index});
  }
  if (translated_any) o.status = RuleStatus::findings;
  else o.note = args;
  return o;
}

RuleOutcome lint_numa_placement(const LintInput& in, std::vector<Finding>& out) {
  RuleOutcome o{"numa_placement", "host buffers land on each GPU's own NUMA node", RuleStatus::passed, ""};
  const System& sys = *in.sys;
  if (sys.numa.size() < 2) {
    o.status = RuleStatus::not_applicable;
    o.note = fmt::format("{} NUMA node", sys.numa.size());
    return o;
  }
  const std::string allowed_text = mems_allowed(in.paths);
  const std::set<int> allowed = parse_list(allowed_text);
  const char* fix_bind = "run without a NUMA memory binding that excludes the GPU's node (numactl/cpuset), or "
                         "fix the firmware's PCI-to-node table";
  for (const auto& g : sys.gpus) {
    const std::string who = fmt::format("gpu{}", g.index);
    if (g.numa_node < 0) {
      out.push_back(Finding{"numa_placement", Severity::warn, who,
                            "the GPU's NUMA node is unknown (sysfs numa_node -1): host buffers go to node 0, which "
                            "may be remote", "enable NUMA/ACPI SRAT reporting in the BIOS", g.index});
      continue;
    }
    const auto node = std::find_if(sys.numa.begin(), sys.numa.end(), [&](const NumaNode& n) { return n.id == g.numa_node; });
    if (node != sys.numa.end() && node->memory_bytes == 0) {
      out.push_back(Finding{"numa_placement", Severity::warn, who,
                            fmt::format("the GPU's node {} has no memory: host buffers land on another node (distance "
                                        "from node {} to node 0: {})", g.numa_node, g.numa_node,
                                        distance_of(in.paths, g.numa_node, 0)), fix_bind, g.index});
    } else if (!allowed.empty() && !allowed.count(g.numa_node)) {
      const int first = *allowed.begin();
      out.push_back(Finding{"numa_placement", Severity::warn, who,
                            fmt::format("this process may not allocate on the GPU's node {} (Mems_allowed_list {}): "
                                        "host buffers land on node {} at distance {}", g.numa_node, allowed_text,
                                        first, distance_of(in.paths, g.numa_node, first)), fix_bind, g.index});
    }
  }
  const bool any = std::any_of(out.begin(), out.end(), [](const Finding& f) { return f.rule == "numa_placement"; });
  if (any) o.status = RuleStatus::findings;
  return o;
}

}  // namespace xb::check
