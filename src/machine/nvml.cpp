#include "machine/nvml.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

#include <fmt/format.h>
#include <nvml.h>

#include "base/error.hpp"

namespace xb {

// The entry points typed by their nvml.h declarations, as (member, symbol):
// one list both declares the members and resolves them by name.
#define XB_NVML_ENTRY_POINTS(X)                                  \
  X(init, nvmlInit_v2)                                       \
  X(shutdown, nvmlShutdown)                                  \
  X(error_string, nvmlErrorString)                           \
  X(driver_version, nvmlSystemGetDriverVersion)              \
  X(by_bus_id, nvmlDeviceGetHandleByPciBusId_v2)             \
  X(pcie_gen, nvmlDeviceGetCurrPcieLinkGeneration)           \
  X(pcie_gen_max, nvmlDeviceGetMaxPcieLinkGeneration)        \
  X(pcie_width, nvmlDeviceGetCurrPcieLinkWidth)              \
  X(pcie_width_max, nvmlDeviceGetMaxPcieLinkWidth)           \
  X(nvlink_state, nvmlDeviceGetNvLinkState)                  \
  X(nvlink_version, nvmlDeviceGetNvLinkVersion)              \
  X(nvlink_remote, nvmlDeviceGetNvLinkRemotePciInfo_v2)      \
  X(nvlink_remote_type, nvmlDeviceGetNvLinkRemoteDeviceType) \
  X(field_values, nvmlDeviceGetFieldValues)                  \
  X(max_clock, nvmlDeviceGetMaxClockInfo)                    \
  X(p2p_status, nvmlDeviceGetP2PStatus)                      \
  X(persistence, nvmlDeviceGetPersistenceMode)               \
  X(clock, nvmlDeviceGetClockInfo)                           \
  X(ecc_mode, nvmlDeviceGetEccMode)                          \
  X(ecc_errors, nvmlDeviceGetTotalEccErrors)                 \
  X(retired_pending, nvmlDeviceGetRetiredPagesPendingStatus) \
  X(remapped_rows, nvmlDeviceGetRemappedRows)                \
  X(mig_mode, nvmlDeviceGetMigMode)                          \
  X(cc_state, nvmlSystemGetConfComputeState)                 \
  X(processes, nvmlDeviceGetComputeRunningProcesses_v3)      \
  X(bus_width, nvmlDeviceGetMemoryBusWidth)                  \
  X(uuid, nvmlDeviceGetUUID)                                 \
  X(c2c_mode, nvmlDeviceGetC2cModeInfoV)                     \
  X(power, nvmlDeviceGetPowerUsage)                          \
  X(pcie_replays, nvmlDeviceGetPcieReplayCounter)            \
  X(event_set_create, nvmlEventSetCreate)                    \
  X(event_set_free, nvmlEventSetFree)                        \
  X(register_events, nvmlDeviceRegisterEvents)               \
  X(event_wait, nvmlEventSetWait_v2)

struct Nvml::Api {
  void* handle = nullptr;
#define XB_NVML_MEMBER(member, symbol) decltype(&symbol) member = nullptr;
  XB_NVML_ENTRY_POINTS(XB_NVML_MEMBER)
#undef XB_NVML_MEMBER
  // Entry points NVML marks as deprecated are typed by hand so their
  // declarations are never referenced.
  nvmlReturn_t (*clock_reasons)(nvmlDevice_t, unsigned long long*) = nullptr;
  nvmlReturn_t (*app_clock)(nvmlDevice_t, nvmlClockType_t, unsigned*) = nullptr;
  nvmlReturn_t (*default_app_clock)(nvmlDevice_t, nvmlClockType_t, unsigned*) = nullptr;
  nvmlReturn_t (*temperature)(nvmlDevice_t, nvmlTemperatureSensors_t, unsigned*) = nullptr;
};

// XID events: one set for the process, created at the first telemetry();
// each GPU is registered at its first telemetry(). Events of every GPU
// come out of the one set, so those of other GPUs wait in `pending`.
struct Nvml::Events {
  std::mutex mutex;
  bool tried = false;
  nvmlEventSet_t set{};
  bool have_set = false;
  std::map<std::string, bool> registered;  // by bus id: registration done (true: events come)
  std::map<nvmlDevice_t, std::vector<std::uint64_t>> pending;
};

static_assert(clock_reason::gpu_idle == nvmlClocksEventReasonGpuIdle &&
              clock_reason::app_clocks == nvmlClocksEventReasonApplicationsClocksSetting &&
              clock_reason::sw_power_cap == nvmlClocksEventReasonSwPowerCap &&
              clock_reason::hw_slowdown == nvmlClocksThrottleReasonHwSlowdown &&
              clock_reason::sync_boost == nvmlClocksEventReasonSyncBoost &&
              clock_reason::sw_thermal == nvmlClocksEventReasonSwThermalSlowdown &&
              clock_reason::hw_thermal == nvmlClocksThrottleReasonHwThermalSlowdown &&
              clock_reason::hw_power_brake == nvmlClocksThrottleReasonHwPowerBrakeSlowdown &&
              clock_reason::display_clocks == nvmlClocksEventReasonDisplayClockSetting,
              "clock_reason bits must match nvml.h");

namespace {

template <typename F>
void resolve(void* handle, F& fn, const char* name) {
  fn = reinterpret_cast<F>(dlsym(handle, name));
}

// NVLink per-link rate in GB/s per direction by NVML's version enum
// (nvmlNvlinkVersion_t), used only when NVML does not report the speed.
struct NvlinkVersion {
  int version;
  const char* name;
  double gbps;
};
constexpr NvlinkVersion kNvlinkVersions[] = {
    {NVML_NVLINK_VERSION_1_0, "1.0", 20.0}, {NVML_NVLINK_VERSION_2_0, "2.0", 25.0},
    {NVML_NVLINK_VERSION_2_2, "2.2", 25.0}, {NVML_NVLINK_VERSION_3_0, "3.0", 25.0},
    {NVML_NVLINK_VERSION_3_1, "3.1", 25.0}, {NVML_NVLINK_VERSION_4_0, "4.0", 26.5625},
    {NVML_NVLINK_VERSION_5_0, "5.0", 50.0}};

NvlinkVersion nvlink_version(int version) {
  for (const NvlinkVersion& v : kNvlinkVersions)
    if (v.version == version) return v;
  return {version, "unknown", 0.0};
}

// The GPU with this PCI bus id into `dev`; false when NVML does not know it.
bool find_device(const Nvml::Api& api, const std::string& pci_bus_id, nvmlDevice_t& dev) {
  return api.by_bus_id && api.by_bus_id(pci_bus_id.c_str(), &dev) == NVML_SUCCESS;
}

// One NVML getter with a single output value: empty when the entry point is
// missing or NVML answers anything but success (not supported, no permission).
template <typename Out, typename Fn, typename... Args>
std::optional<Out> ask(Fn fn, Args... args) {
  Out out{};
  if (!fn || fn(args..., &out) != NVML_SUCCESS) return std::nullopt;
  return out;
}

template <typename T>
std::optional<int> as_int(const std::optional<T>& v) {
  return v ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
}

std::optional<bool> enabled(const std::optional<nvmlEnableState_t>& v) {
  return v ? std::optional<bool>(*v == NVML_FEATURE_ENABLED) : std::nullopt;
}

// One NVML field value (of link `scope` for per-link fields).
std::optional<std::uint64_t> field_u64(const Nvml::Api& api, nvmlDevice_t dev, unsigned field, unsigned scope = 0) {
  if (!api.field_values) return std::nullopt;
  nvmlFieldValue_t fv{};
  fv.fieldId = field;
  fv.scopeId = scope;
  if (api.field_values(dev, 1, &fv) != NVML_SUCCESS || fv.nvmlReturn != NVML_SUCCESS) return std::nullopt;
  switch (fv.valueType) {
    case NVML_VALUE_TYPE_UNSIGNED_INT: return fv.value.uiVal;
    case NVML_VALUE_TYPE_UNSIGNED_LONG: return fv.value.ulVal;
    case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG: return fv.value.ullVal;
    default: return std::nullopt;
  }
}

// Link speed in GB/s per direction as NVML reports it (MB/s), trying the
// per-link field first, then the common-speed field.
double nvlink_speed_gbps(const Nvml::Api& api, nvmlDevice_t dev, unsigned link, std::string& source) {
  for (unsigned field : {unsigned(NVML_FI_DEV_NVLINK_GET_SPEED), unsigned(NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON)}) {
    const auto mbps = field_u64(api, dev, field, link);
    if (!mbps || *mbps == 0) continue;
    source = field == NVML_FI_DEV_NVLINK_GET_SPEED ? "NVML field NVLINK_GET_SPEED" : "NVML field NVLINK_SPEED_MBPS_COMMON";
    return static_cast<double>(*mbps) / 1000.0;
  }
  return 0.0;
}

void nvlink_counts(const Nvml::Api& api, nvmlDevice_t dev, NvmlHealth& h) {
  if (!api.nvlink_state) return;
  int present = 0, active = 0;
  for (unsigned link = 0; link < NVML_NVLINK_MAX_LINKS; ++link) {
    nvmlEnableState_t state{};
    if (api.nvlink_state(dev, link, &state) != NVML_SUCCESS) continue;  // no such link
    ++present;
    if (state == NVML_FEATURE_ENABLED) ++active;
  }
  h.nvlinks_active = active;
  const auto count = field_u64(api, dev, NVML_FI_DEV_NVLINK_LINK_COUNT);
  h.nvlinks_present = count ? static_cast<int>(*count) : present;
}

void clocks(const Nvml::Api& api, nvmlDevice_t dev, NvmlHealth& h) {
  h.clock_reasons = ask<unsigned long long>(api.clock_reasons, dev);
  h.sm_clock_mhz = ask<unsigned>(api.clock, dev, NVML_CLOCK_SM);
  h.mem_clock_mhz = ask<unsigned>(api.clock, dev, NVML_CLOCK_MEM);
  h.sm_clock_max_mhz = ask<unsigned>(api.max_clock, dev, NVML_CLOCK_SM);
  h.mem_clock_max_mhz = ask<unsigned>(api.max_clock, dev, NVML_CLOCK_MEM);
  h.app_sm_clock_mhz = ask<unsigned>(api.app_clock, dev, NVML_CLOCK_SM);
  h.app_mem_clock_mhz = ask<unsigned>(api.app_clock, dev, NVML_CLOCK_MEM);
  h.default_app_sm_clock_mhz = ask<unsigned>(api.default_app_clock, dev, NVML_CLOCK_SM);
  h.default_app_mem_clock_mhz = ask<unsigned>(api.default_app_clock, dev, NVML_CLOCK_MEM);
}

void memory_errors(const Nvml::Api& api, nvmlDevice_t dev, NvmlHealth& h) {
  nvmlEnableState_t current{}, pending{};
  if (api.ecc_mode && api.ecc_mode(dev, &current, &pending) == NVML_SUCCESS) {
    h.ecc_enabled = current == NVML_FEATURE_ENABLED;
    h.ecc_pending_change = current != pending;
  }
  h.ecc_uncorrected_volatile =
      ask<unsigned long long>(api.ecc_errors, dev, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC);
  h.retired_pages_pending = enabled(ask<nvmlEnableState_t>(api.retired_pending, dev));
  unsigned corr = 0, unc = 0, pending_rows = 0, failure = 0;
  if (api.remapped_rows && api.remapped_rows(dev, &corr, &unc, &pending_rows, &failure) == NVML_SUCCESS) {
    h.row_remap_pending = pending_rows != 0;
    h.row_remap_failure = failure != 0;
  }
}

// XIDs NVML delivered for `dev` since the last call; registers the GPU
// first. No event support (set, registration or wait): none, never an error.
std::vector<std::uint64_t> poll_xids(const Nvml::Api& api, Nvml::Events& ev, const std::string& pci_bus_id,
                                     nvmlDevice_t dev) {
  const std::lock_guard<std::mutex> lock(ev.mutex);
  if (!ev.tried) {
    ev.tried = true;
    ev.have_set = api.event_set_create && api.register_events && api.event_wait &&
                  api.event_set_create(&ev.set) == NVML_SUCCESS;
  }
  if (!ev.have_set) return {};
  if (!ev.registered.count(pci_bus_id))  // not supported: this GPU just has no events
    ev.registered[pci_bus_id] = api.register_events(dev, nvmlEventTypeXidCriticalError, ev.set) == NVML_SUCCESS;
  // Drain what has arrived, without waiting (timeout 0).
  for (int i = 0; i < 1024; ++i) {
    nvmlEventData_t data{};
    if (api.event_wait(ev.set, &data, 0) != NVML_SUCCESS) break;
    if (data.eventType & nvmlEventTypeXidCriticalError) ev.pending[data.device].push_back(data.eventData);
  }
  std::vector<std::uint64_t> out;
  out.swap(ev.pending[dev]);
  return out;
}

}  // namespace

std::shared_ptr<Nvml> Nvml::load() {
  const char* env = std::getenv("XFERBENCH_NVML_LIBRARY");
  const std::string lib = env && *env ? env : "libnvidia-ml.so.1";
  auto api = std::make_unique<Api>();
  api->handle = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!api->handle) fail(ErrorKind::nvml, fmt::format("nvml unavailable: {}", dlerror()));
#define XB_NVML_RESOLVE(member, symbol) resolve(api->handle, api->member, #symbol);
  XB_NVML_ENTRY_POINTS(XB_NVML_RESOLVE)
#undef XB_NVML_RESOLVE
  resolve(api->handle, api->clock_reasons, "nvmlDeviceGetCurrentClocksEventReasons");
  if (!api->clock_reasons) resolve(api->handle, api->clock_reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
  resolve(api->handle, api->app_clock, "nvmlDeviceGetApplicationsClock");
  resolve(api->handle, api->default_app_clock, "nvmlDeviceGetDefaultApplicationsClock");
  resolve(api->handle, api->temperature, "nvmlDeviceGetTemperature");
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
  return std::shared_ptr<Nvml>(new Nvml(std::move(api)));
}

Nvml::Nvml(std::unique_ptr<Api> api) : api_(std::move(api)), events_(std::make_unique<Events>()) {}

Nvml::~Nvml() {
  if (events_->have_set && api_->event_set_free) api_->event_set_free(events_->set);
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
  if (!find_device(*api_, pci_bus_id, dev)) return info;
  info.pcie_gen_current = as_int(ask<unsigned>(api_->pcie_gen, dev)).value_or(-1);
  info.pcie_gen_max = as_int(ask<unsigned>(api_->pcie_gen_max, dev)).value_or(-1);
  info.pcie_width_current = as_int(ask<unsigned>(api_->pcie_width, dev)).value_or(-1);
  info.pcie_width_max = as_int(ask<unsigned>(api_->pcie_width_max, dev)).value_or(-1);
  info.max_mem_clock_mhz = ask<unsigned>(api_->max_clock, dev, NVML_CLOCK_MEM).value_or(0);
  info.memory_bus_width_bits = ask<unsigned>(api_->bus_width, dev).value_or(0);
  char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE] = {};
  if (api_->uuid && api_->uuid(dev, uuid, sizeof(uuid)) == NVML_SUCCESS) info.uuid = uuid;
  nvmlC2cModeInfo_v1_t c2c{};
  if (api_->c2c_mode && api_->c2c_mode(dev, &c2c) == NVML_SUCCESS) info.c2c_enabled = c2c.isC2cEnabled != 0;
  info.c2c_links = static_cast<int>(field_u64(*api_, dev, NVML_FI_DEV_C2C_LINK_COUNT).value_or(0));
  for (int link = 0; link < info.c2c_links; ++link)
    if (field_u64(*api_, dev, NVML_FI_DEV_C2C_LINK_GET_STATUS, static_cast<unsigned>(link)).value_or(0) == 1)
      ++info.c2c_links_active;
  unsigned first_active = 0;
  for (unsigned link = 0; link < NVML_NVLINK_MAX_LINKS && api_->nvlink_state; ++link) {
    nvmlEnableState_t state{};
    if (api_->nvlink_state(dev, link, &state) != NVML_SUCCESS || state != NVML_FEATURE_ENABLED) continue;
    if (info.nvlink_active++ == 0) first_active = link;
    if (info.nvlink_version == 0)
      info.nvlink_version = as_int(ask<unsigned>(api_->nvlink_version, dev, link)).value_or(0);
    const auto remote = ask<nvmlPciInfo_t>(api_->nvlink_remote, dev, link);
    info.nvlink_remote_bus_ids.push_back(remote ? remote->busId : "");
    info.nvlink_remote_is_switch.push_back(ask<nvmlIntNvLinkDeviceType_t>(api_->nvlink_remote_type, dev, link) ==
                                           NVML_NVLINK_DEVICE_TYPE_SWITCH);
  }
  if (info.nvlink_active > 0) {
    info.nvlink_gbps_per_link = nvlink_speed_gbps(*api_, dev, first_active, info.nvlink_rate_source);
    if (info.nvlink_gbps_per_link <= 0) {
      const NvlinkVersion v = nvlink_version(info.nvlink_version);
      info.nvlink_gbps_per_link = v.gbps;
      info.nvlink_rate_source = fmt::format("nominal rate of NVLink {}", v.name);
    }
  }
  return info;
}

