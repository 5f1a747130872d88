#include "machine/topology.hpp"

#include <unistd.h>

#include <map>

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "machine/cuda_check.hpp"
#include "base/error.hpp"
#include "base/names.hpp"
#include "machine/nvml.hpp"

namespace xb {

constexpr Named<LinkKind> kLinkKinds[] = {
    {LinkKind::self, "self"}, {LinkKind::nvlink, "nvlink"}, {LinkKind::pcie, "pcie"}, {LinkKind::none, "none"}};

const char* to_string(LinkKind kind) noexcept { return lookup_name(kLinkKinds, kind, "none"); }

int System::host_node_of(int gpu) const {
  const int node = gpus.at(gpu).numa_node;
  return node < 0 ? 0 : node;
}

int cuda_device_count() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    (void)cudaGetLastError();
    fail(ErrorKind::no_device, no_gpu_message(err == cudaSuccess ? cudaErrorNoDevice : err));
  }
  return count;
}

Peak pcie_peak(int generation, int width) {
  // Per-lane signalling rate (GT/s) and line-code efficiency per generation.
  struct Gen { double gts; double eff; const char* code; };
  static const Gen gens[] = {{2.5, 0.8, "8b/10b"},    {5.0, 0.8, "8b/10b"},    {8.0, 128.0 / 130, "128b/130b"},
                             {16.0, 128.0 / 130, "128b/130b"}, {32.0, 128.0 / 130, "128b/130b"},
                             {64.0, 242.0 / 256, "FLIT 242/256"}};
  Peak p;
  if (generation < 1 || generation > 6 || width < 1) return p;
  const Gen& g = gens[generation - 1];
  p.gbps = g.gts * width * g.eff / 8.0;
  p.formula = fmt::format("PCIe Gen{}: {} GT/s x {} lanes x {} / 8", generation, g.gts, width, g.code);
  p.source = "NVML max link generation and width";
  return p;
}

Peak c2c_peak(double total_gbps, const std::string& source) {
  Peak p;
  if (total_gbps <= 0) return p;
  p.gbps = total_gbps / 2.0;
  p.formula = fmt::format("NVLink-C2C: {:g} GB/s both directions / 2", total_gbps);
  p.source = source;
  return p;
}

void classify_host_link(GpuInfo& g, std::optional<bool> nvml_c2c, bool coherent_attributes) {
  const GpuModel* model = find_gpu_model(g.name);
  const bool model_c2c = model && model->host_link == HostLinkKind::c2c;
  if (nvml_c2c && *nvml_c2c) {
    g.host_link_evidence = "NVML nvmlDeviceGetC2cModeInfoV: C2C enabled";
  } else if (nvml_c2c && model_c2c) {
    // A C2C model that NVML reports off: still C2C, and lint's c2c_link flags it.
    g.host_link_evidence = fmt::format("GPU model '{}'; NVML reports C2C mode off", model->key);
  } else if (nvml_c2c) {
    // NVML answered "off" on a GPU that is not a C2C model: PCIe.
  } else if (coherent_attributes) {
    g.host_link_evidence = "CUDA attributes HostNativeAtomicSupported and PageableMemoryAccessUsesHostPageTables";
  } else if (model_c2c) {
    g.host_link_evidence = fmt::format("GPU model '{}' (NVML and CUDA attributes did not tell)", model->key);
  }
  if (g.host_link_evidence.empty()) return;  // PCIe, as NVML reported it
  g.host_link_kind = HostLinkKind::c2c;
  g.host_link = model_c2c ? c2c_peak(model->c2c_gbps_total, model->source) : Peak{};
}

void classify_numa_nodes(System& sys) {
  bool c2c = false;
  for (const GpuInfo& g : sys.gpus) c2c = c2c || g.host_link_kind == HostLinkKind::c2c;
  if (!c2c) return;
  for (NumaNode& n : sys.numa) {
    n.kind = "grace_lpddr5x";
    for (const GpuInfo& g : sys.gpus)
      if (g.memory_numa_node == n.id) n.kind = "gpu_memory";
  }
}

