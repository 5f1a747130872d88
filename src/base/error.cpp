#include "base/error.hpp"

namespace xb {

int exit_code(ErrorKind kind) noexcept {
  switch (kind) {
    case ErrorKind::verification: return 1;
    case ErrorKind::usage: return 2;
    case ErrorKind::no_device: return 3;
    case ErrorKind::resources: return 4;
    case ErrorKind::nvml: return 5;
    case ErrorKind::comm: return 6;
    case ErrorKind::io: return 7;
    case ErrorKind::cuda: return 8;
    case ErrorKind::timeout: return 9;
    case ErrorKind::internal: return 70;
  }
  return 70;
}

const char* to_string(ErrorKind kind) noexcept {
  switch (kind) {
    case ErrorKind::usage: return "usage";
    case ErrorKind::no_device: return "no_device";
    case ErrorKind::resources: return "resources";
    case ErrorKind::nvml: return "nvml";
    case ErrorKind::cuda: return "cuda";
    case ErrorKind::timeout: return "timeout";
    case ErrorKind::verification: return "verification";
    case ErrorKind::comm: return "comm";
    case ErrorKind::io: return "io";
    case ErrorKind::internal: return "internal";
  }
  return "internal";
}

}  // namespace xb