bool Nvml::nvlink_p2p(const std::string& bus_a, const std::string& bus_b) const {
  nvmlDevice_t a{}, b{};
  if (!find_device(*api_, bus_a, a) || !find_device(*api_, bus_b, b)) return false;
  return ask<nvmlGpuP2PStatus_t>(api_->p2p_status, a, b, NVML_P2P_CAPS_INDEX_NVLINK) == NVML_P2P_STATUS_OK;
}

std::string clock_reason_names(std::uint64_t mask) {
  static const std::pair<std::uint64_t, const char*> names[] = {
      {clock_reason::gpu_idle, "gpu_idle"},         {clock_reason::app_clocks, "applications_clocks_setting"},
      {clock_reason::sw_power_cap, "sw_power_cap"}, {clock_reason::hw_slowdown, "hw_slowdown"},
      {clock_reason::sync_boost, "sync_boost"},     {clock_reason::sw_thermal, "sw_thermal_slowdown"},
      {clock_reason::hw_thermal, "hw_thermal_slowdown"}, {clock_reason::hw_power_brake, "hw_power_brake_slowdown"},
      {clock_reason::display_clocks, "display_clock_setting"}};
  std::string out;
  for (const auto& [bit, name] : names) {
    if (!(mask & bit)) continue;
    if (!out.empty()) out += ", ";
    out += name;
  }
  if (mask & ~std::uint64_t{0x1ff}) out += out.empty() ? "other" : ", other";
  return out.empty() ? "none" : out;
}

