#include "records/system_json.hpp"

#include "records/document.hpp"

namespace xb::records {
namespace {

using json = nlohmann::json;

constexpr auto pcie_fields = [](auto& io, auto& g) {
  io("generation_current", g.pcie_gen_current);
  io("generation_max", g.pcie_gen_max);
  io("width_current", g.pcie_width_current);
  io("width_max", g.pcie_width_max);
};

constexpr auto nvlink_fields = [](auto& io, auto& g) {
  io("active_links", g.nvlink_count);
  io("gbps_per_link", g.nvlink_gbps_per_link);
  io("rate_source", g.nvlink_rate_source);
  io("remote_bus_ids", g.nvlink_remote_bus_ids);
};

// `complete`: what the planner needs is required (a topology file).
template <class Io, class G>
void gpu_fields(Io& io, G& g, bool complete) {
  io.need("index", g.index);
  io("name", g.name);
  io("pci_bus_id", g.pci_bus_id);
  io("uuid", g.uuid);
  std::string cc = std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor);
  const auto field = [&](const char* key, auto& v) { complete ? io.need(key, v) : io(key, v); };
  const auto object = [&](const char* key, auto f) { complete ? io.need_object(key, g, f) : io.object(key, g, f); };
  field("compute_capability", cc);
  field("sm_count", g.sm_count);
  object("pcie", pcie_fields);
  object("nvlink", nvlink_fields);
  if constexpr (Io::reading)
    io.check(std::sscanf(cc.c_str(), "%d.%d", &g.cc_major, &g.cc_minor) == 2, "compute_capability",
             "'" + cc + "' is not MAJOR.MINOR");
  io("memory_bytes", g.memory_bytes);
  io("numa_node", g.numa_node);
  io("managed_memory", g.managed_memory);
  io("unified_addressing", g.unified_addressing);
  io("can_map_host_memory", g.can_map_host_memory);
  io("copy_engines", g.copy_engines);
  io("shared_memory_per_sm_kib", g.shared_memory_per_sm_kib);
  io("memory_bus_width_bits", g.memory_bus_width_bits);
  io("memory_clock_khz", g.memory_clock_khz);
  // Written for NVLink-C2C only: a PCIe machine's record stays as it was.
  std::string host = to_string(g.host_link_kind);
  const bool c2c = g.host_link_kind == HostLinkKind::c2c;
  io.when(c2c, "host_link", host);
  io.when(c2c, "host_link_evidence", g.host_link_evidence);
  io.when(g.c2c_links > 0, "c2c_links", g.c2c_links);
  io.when(g.c2c_links > 0, "c2c_links_active", g.c2c_links_active);
  io.when(g.memory_visible_to_cpu, "memory_visible_to_cpu", g.memory_visible_to_cpu);
  io.when(g.memory_numa_node >= 0, "memory_numa_node", g.memory_numa_node);
  if constexpr (Io::reading) {
    io.check(host == "pcie" || host == "nvlink_c2c", "host_link", "'" + host + "' is not pcie or nvlink_c2c");
    g.host_link_kind = host == "nvlink_c2c" ? HostLinkKind::c2c : HostLinkKind::pcie;
  }
  io("peak_host_link", g.host_link);
  io("peak_device_memory", g.memory);
}

constexpr auto system_fields = [](auto& io, auto& sys) {
  io("hostname", sys.hostname);
  io("driver_version", sys.driver_version);
  io("cuda_driver_version", sys.cuda_driver_version);
  io("cuda_runtime_version", sys.cuda_runtime_version);
  io("nvml_available", sys.nvml_available);
  io("nvml_error", sys.nvml_error);
  io.list("numa_nodes", sys.numa, [](auto& n, auto& x) {
    n.need("id", x.id);
    n("cpus", x.cpus);
    n("memory_bytes", x.memory_bytes);
    n("free_bytes", x.free_bytes);
    n.when(!x.kind.empty(), "kind", x.kind);
  });
  io("host_memory_bytes", sys.host_memory_bytes);
};

void decode_links(const Fields& env, System& sys, bool complete) {
  const int n = sys.gpu_count();
  sys.links.assign(n, std::vector<PeerLink>(n));
  if (!complete && !env.has("gpu_links")) return;
  std::vector<std::vector<bool>> seen(n, std::vector<bool>(n, false));
  for (const Fields& l : env.items("gpu_links")) {
    const int a = l.get<int>("from"), b = l.get<int>("to");
    if (a < 0 || b < 0 || a >= n || b >= n) {
      if (!complete) continue;  // a result trimmed by hand: compare reads its cases only
      env.bad("gpu_links", fmt::format("entry {} -> {} names a GPU that is not listed", a, b));
    }
    PeerLink& p = sys.links[a][b];
    if (!l.has("kind")) l.bad("kind", "missing");
    p.kind = l.get("kind", {LinkKind::self, LinkKind::nvlink, LinkKind::pcie, LinkKind::none}, LinkKind::none);
    p.nvlinks = l.get("nvlinks", 0);
    p.peer_access = l.get<bool>("peer_access");
    p.peak = l.get("peak", Peak{});
    seen[a][b] = true;
  }
  for (int a = 0; a < n && complete; ++a)
    for (int b = 0; b < n; ++b)
      if (!seen[a][b]) env.bad("gpu_links", fmt::format("no entry for gpu{} -> gpu{}", a, b));
}

}  // namespace

json system_json(const System& sys) {
  json j = Writer::of(sys, system_fields);
  j["gpus"] = json::array();
  for (const GpuInfo& g : sys.gpus)
    j["gpus"].push_back(Writer::of(g, [](auto& io, auto& x) { gpu_fields(io, x, true); }));
  json& links = j["gpu_links"] = json::array();
  for (int a = 0; a < sys.gpu_count(); ++a) {
    for (int b = 0; b < sys.gpu_count(); ++b) {
      const PeerLink& l = sys.link(a, b);
      links.push_back({{"from", a}, {"to", b}, {"kind", to_string(l.kind)}, {"nvlinks", l.nvlinks},
                       {"peer_access", l.peer_access}, {"peak", l.peak}});
    }
  }
  return j;
}

System decode_system(const json& env_json, const std::string& path, bool complete) {
  const Fields env(env_json, path);
  System sys;
  Reader::into(env, sys, system_fields);
  for (const Fields& g : env.items("gpus")) {
    Reader::into(g, sys.gpus.emplace_back(), [complete](auto& io, auto& x) { gpu_fields(io, x, complete); });
    if (sys.gpus.back().index != sys.gpu_count() - 1) g.bad("index", "differs from the GPU's place in the list");
  }
  decode_links(env, sys, complete);
  return sys;
}

std::string GpuIdentity::text() const {
  return fmt::format("gpu{} {}{} {}", index, name, uuid.empty() ? "" : " " + uuid, bus_id);
}

RunIdentity decode_identity(const json& doc) {
  const Fields d(doc, "");
  const Fields env = d.object("environment"), tool = d.object("tool");
  RunIdentity id;
  id.hostname = env.get<std::string>("hostname");
  for (const Fields& g : env.items("gpus")) {
    GpuInfo info;
    Reader::into(g, info, [](auto& io, auto& x) { gpu_fields(io, x, false); });
    id.gpus.push_back({info.index, info.name, info.uuid, info.pci_bus_id});
  }
  id.version = tool.get<std::string>("version");
  id.git = tool.get<std::string>("git", "");
  id.args = d.get<std::vector<std::string>>("command_line");
  return id;
}

}  // namespace xb::records
