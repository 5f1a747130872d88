#include "machine/topology_file.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/input_file.hpp"

namespace xb {
namespace {

using json = nlohmann::json;

LinkKind link_kind(const std::string& s) {
  if (s == "self") return LinkKind::self;
  if (s == "nvlink") return LinkKind::nvlink;
  if (s == "pcie") return LinkKind::pcie;
  if (s == "none") return LinkKind::none;
  throw std::runtime_error("unknown link kind '" + s + "'");
}

GpuInfo gpu_from(const json& j) {
  GpuInfo g;
  g.index = j.at("index").get<int>();
  g.name = j.value("name", "");
  g.pci_bus_id = j.value("pci_bus_id", "");
  const std::string cc = j.at("compute_capability").get<std::string>();
  if (std::sscanf(cc.c_str(), "%d.%d", &g.cc_major, &g.cc_minor) != 2)
    throw std::runtime_error("compute_capability '" + cc + "' is not MAJOR.MINOR");
  g.sm_count = j.at("sm_count").get<int>();
  g.memory_bytes = j.value("memory_bytes", std::uint64_t{0});
  g.numa_node = j.value("numa_node", -1);
  const json& pcie = j.at("pcie");
  g.pcie_gen_current = pcie.value("generation_current", -1);
  g.pcie_gen_max = pcie.value("generation_max", -1);
  g.pcie_width_current = pcie.value("width_current", -1);
  g.pcie_width_max = pcie.value("width_max", -1);
  const json& nv = j.at("nvlink");
  g.nvlink_count = nv.value("active_links", 0);
  g.nvlink_gbps_per_link = nv.value("gbps_per_link", 0.0);
  g.nvlink_rate_source = nv.value("rate_source", "");
  g.nvlink_remote_bus_ids = nv.value("remote_bus_ids", std::vector<std::string>{});
  g.managed_memory = j.value("managed_memory", false);
  g.unified_addressing = j.value("unified_addressing", false);
  g.can_map_host_memory = j.value("can_map_host_memory", false);
  g.copy_engines = j.value("copy_engines", 0);
  g.uuid = j.value("uuid", "");
  g.shared_memory_per_sm_kib = j.value("shared_memory_per_sm_kib", 0);
  g.memory_bus_width_bits = j.value("memory_bus_width_bits", 0);
  g.memory_clock_khz = j.value("memory_clock_khz", 0);
  g.pcie = peak_from_json(j.at("peak_host_link"));
  g.memory = peak_from_json(j.at("peak_device_memory"));
  return g;
}

void read_links(const json& links, System& sys) {
  const int n = sys.gpu_count();
  sys.links.assign(n, std::vector<PeerLink>(n));
  std::vector<std::vector<bool>> seen(n, std::vector<bool>(n, false));
  for (const json& l : links) {
    const int a = l.at("from").get<int>(), b = l.at("to").get<int>();
    if (a < 0 || b < 0 || a >= n || b >= n)
      throw std::runtime_error(fmt::format("gpu_links entry {} -> {} names a GPU that is not listed", a, b));
    PeerLink& p = sys.links[a][b];
    p.kind = link_kind(l.at("kind").get<std::string>());
    p.nvlinks = l.value("nvlinks", 0);
    p.peer_access = l.at("peer_access").get<bool>();
    p.peak = peak_from_json(l.at("peak"));
    seen[a][b] = true;
  }
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b)
      if (!seen[a][b])
        throw std::runtime_error(fmt::format("gpu_links has no entry for gpu{} -> gpu{}", a, b));
}

}  // namespace

Peak peak_from_json(const json& j) {
  Peak p;
  if (!j.is_object()) return p;
  p.gbps = j.value("gbps", 0.0);
  p.formula = j.value("formula", "");
  p.source = j.value("source", "");
  return p;
}

System environment_from_json(const json& doc) {
  const json& env = doc.contains("environment") ? doc.at("environment") : doc;
  System sys;
  sys.hostname = env.value("hostname", "");
  sys.driver_version = env.value("driver_version", "unknown");
  sys.cuda_driver_version = env.value("cuda_driver_version", 0);
  sys.cuda_runtime_version = env.value("cuda_runtime_version", 0);
  sys.nvml_available = env.value("nvml_available", false);
  sys.nvml_error = env.value("nvml_error", "");
  for (const json& g : env.at("gpus")) sys.gpus.push_back(gpu_from(g));
  for (int i = 0; i < sys.gpu_count(); ++i)
    if (sys.gpus[static_cast<std::size_t>(i)].index != i)
      throw std::runtime_error(fmt::format("gpus[{}] has index {}", i, sys.gpus[static_cast<std::size_t>(i)].index));
  read_links(env.at("gpu_links"), sys);
  for (const json& n : env.value("numa_nodes", json::array()))
    sys.numa.push_back({n.at("id").get<int>(), n.value("cpus", ""), n.value("memory_bytes", std::uint64_t{0}),
                        n.value("free_bytes", std::uint64_t{0})});
  sys.host_memory_bytes = env.value("host_memory_bytes", std::uint64_t{0});
  return sys;
}

System system_from_json(const json& doc, const std::string& name) {
  System sys;
  try {
    sys = environment_from_json(doc);
  } catch (const std::exception& e) {
    fail(ErrorKind::usage, fmt::format("topology file '{}' is not a recorded 'xferbench list --format json': {}", name,
                                       e.what()));
  }
  if (sys.gpus.empty()) fail(ErrorKind::usage, fmt::format("topology file '{}' lists no GPU", name));
  return sys;
}

System load_topology_file(const std::string& path) {
  return system_from_json(read_input_json(path, "--topology file"), path);
}

}  // namespace xb
