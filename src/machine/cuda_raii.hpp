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

class Stream {
 public:
  Stream() = default;
  explicit Stream(int device) : device_(device) {
    XB_CUDA_CHECK(cudaSetDevice(device));
    XB_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking));
  }
  ~Stream() {
    if (s_) {
      XB_CUDA_CHECK_NOTHROW(cudaSetDevice(device_));
      XB_CUDA_CHECK_NOTHROW(cudaStreamDestroy(s_));
    }
  }
  Stream(Stream&& o) noexcept : device_(o.device_), s_(std::exchange(o.s_, nullptr)) {}
  Stream& operator=(Stream&& o) noexcept {
    std::swap(device_, o.device_);
    std::swap(s_, o.s_);
    return *this;
  }
  cudaStream_t get() const noexcept { return s_; }
  int device() const noexcept { return device_; }

 private:
  int device_ = 0;
  cudaStream_t s_ = nullptr;
};

class Event {
 public:
  Event() = default;
  // flags: cudaEventDisableTiming for events that only order or poll work.
  explicit Event(int device, unsigned flags = cudaEventDefault) : device_(device) {
    XB_CUDA_CHECK(cudaSetDevice(device));
    XB_CUDA_CHECK(cudaEventCreateWithFlags(&e_, flags));
  }
  ~Event() {
    if (e_) {
      XB_CUDA_CHECK_NOTHROW(cudaSetDevice(device_));
      XB_CUDA_CHECK_NOTHROW(cudaEventDestroy(e_));
    }
  }
  Event(Event&& o) noexcept : device_(o.device_), e_(std::exchange(o.e_, nullptr)) {}
  Event& operator=(Event&& o) noexcept {
    std::swap(device_, o.device_);
    std::swap(e_, o.e_);
    return *this;
  }
  cudaEvent_t get() const noexcept { return e_; }

 private:
  int device_ = 0;
  cudaEvent_t e_ = nullptr;
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