NvmlHealth Nvml::health(const std::string& pci_bus_id) const {
  NvmlHealth h;
  nvmlDevice_t dev{};
  if (!find_device(*api_, pci_bus_id, dev)) return h;
  h.found = true;
  h.pcie_gen_current = as_int(ask<unsigned>(api_->pcie_gen, dev));
  h.pcie_gen_max = as_int(ask<unsigned>(api_->pcie_gen_max, dev));
  h.pcie_width_current = as_int(ask<unsigned>(api_->pcie_width, dev));
  h.pcie_width_max = as_int(ask<unsigned>(api_->pcie_width_max, dev));
  nvlink_counts(*api_, dev, h);
  h.persistence_mode = enabled(ask<nvmlEnableState_t>(api_->persistence, dev));
  clocks(*api_, dev, h);
  memory_errors(*api_, dev, h);
  const NvmlLinkInfo links = link_info(pci_bus_id);
  h.c2c_enabled = links.c2c_enabled;
  if (links.c2c_links > 0) {
    h.c2c_links = links.c2c_links;
    h.c2c_links_active = links.c2c_links_active;
  }
  unsigned mig = 0, mig_pending = 0;
  if (api_->mig_mode && api_->mig_mode(dev, &mig, &mig_pending) == NVML_SUCCESS)
    h.mig_enabled = mig == NVML_DEVICE_MIG_ENABLE;
  return h;
}

