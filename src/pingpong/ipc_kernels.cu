#include "pingpong/ipc_kernels.hpp"

#include "machine/cuda_check.hpp"

namespace xb::pingpong {
namespace {

__device__ std::uint64_t global_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void wait_flag_kernel(const volatile std::uint32_t* flag, std::uint32_t target,
                                 std::uint64_t timeout_ns, volatile std::uint32_t* timed_out) {
  // Once one wait has timed out, the rest of the queue drains at once
  // instead of each wait spending its own timeout.
  if (*timed_out != 0) return;
  const std::uint64_t start = global_ns();
  while (static_cast<std::int32_t>(*flag - target) < 0) {
    if (global_ns() - start > timeout_ns) {
      *timed_out = 1;
      __threadfence_system();
      return;
    }
  }
  __threadfence_system();
}

__global__ void signal_flag_kernel(volatile std::uint32_t* flag, std::uint32_t value) {
  __threadfence_system();
  *flag = value;
  __threadfence_system();
}

}  // namespace

void launch_wait_flag(const std::uint32_t* flag, std::uint32_t target, std::uint64_t timeout_ns,
                      std::uint32_t* timed_out, cudaStream_t stream) {
  wait_flag_kernel<<<1, 1, 0, stream>>>(flag, target, timeout_ns, timed_out);
  XB_CUDA_CHECK(cudaGetLastError());
}

void launch_signal_flag(std::uint32_t* flag, std::uint32_t value, cudaStream_t stream) {
  signal_flag_kernel<<<1, 1, 0, stream>>>(flag, value);
  XB_CUDA_CHECK(cudaGetLastError());
}

}  // namespace xb::pingpong
