// One CUDA-check macro: it stringifies the call and hands off to an
// out-of-line function that throws xb::Error(cuda) with the error name,
// the call and file:line. XB_CUDA_CHECK_NOTHROW is for destructors.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

namespace xb {
// Why there is no usable GPU, in words a user can act on, for an error of
// cudaGetDeviceCount or the first CUDA call. Without the NVIDIA driver
// (libcuda absent) the runtime reports cudaErrorInsufficientDriver, "CUDA
// driver version is insufficient", which would send users to upgrade a
// driver they do not have; this says "no NVIDIA driver or GPU found".
std::string no_gpu_message(cudaError_t err);
}  // namespace xb

namespace xb::detail {
[[noreturn]] void throw_cuda_error(cudaError_t err, const char* expr, const char* file, int line);
void report_cuda_error_nothrow(cudaError_t err, const char* expr, const char* file, int line) noexcept;
}  // namespace xb::detail

namespace xb {
// The first error seen by XB_CUDA_CHECK_NOTHROW (in a destructor), or an
// empty string; main() prints it as a warning before exiting.
const char* deferred_cuda_error() noexcept;
}  // namespace xb

// The call is stringified here, before its macros (cudaStreamNonBlocking)
// would be expanded by passing it on.
#define XB_CUDA_CHECK(expr) XB_CUDA_CHECK_WITH_(expr, #expr, throw_cuda_error)
#define XB_CUDA_CHECK_NOTHROW(expr) XB_CUDA_CHECK_WITH_(expr, #expr, report_cuda_error_nothrow)
#define XB_CUDA_CHECK_WITH_(expr, text, handler)                             \
  do {                                                                       \
    const cudaError_t xb_err_ = (expr);                                      \
    if (xb_err_ != cudaSuccess) ::xb::detail::handler(xb_err_, text, __FILE__, __LINE__); \
  } while (0)