NvmlSample Nvml::sample(const std::string& pci_bus_id) const {
  NvmlSample s;
  nvmlDevice_t dev{};
  if (!find_device(*api_, pci_bus_id, dev)) return s;
  s.sm_clock_mhz = ask<unsigned>(api_->clock, dev, NVML_CLOCK_SM);
  s.mem_clock_mhz = ask<unsigned>(api_->clock, dev, NVML_CLOCK_MEM);
  s.clock_reasons = ask<unsigned long long>(api_->clock_reasons, dev);
  s.pcie_gen_current = as_int(ask<unsigned>(api_->pcie_gen, dev));
  s.pcie_width_current = as_int(ask<unsigned>(api_->pcie_width, dev));
  s.power_throttle_ns = field_u64(*api_, dev, NVML_FI_DEV_PERF_POLICY_POWER);
  s.thermal_throttle_ns = field_u64(*api_, dev, NVML_FI_DEV_PERF_POLICY_THERMAL);
  return s;
}

NvmlTelemetry Nvml::telemetry(const std::string& pci_bus_id) const {
  NvmlTelemetry t;
  nvmlDevice_t dev{};
  if (!find_device(*api_, pci_bus_id, dev)) return t;
  if (const auto c = ask<unsigned>(api_->temperature, dev, NVML_TEMPERATURE_GPU)) t.temperature_c = *c;
  if (const auto mw = ask<unsigned>(api_->power, dev)) t.power_w = *mw / 1000.0;
  t.sm_clock_mhz = ask<unsigned>(api_->clock, dev, NVML_CLOCK_SM);
  t.mem_clock_mhz = ask<unsigned>(api_->clock, dev, NVML_CLOCK_MEM);
  t.clock_reasons = ask<unsigned long long>(api_->clock_reasons, dev);
  t.ecc_corrected = ask<unsigned long long>(api_->ecc_errors, dev, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC);
  t.ecc_uncorrected =
      ask<unsigned long long>(api_->ecc_errors, dev, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC);
  unsigned corr = 0, unc = 0, pending = 0, failure = 0;
  if (api_->remapped_rows && api_->remapped_rows(dev, &corr, &unc, &pending, &failure) == NVML_SUCCESS) {
    t.rows_remapped_correctable = corr;
    t.rows_remapped_uncorrectable = unc;
    t.row_remap_pending = pending != 0;
    t.row_remap_failure = failure != 0;
  }
  t.pcie_replays = ask<unsigned>(api_->pcie_replays, dev);
  t.xids = poll_xids(*api_, *events_, pci_bus_id, dev);
  return t;
}

