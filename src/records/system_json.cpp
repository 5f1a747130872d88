#include "records/system_json.hpp"

#include "records/document.hpp"

namespace xb::records {
namespace {

using json = nlohmann::json;

json gpu_json(const GpuInfo& g) {
  return {{"index", g.index},
          {"name", g.name},
          {"pci_bus_id", g.pci_bus_id},
          {"uuid", g.uuid},
          {"compute_capability", std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor)},
          {"sm_count", g.sm_count},
          {"memory_bytes", g.memory_bytes},
          {"numa_node", g.numa_node},
          {"pcie", {{"generation_current", g.pcie_gen_current}, {"generation_max", g.pcie_gen_max},
                    {"width_current", g.pcie_width_current}, {"width_max", g.pcie_width_max}}},
          {"nvlink", {{"active_links", g.nvlink_count}, {"gbps_per_link", g.nvlink_gbps_per_link},
                      {"rate_source", g.nvlink_rate_source}, {"remote_bus_ids", g.nvlink_remote_bus_ids}}},
          {"managed_memory", g.managed_memory},
          {"unified_addressing", g.unified_addressing},
          {"can_map_host_memory", g.can_map_host_memory},
          {"copy_engines", g.copy_engines},
          {"shared_memory_per_sm_kib", g.shared_memory_per_sm_kib},
          {"memory_bus_width_bits", g.memory_bus_width_bits},
          {"memory_clock_khz", g.memory_clock_khz},
          {"peak_host_link", peak_json(g.pcie)},
          {"peak_device_memory", peak_json(g.memory)}};
}

GpuInfo decode_gpu(const Fields& j, bool complete) {
  GpuInfo g;
  const GpuIdentity id = decode_gpu_identity(j);
  g.index = id.index;
  g.name = id.name;
  g.uuid = id.uuid;
  g.pci_bus_id = id.bus_id;
  const std::string cc =
      complete ? j.get<std::string>("compute_capability") : j.get<std::string>("compute_capability", "0.0");
  if (std::sscanf(cc.c_str(), "%d.%d", &g.cc_major, &g.cc_minor) != 2)
    j.bad("compute_capability", "'" + cc + "' is not MAJOR.MINOR");
  g.sm_count = complete ? j.get<int>("sm_count") : j.get("sm_count", 0);
  g.memory_bytes = j.get("memory_bytes", std::uint64_t{0});
  g.numa_node = j.get("numa_node", -1);
  if (complete || j.has("pcie")) {
    const Fields pcie = j.object("pcie");
    g.pcie_gen_current = pcie.get("generation_current", -1);
    g.pcie_gen_max = pcie.get("generation_max", -1);
    g.pcie_width_current = pcie.get("width_current", -1);
    g.pcie_width_max = pcie.get("width_max", -1);
  }
  if (complete || j.has("nvlink")) {
    const Fields nv = j.object("nvlink");
    g.nvlink_count = nv.get("active_links", 0);
    g.nvlink_gbps_per_link = nv.get("gbps_per_link", 0.0);
    g.nvlink_rate_source = nv.get<std::string>("rate_source", "");
    g.nvlink_remote_bus_ids = nv.get("remote_bus_ids", std::vector<std::string>{});
  }
  g.managed_memory = j.get("managed_memory", false);
  g.unified_addressing = j.get("unified_addressing", false);
  g.can_map_host_memory = j.get("can_map_host_memory", false);
  g.copy_engines = j.get("copy_engines", 0);
  g.shared_memory_per_sm_kib = j.get("shared_memory_per_sm_kib", 0);
  g.memory_bus_width_bits = j.get("memory_bus_width_bits", 0);
  g.memory_clock_khz = j.get("memory_clock_khz", 0);
  g.pcie = decode_peak(j, "peak_host_link");
  g.memory = decode_peak(j, "peak_device_memory");
  return g;
}

void decode_links(const Fields& env, System& sys, bool complete) {
  const int n = sys.gpu_count();
  sys.links.assign(n, std::vector<PeerLink>(n));
  if (!complete && !env.has("gpu_links")) return;
  std::vector<std::vector<bool>> seen(n, std::vector<bool>(n, false));
  for (const Fields& l : env.items("gpu_links")) {
    const int a = l.get<int>("from"), b = l.get<int>("to");
    if (a < 0 || b < 0 || a >= n || b >= n)
      env.bad("gpu_links", fmt::format("entry {} -> {} names a GPU that is not listed", a, b));
    PeerLink& p = sys.links[a][b];
    if (!l.has("kind")) l.bad("kind", "missing");
    p.kind = l.get("kind", {LinkKind::self, LinkKind::nvlink, LinkKind::pcie, LinkKind::none}, LinkKind::none);
    p.nvlinks = l.get("nvlinks", 0);
    p.peer_access = l.get<bool>("peer_access");
    p.peak = decode_peak(l, "peak");
    seen[a][b] = true;
  }
  for (int a = 0; a < n && complete; ++a)
    for (int b = 0; b < n; ++b)
      if (!seen[a][b]) env.bad("gpu_links", fmt::format("no entry for gpu{} -> gpu{}", a, b));
}

}  // namespace

