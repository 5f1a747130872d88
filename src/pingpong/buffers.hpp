// Move-only buffers and CUDA handles for the process-to-process
// transports. Host-only C++; the CUDA runtime is called only when a GPU
// buffer, pinned buffer, stream or event is actually made.
#pragma once

#include <cstddef>
#include <vector>

#include <cuda_runtime_api.h>

#include "comm/communicator.hpp"

namespace xb::pingpong {

// Number of CUDA devices, 0 when there is no GPU or no usable driver.
int device_count_or_zero() noexcept;

enum class BufferKind { host, pinned, device };

class Buffer {
 public:
  Buffer() = default;
  // device: cudaMalloc on `device`; pinned: cudaHostAlloc; host: page-aligned.
  Buffer(BufferKind kind, std::size_t bytes, int device = -1);
  ~Buffer();
  Buffer(Buffer&& other) noexcept;
  Buffer& operator=(Buffer&& other) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  void* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return bytes_; }
  BufferKind kind() const noexcept { return kind_; }

  void upload(const void* host, std::size_t bytes);            // host -> buffer
  void download(void* host, std::size_t bytes) const;          // buffer -> host
  void fill_byte(unsigned char value, std::size_t bytes);

 private:
  void release() noexcept;
  BufferKind kind_ = BufferKind::host;
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
  int device_ = -1;
};

class Stream {
 public:
  explicit Stream(int device);
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const noexcept { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

// Polls the stream until its work is done or `timeout` passes; throws
// Error(timeout) with `what` (naming the peer) in the second case. Polling
// instead of cudaStreamSynchronize is what lets a rank give up.
void wait_stream(cudaStream_t stream, comm::Seconds timeout, const std::string& what);

// Events recorded between the repetitions queued on one stream, so each
// repetition is timed on the GPU without a host round trip between them.
class EventTimeline {
 public:
  EventTimeline() = default;
  ~EventTimeline();
  EventTimeline(const EventTimeline&) = delete;
  EventTimeline& operator=(const EventTimeline&) = delete;
  void reserve(std::size_t count);  // creates events as needed
  void record(std::size_t index, cudaStream_t stream);
  // Seconds between consecutive events 0..count (after the stream is done).
  std::vector<double> intervals(std::size_t count) const;

 private:
  std::vector<cudaEvent_t> events_;
};

// Before a size: the outgoing buffer gets the seeded pattern, the incoming
// one a filler the pattern never equals, so verification sees real data.
void load_pattern(Buffer& send, Buffer& recv, std::size_t bytes, std::uint64_t seed);

}  // namespace xb::pingpong