std::optional<bool> Nvml::confidential_compute() const {
  const auto state = ask<nvmlConfComputeSystemState_t>(api_->cc_state);
  return state ? std::optional<bool>(state->ccFeature == NVML_CC_SYSTEM_FEATURE_ENABLED) : std::nullopt;
}

std::optional<std::uint64_t> Nvml::process_memory(const std::string& pci_bus_id, unsigned pid) const {
  nvmlDevice_t dev{};
  if (!find_device(*api_, pci_bus_id, dev) || !api_->processes) return std::nullopt;
  std::vector<nvmlProcessInfo_t> infos(64);
  unsigned count = static_cast<unsigned>(infos.size());
  nvmlReturn_t rc = api_->processes(dev, &count, infos.data());
  if (rc == NVML_ERROR_INSUFFICIENT_SIZE) {
    infos.resize(count + 16);  // processes may start between the calls
    count = static_cast<unsigned>(infos.size());
    rc = api_->processes(dev, &count, infos.data());
  }
  if (rc != NVML_SUCCESS) return std::nullopt;
  for (unsigned i = 0; i < count && i < infos.size(); ++i) {
    if (infos[i].pid != pid) continue;
    if (infos[i].usedGpuMemory == static_cast<unsigned long long>(NVML_VALUE_NOT_AVAILABLE)) return std::nullopt;
    return infos[i].usedGpuMemory;
  }
  return std::nullopt;
}

}  // namespace xb