namespace {

// Peak of device memory: clock x 2 (DDR) x bus width / 8; unknown for zeros.
Peak memory_peak(double clock_mhz, int bus_width_bits, const std::string& source) {
  Peak p;
  if (clock_mhz <= 0 || bus_width_bits <= 0) return p;
  // Double data rate: two transfers per clock on every bit of the bus.
  p.gbps = clock_mhz * 1e6 * 2.0 * bus_width_bits / 8.0 / 1e9;
  p.formula = fmt::format("{:g} MHz x 2 (DDR) x {} bits / 8", clock_mhz, bus_width_bits);
  p.source = source;
  return p;
}

int attr(cudaDeviceAttr a, int dev) {
  int v = 0;
  XB_CUDA_CHECK(cudaDeviceGetAttribute(&v, a, dev));
  return v;
}

// nvidia-smi's spelling: GPU-8-4-4-4-12 hex digits.
std::string uuid_text(const cudaUUID_t& id) {
  std::string out = "GPU-";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += fmt::format("{:02x}", static_cast<unsigned char>(id.bytes[i]));
  }
  return out;
}

GpuInfo query_gpu(int dev) {
  GpuInfo g;
  g.index = dev;
  cudaDeviceProp prop{};
  XB_CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
  g.name = prop.name;
  g.uuid = uuid_text(prop.uuid);
  char bus[32] = {};
  XB_CUDA_CHECK(cudaDeviceGetPCIBusId(bus, sizeof(bus), dev));
  g.pci_bus_id = bus;
  g.cc_major = prop.major;
  g.cc_minor = prop.minor;
  g.sm_count = prop.multiProcessorCount;
  g.memory_bytes = prop.totalGlobalMem;
  g.numa_node = pci_numa_node(g.pci_bus_id);
  g.managed_memory = prop.managedMemory != 0;
  g.unified_addressing = prop.unifiedAddressing != 0;
  g.can_map_host_memory = prop.canMapHostMemory != 0;
  g.copy_engines = attr(cudaDevAttrAsyncEngineCount, dev);
  g.shared_memory_per_sm_kib = attr(cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev) / 1024;
  g.memory_bus_width_bits = attr(cudaDevAttrGlobalMemoryBusWidth, dev);
  g.memory_clock_khz = attr(cudaDevAttrMemoryClockRate, dev);
  g.memory_visible_to_cpu = attr(cudaDevAttrDirectManagedMemAccessFromHost, dev) != 0;
  if (attr(cudaDevAttrNumaConfig, dev) == cudaDeviceNumaConfigNumaNode) g.memory_numa_node = attr(cudaDevAttrNumaId, dev);
  g.memory = memory_peak(g.memory_clock_khz / 1000.0, g.memory_bus_width_bits,
                         "CUDA attributes MemoryClockRate, GlobalMemoryBusWidth");
  return g;
}

void apply_nvml(GpuInfo& g, const NvmlLinkInfo& n) {
  g.pcie_gen_current = n.pcie_gen_current;
  g.pcie_gen_max = n.pcie_gen_max;
  g.pcie_width_current = n.pcie_width_current;
  g.pcie_width_max = n.pcie_width_max;
  g.nvlink_count = n.nvlink_active;
  g.nvlink_gbps_per_link = n.nvlink_gbps_per_link;
  g.nvlink_rate_source = n.nvlink_rate_source;
  g.nvlink_remote_bus_ids = n.nvlink_remote_bus_ids;
  g.host_link = pcie_peak(n.pcie_gen_max, n.pcie_width_max);
  g.c2c_links = n.c2c_links;
  g.c2c_links_active = n.c2c_links_active;
  if (!n.uuid.empty()) g.uuid = n.uuid;
  if (n.max_mem_clock_mhz > 0 && n.memory_bus_width_bits > 0)
    g.memory = memory_peak(n.max_mem_clock_mhz, static_cast<int>(n.memory_bus_width_bits),
                           "NVML max memory clock, memory bus width");
}