json system_json(const System& sys) {
  json gpus = json::array(), numa = json::array(), links = json::array();
  for (const auto& g : sys.gpus) gpus.push_back(gpu_json(g));
  for (const auto& n : sys.numa)
    numa.push_back({{"id", n.id}, {"cpus", n.cpus}, {"memory_bytes", n.memory_bytes}, {"free_bytes", n.free_bytes}});
  for (int a = 0; a < sys.gpu_count(); ++a) {
    for (int b = 0; b < sys.gpu_count(); ++b) {
      const PeerLink& l = sys.link(a, b);
      links.push_back({{"from", a}, {"to", b}, {"kind", to_string(l.kind)}, {"nvlinks", l.nvlinks},
                       {"peer_access", l.peer_access}, {"peak", peak_json(l.peak)}});
    }
  }
  return {{"hostname", sys.hostname},
          {"driver_version", sys.driver_version},
          {"cuda_driver_version", sys.cuda_driver_version},
          {"cuda_runtime_version", sys.cuda_runtime_version},
          {"nvml_available", sys.nvml_available},
          {"nvml_error", sys.nvml_error},
          {"gpus", gpus},
          {"gpu_links", links},
          {"numa_nodes", numa},
          {"host_memory_bytes", sys.host_memory_bytes}};
}

System decode_system(const json& env_json, const std::string& path, bool complete) {
  const Fields env(env_json, path);
  System sys;
  sys.hostname = env.get<std::string>("hostname", "");
  sys.driver_version = env.get<std::string>("driver_version", "unknown");
  sys.cuda_driver_version = env.get("cuda_driver_version", 0);
  sys.cuda_runtime_version = env.get("cuda_runtime_version", 0);
  sys.nvml_available = env.get("nvml_available", false);
  sys.nvml_error = env.get<std::string>("nvml_error", "");
  for (const Fields& g : env.items("gpus")) {
    sys.gpus.push_back(decode_gpu(g, complete));
    if (sys.gpus.back().index != sys.gpu_count() - 1) g.bad("index", "differs from the GPU's place in the list");
  }
  decode_links(env, sys, complete);
  if (env.has("numa_nodes"))
    for (const Fields& n : env.items("numa_nodes"))
      sys.numa.push_back({n.get<int>("id"), n.get<std::string>("cpus", ""), n.get("memory_bytes", std::uint64_t{0}),
                          n.get("free_bytes", std::uint64_t{0})});
  sys.host_memory_bytes = env.get("host_memory_bytes", std::uint64_t{0});
  return sys;
}

}  // namespace xb::records
