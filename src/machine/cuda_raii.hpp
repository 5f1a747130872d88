// Move-only RAII owners for CUDA streams, events and small device
// allocations. Each remembers its device so it is destroyed there.
#pragma once

#include <chrono>
#include <string>
#include <thread>
#include <utility>

#include <cuda_runtime_api.h>

#include "machine/cuda_check.hpp"
#include "base/error.hpp"

namespace xb {

namespace detail {
// A CUDA handle destroyed on the device that created it; Stream and Event
// differ only in how they create it.
template <typename Handle, cudaError_t (*destroy)(Handle)>
class DeviceHandle {
 public:
  DeviceHandle() = default;
  ~DeviceHandle() {
    if (h_) {
      XB_CUDA_CHECK_NOTHROW(cudaSetDevice(device_));
      XB_CUDA_CHECK_NOTHROW(destroy(h_));
    }
  }
  DeviceHandle(DeviceHandle&& o) noexcept : device_(o.device_), h_(std::exchange(o.h_, nullptr)) {}
  DeviceHandle& operator=(DeviceHandle&& o) noexcept {
    std::swap(device_, o.device_);
    std::swap(h_, o.h_);
    return *this;
  }
  Handle get() const noexcept { return h_; }
  int device() const noexcept { return device_; }

 protected:
  explicit DeviceHandle(int device) : device_(device) { XB_CUDA_CHECK(cudaSetDevice(device)); }
  int device_ = 0;
  Handle h_ = nullptr;
};
}  // namespace detail

class Stream : public detail::DeviceHandle<cudaStream_t, cudaStreamDestroy> {
 public:
  Stream() = default;
  explicit Stream(int device) : DeviceHandle(device) {
    XB_CUDA_CHECK(cudaStreamCreateWithFlags(&h_, cudaStreamNonBlocking));
  }
  // The device's highest stream priority: its kernels' blocks are
  // dispatched before those of streams at the default priority.
  static Stream highest_priority(int device) {
    Stream s;
    s.device_ = device;
    XB_CUDA_CHECK(cudaSetDevice(device));
    int least = 0, greatest = 0;
    XB_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    XB_CUDA_CHECK(cudaStreamCreateWithPriority(&s.h_, cudaStreamNonBlocking, greatest));
    return s;
  }
};

class Event : public detail::DeviceHandle<cudaEvent_t, cudaEventDestroy> {
 public:
  Event() = default;
  // flags: cudaEventDisableTiming for events that only order or poll work.
  explicit Event(int device, unsigned flags = cudaEventDefault) : DeviceHandle(device) {
    XB_CUDA_CHECK(cudaEventCreateWithFlags(&h_, flags));
  }
};

// Milliseconds between two recorded events on the same device.
inline double elapsed_seconds(const Event& a, const Event& b) {
  float ms = 0;
  XB_CUDA_CHECK(cudaEventElapsedTime(&ms, a.get(), b.get()));
  return static_cast<double>(ms) / 1e3;
}

// Polls `stream` until its queued work is done; throws Error(timeout) with
// `what` once `timeout` has passed. Unlike cudaStreamSynchronize, this lets
// a caller whose stream waits on another process (a flag, an NCCL receive)
// give up on it.
inline void wait_stream(cudaStream_t stream, std::chrono::duration<double> timeout, const std::string& what) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::nanoseconds>(timeout);
  while (true) {
    const cudaError_t st = cudaStreamQuery(stream);
    if (st == cudaSuccess) return;
    if (st != cudaErrorNotReady) XB_CUDA_CHECK(st);
    if (std::chrono::steady_clock::now() > deadline) fail(ErrorKind::timeout, what);
    std::this_thread::yield();
  }
}

template <typename T>
class DeviceValue {
 public:
  explicit DeviceValue(int device) : device_(device) {
    XB_CUDA_CHECK(cudaSetDevice(device));
    XB_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&p_), sizeof(T)));
  }
  ~DeviceValue() {
    XB_CUDA_CHECK_NOTHROW(cudaSetDevice(device_));
    XB_CUDA_CHECK_NOTHROW(cudaFree(p_));
  }
  DeviceValue(const DeviceValue&) = delete;
  DeviceValue& operator=(const DeviceValue&) = delete;
  T* get() const noexcept { return p_; }

 private:
  int device_;
  T* p_ = nullptr;
};

}  // namespace xb
