#include "base/model.hpp"

#include <fmt/format.h>

#include "base/names.hpp"

namespace xb {

constexpr Named<MemKind> kMemKinds[] = {
    {MemKind::device, "device"}, {MemKind::pinned, "pinned"},   {MemKind::pageable, "pageable"},
    {MemKind::write_combined, "write_combined"}, {MemKind::mapped, "mapped"}, {MemKind::managed, "managed"},
    {MemKind::hugepages, "hugepages"}};

const char* to_string(MemKind kind) noexcept { return lookup_name(kMemKinds, kind, "unknown"); }

bool is_host(MemKind kind) noexcept {
  return kind != MemKind::device && kind != MemKind::managed;
}

Location device_memory(int device) { return Location{MemKind::device, device, -1}; }
Location host_memory(MemKind kind, int numa) { return Location{kind, -1, numa}; }

constexpr Named<Engine> kEngines[] = {{Engine::copy_engine, "ce"}, {Engine::sm, "sm"},   {Engine::sm_split, "sm_split"}, {Engine::cpu, "cpu"},
                                      {Engine::tma, "tma"}, {Engine::sm_read, "sm_read"},   {Engine::sm_write, "sm_write"}};

const char* to_string(Engine engine) noexcept { return lookup_name(kEngines, engine, "ce"); }

constexpr Named<StreamMode> kStreamModes[] = {{StreamMode::per_transfer, "per-transfer"},
                                              {StreamMode::per_device, "per-device"},
                                              {StreamMode::only_one, "only-one"}};

const char* to_string(StreamMode mode) noexcept { return lookup_name(kStreamModes, mode); }

std::string location_label(const Location& loc) {
  if (loc.kind == MemKind::managed && loc.device < 0) return "managed(host)";
  if (!loc.on_host()) return fmt::format("gpu{}", loc.device);
  if (loc.numa >= 0) return fmt::format("host(numa{})", loc.numa);
  return "host";
}

}  // namespace xb
