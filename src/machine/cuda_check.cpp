#include "machine/cuda_check.hpp"

#include <atomic>
#include <cstring>

#include <fmt/format.h>

#include "base/error.hpp"

namespace xb::detail {
namespace {

const char* base_name(const char* path) {
  const char* slash = std::strrchr(path, '/');
  return slash ? slash + 1 : path;
}

ErrorKind classify(cudaError_t err) {
  switch (err) {
    case cudaErrorMemoryAllocation: return ErrorKind::resources;
    case cudaErrorNoDevice:
    case cudaErrorInvalidDevice: return ErrorKind::no_device;
    default: return ErrorKind::cuda;
  }
}

}  // namespace

void throw_cuda_error(cudaError_t err, const char* expr, const char* file, int line) {
  if (err == cudaErrorInsufficientDriver)
    throw Error(ErrorKind::no_device, fmt::format("{} (in {} at {}:{})", no_gpu_message(err), expr, base_name(file), line));
  throw Error(classify(err), fmt::format("{} ({}) in {} at {}:{}", cudaGetErrorName(err),
                                         cudaGetErrorString(err), expr, base_name(file), line));
}

namespace {
// Destructors cannot throw, so the first error they see is kept here.
char g_deferred[512];
std::atomic<bool> g_has_deferred{false};
}  // namespace

void report_cuda_error_nothrow(cudaError_t err, const char* expr, const char* file, int line) noexcept {
  bool expected = false;
  if (!g_has_deferred.compare_exchange_strong(expected, true)) return;
  fmt::format_to_n(g_deferred, sizeof(g_deferred) - 1, "{} in {} at {}:{}", cudaGetErrorName(err), expr,
                   base_name(file), line);
}

}  // namespace xb::detail

namespace xb {

std::string no_gpu_message(cudaError_t err) {
  int driver = 0;
  int runtime = 0;
  // cudaDriverGetVersion gives 0 when no driver is installed.
  if (cudaDriverGetVersion(&driver) != cudaSuccess || driver == 0)
    return fmt::format("no NVIDIA driver or GPU found: the NVIDIA driver (libcuda.so.1) is not installed or cannot "
                       "be loaded ({})", cudaGetErrorName(err));
  if (err == cudaErrorInsufficientDriver && cudaRuntimeGetVersion(&runtime) == cudaSuccess)
    return fmt::format("the NVIDIA driver supports CUDA {}.{}, older than the CUDA {}.{} runtime xferbench is built "
                       "with: update the driver ({})", driver / 1000, driver % 1000 / 10, runtime / 1000,
                       runtime % 1000 / 10, cudaGetErrorName(err));
  return fmt::format("no CUDA GPU found ({}: {})", cudaGetErrorName(err), cudaGetErrorString(err));
}

const char* deferred_cuda_error() noexcept {
  return detail::g_has_deferred.load() ? detail::g_deferred : "";
}
}  // namespace xb
