#include "pingpong/buffers.hpp"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "machine/cuda_check.hpp"
#include "pingpong/pattern.hpp"
#include "base/error.hpp"

namespace xb::pingpong {

int device_count_or_zero() noexcept {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no device" error
    return 0;
  }
  return n;
}

Buffer::Buffer(BufferKind kind, std::size_t bytes, int device) : kind_(kind), bytes_(bytes), device_(device) {
  const std::size_t alloc = bytes == 0 ? 1 : bytes;
  switch (kind) {
    case BufferKind::host: {
      constexpr std::size_t page = 4096;
      data_ = std::aligned_alloc(page, (alloc + page - 1) / page * page);
      if (data_ == nullptr) fail(ErrorKind::resources, fmt::format("cannot allocate {} bytes of host memory", bytes));
      break;
    }
    case BufferKind::pinned:
      XB_CUDA_CHECK(cudaHostAlloc(&data_, alloc, cudaHostAllocPortable));
      break;
    case BufferKind::device:
      XB_CUDA_CHECK(cudaSetDevice(device));
      XB_CUDA_CHECK(cudaMalloc(&data_, alloc));
      break;
  }
}

Buffer::~Buffer() { release(); }

Buffer::Buffer(Buffer&& other) noexcept
    : kind_(other.kind_), data_(other.data_), bytes_(other.bytes_), device_(other.device_) {
  other.data_ = nullptr;
}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    release();
    kind_ = other.kind_;
    data_ = other.data_;
    bytes_ = other.bytes_;
    device_ = other.device_;
    other.data_ = nullptr;
  }
  return *this;
}

void Buffer::release() noexcept {
  if (data_ == nullptr) return;
  switch (kind_) {
    case BufferKind::host: std::free(data_); break;
    case BufferKind::pinned: XB_CUDA_CHECK_NOTHROW(cudaFreeHost(data_)); break;
    case BufferKind::device: XB_CUDA_CHECK_NOTHROW(cudaFree(data_)); break;
  }
  data_ = nullptr;
}

void Buffer::upload(const void* host, std::size_t bytes) {
  if (kind_ == BufferKind::device) {
    XB_CUDA_CHECK(cudaMemcpy(data_, host, bytes, cudaMemcpyHostToDevice));
  } else {
    std::memcpy(data_, host, bytes);
  }
}

void Buffer::download(void* host, std::size_t bytes) const {
  if (kind_ == BufferKind::device) {
    XB_CUDA_CHECK(cudaMemcpy(host, data_, bytes, cudaMemcpyDeviceToHost));
  } else {
    std::memcpy(host, data_, bytes);
  }
}

void Buffer::fill_byte(unsigned char value, std::size_t bytes) {
  if (kind_ == BufferKind::device) {
    XB_CUDA_CHECK(cudaMemset(data_, value, bytes));
  } else {
    std::memset(data_, value, bytes);
  }
}

Stream::Stream(int device) {
  XB_CUDA_CHECK(cudaSetDevice(device));
  XB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
}

Stream::~Stream() {
  if (stream_ != nullptr) XB_CUDA_CHECK_NOTHROW(cudaStreamDestroy(stream_));
}

void wait_stream(cudaStream_t stream, comm::Seconds timeout, const std::string& what) {
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

EventTimeline::~EventTimeline() {
  for (auto e : events_) XB_CUDA_CHECK_NOTHROW(cudaEventDestroy(e));
}

void EventTimeline::reserve(std::size_t count) {
  while (events_.size() < count) {
    cudaEvent_t e = nullptr;
    XB_CUDA_CHECK(cudaEventCreate(&e));
    events_.push_back(e);
  }
}

void EventTimeline::record(std::size_t index, cudaStream_t stream) {
  XB_CUDA_CHECK(cudaEventRecord(events_.at(index), stream));
}

std::vector<double> EventTimeline::intervals(std::size_t count) const {
  std::vector<double> out;
  for (std::size_t i = 0; i < count; ++i) {
    float ms = 0;
    XB_CUDA_CHECK(cudaEventElapsedTime(&ms, events_.at(i), events_.at(i + 1)));
    out.push_back(static_cast<double>(ms) * 1e-3);
  }
  return out;
}

void load_pattern(Buffer& send, Buffer& recv, std::size_t bytes, std::uint64_t seed) {
  std::vector<unsigned char> host(bytes);
  fill_pattern(host.data(), bytes, seed);
  send.upload(host.data(), bytes);
  recv.fill_byte(0xA5, bytes);
}

}  // namespace xb::pingpong
