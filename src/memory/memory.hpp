// Memory kinds as RAII, move-only allocators. A Buffer knows where it lives
// and gives a pointer for copy-engine copies (`ptr`) and one usable inside
// kernels (`kernel_ptr`, null when the GPU cannot reach the memory).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <cuda_runtime_api.h>

#include "memory/buffer_pool.hpp"
#include "base/model.hpp"

namespace xb {

// When a pageable buffer's pages are faulted in: at allocation, so the first
// timed copy does not pay for page faults, or by whoever touches them first
// (what first-touch measures). Page-locked kinds are faulted in by locking.
enum class FaultIn { at_allocation, on_first_use };

class Buffer {
 public:
  Buffer() = default;  // owns nothing, like a moved-from buffer
  // Allocates `bytes` at `loc` (loc.numa must already be resolved to a node,
  // or kNoNumaPlacement). Throws Error(resources) naming the location and the
  // free memory when the allocation cannot be satisfied.
  Buffer(const Location& loc, std::uint64_t bytes, FaultIn fault_in = FaultIn::at_allocation);
  ~Buffer();
  Buffer(Buffer&& other) noexcept;
  Buffer& operator=(Buffer&& other) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  void* ptr() const noexcept { return ptr_; }
  void* kernel_ptr() const noexcept { return kernel_ptr_; }
  std::uint64_t bytes() const noexcept { return bytes_; }
  const Location& location() const noexcept { return loc_; }
  // Page size of a huge-page host buffer as the kernel reports it after the
  // pages were faulted in (/proc/self/smaps); 0 for other kinds.
  std::uint64_t page_bytes() const noexcept { return page_bytes_; }

  // Pattern bookkeeping so cached buffers are not refilled needlessly: every
  // buffer has its own seed; content_seed() is the pattern it holds now
  // (0 = unknown).
  std::uint64_t seed() const noexcept { return seed_; }
  std::uint64_t content_seed() const noexcept { return content_seed_; }
  void set_content_seed(std::uint64_t s) noexcept { content_seed_ = s; }

 private:
  void release() noexcept;
  void allocate_host(FaultIn fault_in);
  void allocate_hugepages();
  Location loc_;
  std::uint64_t bytes_ = 0;
  void* ptr_ = nullptr;
  void* kernel_ptr_ = nullptr;
  bool numa_allocated_ = false;  // numa_alloc_* (+ cudaHostRegister for pinned)
  std::uint64_t page_bytes_ = 0;  // hugepages: mapped with map_hugepages, then registered
  std::uint64_t seed_ = 0;
  std::uint64_t content_seed_ = 0;
};

// Fills `buf` with pattern(seed): on the GPU `device` when it can reach the
// memory, on the CPU otherwise. Synchronous.
void fill_buffer(Buffer& buf, std::uint64_t bytes, std::uint64_t seed, int device);
// Returns the first differing byte offset, or `bytes` when all match.
std::uint64_t verify_buffer(const Buffer& buf, std::uint64_t bytes, std::uint64_t seed, int device);
// Sets the first `bytes` of `buf` to `value` (a filler, or zeroed flags). Synchronous.
void fill_bytes(Buffer& buf, std::uint64_t bytes, unsigned char value);
// Copies the first `bytes` of `buf` to host memory at `out`. Synchronous.
void copy_to_host(const Buffer& buf, void* out, std::uint64_t bytes);

// Where cudaMemPrefetchAsync moves managed pages: GPU `device`, or the host for device < 0.
inline cudaMemLocation prefetch_location(int device) {
  return device >= 0 ? cudaMemLocation{cudaMemLocationTypeDevice, device}
                     : cudaMemLocation{cudaMemLocationTypeHost, 0};
}

// The pool of real buffers (buffer_pool.hpp); allocate_buffer is its allocator.
using BufferPool = BasicBufferPool<Buffer>;
std::unique_ptr<Buffer> allocate_buffer(const Location& loc, std::uint64_t bytes);

}  // namespace xb