std::string normalized_bus_id(std::string id) {
  // NVML and CUDA disagree on domain width and case: compare on the last
  // "bus:device.function" part, lowercase.
  for (auto& c : id) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto pos = id.find(':');
  return pos == std::string::npos ? id : id.substr(pos + 1);
}

int nvlinks_between(const NvmlLinkInfo& a, const std::string& peer_bus) {
  int count = 0;
  for (std::size_t l = 0; l < a.nvlink_remote_bus_ids.size(); ++l) {
    if (a.nvlink_remote_is_switch[l] || normalized_bus_id(a.nvlink_remote_bus_ids[l]) == normalized_bus_id(peer_bus))
      ++count;
  }
  return count;
}

// In virtual machines NVML reports the peers' physical bus ids, which match
// no visible GPU. Links are then grouped by remote id; when every group has
// the same size (symmetric topologies: 2 GPUs, fully connected 4 or 8),
// that size is the link count to each NVLink peer. Otherwise 0: unknown.
int nvlinks_unmatched(const NvmlLinkInfo& a, const std::vector<std::string>& visible) {
  std::map<std::string, int> groups;
  for (std::size_t l = 0; l < a.nvlink_remote_bus_ids.size(); ++l) {
    const std::string id = normalized_bus_id(a.nvlink_remote_bus_ids[l]);
    bool seen = false;
    for (const auto& v : visible) seen = seen || normalized_bus_id(v) == id;
    if (!seen && !a.nvlink_remote_is_switch[l]) ++groups[id];
  }
  if (groups.empty()) return 0;
  const int size = groups.begin()->second;
  for (const auto& g : groups)
    if (g.second != size) return 0;
  return size;
}

PeerLink make_link(const System& sys, const std::vector<NvmlLinkInfo>& nv, const Nvml* nvml, int a, int b) {
  PeerLink link;
  if (a == b) {
    link.kind = LinkKind::self;
    link.peer_access = true;
    link.peak = sys.gpus[a].memory;
    if (link.peak.known()) {
      link.peak.gbps /= 2.0;  // a local copy reads and writes every byte
      link.peak.formula = "(" + link.peak.formula + ") / 2 (read + write)";
    }
    return link;
  }
  int can = 0;
  XB_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, a, b));
  link.peer_access = can != 0;
  link.nvlinks = nv.empty() ? 0 : nvlinks_between(nv[a], sys.gpus[b].pci_bus_id);
  if (link.nvlinks == 0 && nvml && nvml->nvlink_p2p(sys.gpus[a].pci_bus_id, sys.gpus[b].pci_bus_id)) {
    std::vector<std::string> visible;
    for (const auto& g : sys.gpus) visible.push_back(g.pci_bus_id);
    link.nvlinks = nvlinks_unmatched(nv[a], visible);
  }
  const GpuInfo& ga = sys.gpus[a];
  if (link.nvlinks > 0 && ga.nvlink_gbps_per_link > 0) {
    link.kind = LinkKind::nvlink;
    link.peak.gbps = link.nvlinks * ga.nvlink_gbps_per_link;
    link.peak.formula = fmt::format("{} NVLinks x {} GB/s", link.nvlinks, ga.nvlink_gbps_per_link);
    link.peak.source = ga.nvlink_rate_source;
  } else if (link.peer_access) {
    link.kind = LinkKind::pcie;
    // The peers' PCIe links, also where the host link is NVLink-C2C.
    const Peak pa = pcie_peak(ga.pcie_gen_max, ga.pcie_width_max);
    const Peak pb = pcie_peak(sys.gpus[b].pcie_gen_max, sys.gpus[b].pcie_width_max);
    link.peak = (pa.known() && pb.known() && pb.gbps < pa.gbps) ? pb : pa;
  }
  return link;
}

}  // namespace

