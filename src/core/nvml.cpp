#include "core/nvml.hpp"

#include <dlfcn.h>

#include <cstdlib>

#include <fmt/format.h>
#include <nvml.h>

#include "core/error.hpp"

namespace xb {

struct Nvml::Api {
  void* handle = nullptr;
  decltype(&nvmlInit_v2) init = nullptr;
  decltype(&nvmlShutdown) shutdown = nullptr;
  decltype(&nvmlErrorString) error_string = nullptr;
  decltype(&nvmlSystemGetDriverVersion) driver_version = nullptr;
  decltype(&nvmlDeviceGetHandleByPciBusId_v2) by_bus_id = nullptr;
  decltype(&nvmlDeviceGetCurrPcieLinkGeneration) pcie_gen = nullptr;
  decltype(&nvmlDeviceGetMaxPcieLinkGeneration) pcie_gen_max = nullptr;
  decltype(&nvmlDeviceGetCurrPcieLinkWidth) pcie_width = nullptr;
  decltype(&nvmlDeviceGetMaxPcieLinkWidth) pcie_width_max = nullptr;
  decltype(&nvmlDeviceGetNvLinkState) nvlink_state = nullptr;
  decltype(&nvmlDeviceGetNvLinkVersion) nvlink_version = nullptr;
  decltype(&nvmlDeviceGetNvLinkRemotePciInfo_v2) nvlink_remote = nullptr;
  decltype(&nvmlDeviceGetNvLinkRemoteDeviceType) nvlink_remote_type = nullptr;
  decltype(&nvmlDeviceGetFieldValues) field_values = nullptr;
  decltype(&nvmlDeviceGetMaxClockInfo) max_clock = nullptr;
  decltype(&nvmlDeviceGetP2PStatus) p2p_status = nullptr;
  decltype(&nvmlDeviceGetMemoryBusWidth) bus_width = nullptr;
  decltype(&nvmlDeviceGetUUID) uuid = nullptr;
};

namespace {

template <typename F>
void resolve(void* handle, F& fn, const char* name) {
  fn = reinterpret_cast<F>(dlsym(handle, name));
}

// NVLink per-link rate in GB/s per direction by NVML's version enum
// (nvmlNvlinkVersion_t), used only when NVML does not report the speed.
double nominal_nvlink_gbps(int version) {
  switch (version) {
    case NVML_NVLINK_VERSION_1_0: return 20.0;
    case NVML_NVLINK_VERSION_2_0: case NVML_NVLINK_VERSION_2_2:
    case NVML_NVLINK_VERSION_3_0: case NVML_NVLINK_VERSION_3_1: return 25.0;
    case NVML_NVLINK_VERSION_4_0: return 26.5625;
    case NVML_NVLINK_VERSION_5_0: return 50.0;
    default: return 0.0;
  }
}

const char* nvlink_version_name(int version) {
  switch (version) {
    case NVML_NVLINK_VERSION_1_0: return "1.0";
    case NVML_NVLINK_VERSION_2_0: return "2.0";
    case NVML_NVLINK_VERSION_2_2: return "2.2";
    case NVML_NVLINK_VERSION_3_0: return "3.0";
    case NVML_NVLINK_VERSION_3_1: return "3.1";
    case NVML_NVLINK_VERSION_4_0: return "4.0";
    case NVML_NVLINK_VERSION_5_0: return "5.0";
    default: return "unknown";
  }
}

// Link speed in GB/s per direction as NVML reports it (MB/s), trying the
// per-link field first, then the common-speed field.
double nvlink_speed_gbps(const Nvml::Api& api, nvmlDevice_t dev, unsigned link, std::string& source) {
  if (!api.field_values) return 0.0;
  for (unsigned field : {unsigned(NVML_FI_DEV_NVLINK_GET_SPEED), unsigned(NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON)}) {
    nvmlFieldValue_t fv{};
    fv.fieldId = field;
    fv.scopeId = link;
    if (api.field_values(dev, 1, &fv) != NVML_SUCCESS || fv.nvmlReturn != NVML_SUCCESS) continue;
    const double mbps = fv.valueType == NVML_VALUE_TYPE_UNSIGNED_LONG_LONG ? static_cast<double>(fv.value.ullVal)
                                                                           : static_cast<double>(fv.value.uiVal);
    if (mbps <= 0) continue;
    source = field == NVML_FI_DEV_NVLINK_GET_SPEED ? "NVML field NVLINK_GET_SPEED" : "NVML field NVLINK_SPEED_MBPS_COMMON";
    return mbps / 1000.0;
  }
  return 0.0;
}

}  // namespace

std::shared_ptr<Nvml> Nvml::load() {
  const char* env = std::getenv("XFERBENCH_NVML_LIBRARY");
  const std::string lib = env && *env ? env : "libnvidia-ml.so.1";
  auto api = std::make_unique<Api>();
  api->handle = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!api->handle) fail(ErrorKind::nvml, fmt::format("nvml unavailable: {}", dlerror()));
  resolve(api->handle, api->init, "nvmlInit_v2");
  resolve(api->handle, api->shutdown, "nvmlShutdown");
  resolve(api->handle, api->error_string, "nvmlErrorString");
  if (!api->init || !api->shutdown || !api->error_string) {
    dlclose(api->handle);
    fail(ErrorKind::nvml, fmt::format("nvml unavailable: {} lacks nvmlInit_v2", lib));
  }
  const nvmlReturn_t rc = api->init();
  if (rc != NVML_SUCCESS) {
    const std::string why = api->error_string(rc);
    dlclose(api->handle);
    fail(ErrorKind::nvml, fmt::format("nvml unavailable: nvmlInit failed: {}", why));
  }
  resolve(api->handle, api->driver_version, "nvmlSystemGetDriverVersion");
  resolve(api->handle, api->by_bus_id, "nvmlDeviceGetHandleByPciBusId_v2");
  resolve(api->handle, api->pcie_gen, "nvmlDeviceGetCurrPcieLinkGeneration");
  resolve(api->handle, api->pcie_gen_max, "nvmlDeviceGetMaxPcieLinkGeneration");
  resolve(api->handle, api->pcie_width, "nvmlDeviceGetCurrPcieLinkWidth");
  resolve(api->handle, api->pcie_width_max, "nvmlDeviceGetMaxPcieLinkWidth");
  resolve(api->handle, api->nvlink_state, "nvmlDeviceGetNvLinkState");
  resolve(api->handle, api->nvlink_version, "nvmlDeviceGetNvLinkVersion");
  resolve(api->handle, api->nvlink_remote, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
  resolve(api->handle, api->nvlink_remote_type, "nvmlDeviceGetNvLinkRemoteDeviceType");
  resolve(api->handle, api->field_values, "nvmlDeviceGetFieldValues");
  resolve(api->handle, api->max_clock, "nvmlDeviceGetMaxClockInfo");
  resolve(api->handle, api->p2p_status, "nvmlDeviceGetP2PStatus");
  resolve(api->handle, api->bus_width, "nvmlDeviceGetMemoryBusWidth");
  resolve(api->handle, api->uuid, "nvmlDeviceGetUUID");
  return std::shared_ptr<Nvml>(new Nvml(std::move(api)));
}

Nvml::Nvml(std::unique_ptr<Api> api) : api_(std::move(api)) {}

Nvml::~Nvml() {
  api_->shutdown();
  dlclose(api_->handle);
}

std::string Nvml::driver_version() const {
  char buf[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE] = {};
  if (!api_->driver_version || api_->driver_version(buf, sizeof(buf)) != NVML_SUCCESS) return "unknown";
  return buf;
}

NvmlLinkInfo Nvml::link_info(const std::string& pci_bus_id) const {
  NvmlLinkInfo info;
  nvmlDevice_t dev{};
  if (!api_->by_bus_id || api_->by_bus_id(pci_bus_id.c_str(), &dev) != NVML_SUCCESS) return info;
  unsigned v = 0;
  if (api_->pcie_gen && api_->pcie_gen(dev, &v) == NVML_SUCCESS) info.pcie_gen_current = static_cast<int>(v);
  if (api_->pcie_gen_max && api_->pcie_gen_max(dev, &v) == NVML_SUCCESS) info.pcie_gen_max = static_cast<int>(v);
  if (api_->pcie_width && api_->pcie_width(dev, &v) == NVML_SUCCESS) info.pcie_width_current = static_cast<int>(v);
  if (api_->pcie_width_max && api_->pcie_width_max(dev, &v) == NVML_SUCCESS) info.pcie_width_max = static_cast<int>(v);
  if (api_->max_clock && api_->max_clock(dev, NVML_CLOCK_MEM, &v) == NVML_SUCCESS) info.max_mem_clock_mhz = v;
  if (api_->bus_width && api_->bus_width(dev, &v) == NVML_SUCCESS) info.memory_bus_width_bits = v;
  char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE] = {};
  if (api_->uuid && api_->uuid(dev, uuid, sizeof(uuid)) == NVML_SUCCESS) info.uuid = uuid;
  unsigned first_active = 0;
  for (unsigned link = 0; link < NVML_NVLINK_MAX_LINKS && api_->nvlink_state; ++link) {
    nvmlEnableState_t state{};
    if (api_->nvlink_state(dev, link, &state) != NVML_SUCCESS || state != NVML_FEATURE_ENABLED) continue;
    if (info.nvlink_active++ == 0) first_active = link;
    if (info.nvlink_version == 0 && api_->nvlink_version &&
        api_->nvlink_version(dev, link, &v) == NVML_SUCCESS) {
      info.nvlink_version = static_cast<int>(v);
    }
    nvmlPciInfo_t remote{};
    std::string bus = api_->nvlink_remote && api_->nvlink_remote(dev, link, &remote) == NVML_SUCCESS
                          ? std::string(remote.busId) : std::string();
    nvmlIntNvLinkDeviceType_t type{};
    const bool is_switch = api_->nvlink_remote_type && api_->nvlink_remote_type(dev, link, &type) == NVML_SUCCESS &&
                           type == NVML_NVLINK_DEVICE_TYPE_SWITCH;
    info.nvlink_remote_bus_ids.push_back(bus);
    info.nvlink_remote_is_switch.push_back(is_switch);
  }
  if (info.nvlink_active > 0) {
    info.nvlink_gbps_per_link = nvlink_speed_gbps(*api_, dev, first_active, info.nvlink_rate_source);
    if (info.nvlink_gbps_per_link <= 0) {
      info.nvlink_gbps_per_link = nominal_nvlink_gbps(info.nvlink_version);
      info.nvlink_rate_source = fmt::format("nominal rate of NVLink {}", nvlink_version_name(info.nvlink_version));
    }
  }
  return info;
}

bool Nvml::nvlink_p2p(const std::string& bus_a, const std::string& bus_b) const {
  nvmlDevice_t a{}, b{};
  if (!api_->by_bus_id || !api_->p2p_status || api_->by_bus_id(bus_a.c_str(), &a) != NVML_SUCCESS ||
      api_->by_bus_id(bus_b.c_str(), &b) != NVML_SUCCESS)
    return false;
  nvmlGpuP2PStatus_t status{};
  return api_->p2p_status(a, b, NVML_P2P_CAPS_INDEX_NVLINK, &status) == NVML_SUCCESS && status == NVML_P2P_STATUS_OK;
}

}  // namespace xb
