#include "base/model.hpp"

#include <fmt/format.h>

namespace xb {

const char* to_string(MemKind kind) noexcept {
  switch (kind) {
    case MemKind::device: return "device";
    case MemKind::pinned: return "pinned";
    case MemKind::pageable: return "pageable";
    case MemKind::write_combined: return "write_combined";
    case MemKind::mapped: return "mapped";
    case MemKind::managed: return "managed";
    case MemKind::hugepages: return "hugepages";
  }
  return "unknown";
}

bool is_host(MemKind kind) noexcept {
  return kind != MemKind::device && kind != MemKind::managed;
}

Location device_memory(int device) { return Location{MemKind::device, device, -1}; }
Location host_memory(MemKind kind, int numa) { return Location{kind, -1, numa}; }

const char* to_string(Engine engine) noexcept {
  switch (engine) {
    case Engine::sm: return "sm";
    case Engine::sm_split: return "sm_split";
    case Engine::cpu: return "cpu";
    case Engine::tma: return "tma";
    case Engine::sm_read: return "sm_read";
    case Engine::sm_write: return "sm_write";
    default: return "ce";
  }
}

const char* to_string(StreamMode mode) noexcept {
  switch (mode) {
    case StreamMode::per_transfer: return "per-transfer";
    case StreamMode::per_device: return "per-device";
    case StreamMode::only_one: return "only-one";
  }
  return "?";
}

std::string location_label(const Location& loc) {
  if (loc.kind == MemKind::managed && loc.device < 0) return "managed(host)";
  if (!loc.on_host()) return fmt::format("gpu{}", loc.device);
  if (loc.numa >= 0) return fmt::format("host(numa{})", loc.numa);
  return "host";
}

}  // namespace xb