System discover_system(bool require_nvml) {
  System sys;
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  sys.hostname = host;
  const int count = cuda_device_count();
  XB_CUDA_CHECK(cudaDriverGetVersion(&sys.cuda_driver_version));
  XB_CUDA_CHECK(cudaRuntimeGetVersion(&sys.cuda_runtime_version));
  std::shared_ptr<Nvml> nvml;
  try {
    nvml = Nvml::load();
    sys.nvml_available = true;
    sys.driver_version = nvml->driver_version();
  } catch (const Error& e) {
    if (require_nvml) throw;
    sys.nvml_error = e.what();
  }
  std::vector<NvmlLinkInfo> nv;
  for (int d = 0; d < count; ++d) {
    sys.gpus.push_back(query_gpu(d));
    std::optional<bool> c2c;
    if (nvml) {
      nv.push_back(nvml->link_info(sys.gpus.back().pci_bus_id));
      apply_nvml(sys.gpus.back(), nv.back());
      c2c = nv.back().c2c_enabled;
    }
    const bool coherent = attr(cudaDevAttrHostNativeAtomicSupported, d) != 0 &&
                          attr(cudaDevAttrPageableMemoryAccessUsesHostPageTables, d) != 0;
    classify_host_link(sys.gpus.back(), c2c, coherent);
  }
  sys.links.assign(count, std::vector<PeerLink>(count));
  for (int a = 0; a < count; ++a)
    for (int b = 0; b < count; ++b) sys.links[a][b] = make_link(sys, nv, nvml.get(), a, b);
  sys.numa = numa_nodes();
  sys.host_memory_bytes = host_memory_bytes();
  classify_numa_nodes(sys);
  return sys;
}

std::string host_link_label(const GpuInfo& g) {
  if (g.host_link_kind == HostLinkKind::c2c) return "NVLink-C2C";
  return g.pcie_gen_max < 1 ? "PCIe" : fmt::format("PCIe Gen{} x{}", g.pcie_gen_max, g.pcie_width_max);
}

std::string peer_link_label(const PeerLink& l) {
  switch (l.kind) {
    case LinkKind::nvlink: return fmt::format("NVLink x{}", l.nvlinks);
    case LinkKind::pcie: return "PCIe peer";
    case LinkKind::self: return "device memory";
    default: return "no peer link";
  }
}

Peak transfer_peak(const System& sys, const Transfer& t, std::string* link) {
  const bool src_dev = !t.src.on_host() && t.src.device >= 0;
  const bool dst_dev = !t.dst.on_host() && t.dst.device >= 0;
  if (src_dev && dst_dev) {
    const PeerLink& l = sys.link(t.src.device, t.dst.device);
    if (link) *link = peer_link_label(l);
    return l.peak;
  }
  const int gpu = src_dev ? t.src.device : dst_dev ? t.dst.device : t.exec_device;
  if (gpu < 0 || gpu >= sys.gpu_count()) return Peak{};
  const GpuInfo& g = sys.gpus[static_cast<std::size_t>(gpu)];
  if (link) *link = host_link_label(g);
  return g.host_link;
}

void enable_peer_access(int a, int b) {
  for (auto [from, to] : {std::pair{a, b}, std::pair{b, a}}) {
    XB_CUDA_CHECK(cudaSetDevice(from));
    const cudaError_t err = cudaDeviceEnablePeerAccess(to, 0);
    if (err == cudaErrorPeerAccessAlreadyEnabled) {
      (void)cudaGetLastError();
    } else if (err != cudaSuccess) {
      (void)cudaGetLastError();
      fail(ErrorKind::cuda, fmt::format("gpu{}: peer access to gpu{} failed: {}", from, to, cudaGetErrorName(err)));
    }
  }
}

}  // namespace xb
