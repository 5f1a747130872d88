#include "base/error.hpp"

namespace xb {
namespace {

// Each kind's name and the exit code it ends a command with.
struct KindInfo {
  ErrorKind kind;
  const char* name;
  int exit_code;
};
constexpr KindInfo kKinds[] = {
    {ErrorKind::internal, "internal", 70}, {ErrorKind::verification, "verification", 1}, {ErrorKind::usage, "usage", 2},
    {ErrorKind::no_device, "no_device", 3}, {ErrorKind::resources, "resources", 4},    {ErrorKind::nvml, "nvml", 5},
    {ErrorKind::comm, "comm", 6},           {ErrorKind::io, "io", 7},                  {ErrorKind::cuda, "cuda", 8},
    {ErrorKind::timeout, "timeout", 9}};

// An unknown value reads as internal, the first entry.
const KindInfo& info(ErrorKind kind) noexcept {
  for (const KindInfo& k : kKinds)
    if (k.kind == kind) return k;
  return kKinds[0];
}

}  // namespace

int exit_code(ErrorKind kind) noexcept { return info(kind).exit_code; }

const char* to_string(ErrorKind kind) noexcept { return info(kind).name; }

}  // namespace xb
