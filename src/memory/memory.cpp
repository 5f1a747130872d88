#include "memory/memory.hpp"

#include <numa.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "machine/cuda_check.hpp"
#include "base/error.hpp"
#include "machine/hugepages.hpp"
#include "kernels/kernels.hpp"
#include "base/pattern.hpp"
#include "base/units.hpp"

namespace xb {
namespace {

[[noreturn]] void out_of_memory(const Location& loc, std::uint64_t bytes, const std::string& why) {
  std::string free_note;
  if (!loc.on_host()) {
    std::size_t free_b = 0, total_b = 0;
    if (cudaSetDevice(loc.device) == cudaSuccess && cudaMemGetInfo(&free_b, &total_b) == cudaSuccess)
      free_note = fmt::format(" ({} free of {})", bytes_label(free_b / (1 << 20) << 20),
                              bytes_label(total_b / (1 << 20) << 20));
  }
  (void)cudaGetLastError();
  fail(ErrorKind::resources, fmt::format("cannot allocate {} of {} memory on {}{}: {}", bytes_label(bytes),
                                         to_string(loc.kind), location_label(loc), free_note, why));
}

void check_alloc(cudaError_t err, const Location& loc, std::uint64_t bytes) {
  if (err == cudaSuccess) return;
  (void)cudaGetLastError();
  if (err == cudaErrorMemoryAllocation) out_of_memory(loc, bytes, cudaGetErrorName(err));
  ::xb::detail::throw_cuda_error(err, "allocation", __FILE__, __LINE__);
}

// Host memory from libnuma is placed on the node (bound), page-aligned, and
// faulted in here unless the caller leaves that to the first use (FaultIn).
void* numa_host_alloc(std::uint64_t bytes, int node, FaultIn fault_in) {
  void* p = node >= 0 && numa_available() >= 0 ? numa_alloc_onnode(bytes, node) : numa_alloc_local(bytes);
  if (p && fault_in == FaultIn::at_allocation) std::memset(p, 0, bytes);
  return p;
}

// Atomic: the ranks of an in-process run allocate from several threads.
std::uint64_t next_seed() {
  static std::atomic<std::uint64_t> counter{0x5eed};
  return ++counter;
}

}  // namespace

Buffer::Buffer(const Location& loc, std::uint64_t bytes, FaultIn fault_in)
    : loc_(loc), bytes_(bytes), seed_(next_seed()) {
  if (bytes == 0) fail(ErrorKind::usage, "buffer size must be greater than zero");
  if (loc.on_host()) {
    allocate_host(fault_in);
    return;
  }
  if (loc.kind == MemKind::managed) {
    // Managed memory starts where the location says: on its GPU, or on the
    // host when no GPU owns it (device < 0).
    XB_CUDA_CHECK(cudaSetDevice(loc.device >= 0 ? loc.device : 0));
    check_alloc(cudaMallocManaged(&ptr_, bytes), loc, bytes);
    XB_CUDA_CHECK(cudaMemPrefetchAsync(ptr_, bytes, prefetch_location(loc.device), 0, nullptr));
    XB_CUDA_CHECK(cudaDeviceSynchronize());
    kernel_ptr_ = ptr_;
    return;
  }
  XB_CUDA_CHECK(cudaSetDevice(loc.device));
  check_alloc(cudaMalloc(&ptr_, bytes), loc, bytes);
  kernel_ptr_ = ptr_;
}

void Buffer::allocate_host(FaultIn fault_in) {
  switch (loc_.kind) {
    case MemKind::pinned:
    case MemKind::pageable: {
      ptr_ = numa_host_alloc(bytes_, loc_.numa, fault_in);
      if (!ptr_) out_of_memory(loc_, bytes_, "numa_alloc failed");
      numa_allocated_ = true;
      if (loc_.kind == MemKind::pinned) {
        const cudaError_t err = cudaHostRegister(ptr_, bytes_, cudaHostRegisterPortable | cudaHostRegisterMapped);
        if (err != cudaSuccess) {
          numa_free(ptr_, bytes_);
          ptr_ = nullptr;
          check_alloc(err == cudaErrorHostMemoryAlreadyRegistered ? err : cudaErrorMemoryAllocation, loc_, bytes_);
        }
        XB_CUDA_CHECK(cudaHostGetDevicePointer(&kernel_ptr_, ptr_, 0));
      }
      return;
    }
    case MemKind::write_combined:
    case MemKind::mapped: {
      // cudaHostAlloc takes no node: prefer the node while it faults pages in.
      if (loc_.numa >= 0 && numa_available() >= 0) numa_set_preferred(loc_.numa);
      unsigned flags = cudaHostAllocPortable | cudaHostAllocMapped;
      if (loc_.kind == MemKind::write_combined) flags |= cudaHostAllocWriteCombined;
      const cudaError_t err = cudaHostAlloc(&ptr_, bytes_, flags);
      if (loc_.numa >= 0 && numa_available() >= 0) numa_set_localalloc();
      check_alloc(err, loc_, bytes_);
      XB_CUDA_CHECK(cudaHostGetDevicePointer(&kernel_ptr_, ptr_, 0));
      return;
    }
    case MemKind::hugepages: allocate_hugepages(); return;
    default: fail(ErrorKind::internal, "not a host memory kind");
  }
}

void Buffer::allocate_hugepages() {
  ptr_ = map_hugepages(bytes_, loc_.numa);
  page_bytes_ = kernel_page_bytes(ptr_);
  if (page_bytes_ != kHugePageBytes) {
    unmap_hugepages(ptr_, bytes_);
    ptr_ = nullptr;
    fail(ErrorKind::resources, fmt::format("huge-page mapping of {} on {} has {}-byte pages per /proc/self/smaps, "
                                           "not 2 MiB", bytes_label(bytes_), location_label(loc_), page_bytes_));
  }
  const cudaError_t err = cudaHostRegister(ptr_, hugepages_for(bytes_) * kHugePageBytes,
                                           cudaHostRegisterPortable | cudaHostRegisterMapped);
  if (err != cudaSuccess) {
    unmap_hugepages(ptr_, bytes_);
    ptr_ = nullptr;
    check_alloc(err == cudaErrorHostMemoryAlreadyRegistered ? err : cudaErrorMemoryAllocation, loc_, bytes_);
  }
  XB_CUDA_CHECK(cudaHostGetDevicePointer(&kernel_ptr_, ptr_, 0));
}

Buffer::~Buffer() { release(); }

Buffer::Buffer(Buffer&& other) noexcept { *this = std::move(other); }

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    release();
    loc_ = other.loc_;
    bytes_ = other.bytes_;
    ptr_ = std::exchange(other.ptr_, nullptr);
    kernel_ptr_ = std::exchange(other.kernel_ptr_, nullptr);
    numa_allocated_ = other.numa_allocated_;
    page_bytes_ = other.page_bytes_;
    seed_ = other.seed_;
    content_seed_ = other.content_seed_;
  }
  return *this;
}

void Buffer::release() noexcept {
  if (!ptr_) return;
  if (page_bytes_ > 0) {
    XB_CUDA_CHECK_NOTHROW(cudaHostUnregister(ptr_));
    unmap_hugepages(ptr_, bytes_);
  } else if (numa_allocated_) {
    if (loc_.kind == MemKind::pinned) XB_CUDA_CHECK_NOTHROW(cudaHostUnregister(ptr_));
    numa_free(ptr_, bytes_);
  } else if (loc_.on_host()) {
    XB_CUDA_CHECK_NOTHROW(cudaFreeHost(ptr_));
  } else {
    XB_CUDA_CHECK_NOTHROW(cudaFree(ptr_));
  }
  ptr_ = kernel_ptr_ = nullptr;
}

void fill_buffer(Buffer& buf, std::uint64_t bytes, std::uint64_t seed, int device) {
  if (buf.kernel_ptr()) {
    XB_CUDA_CHECK(cudaSetDevice(device));
    launch_fill_pattern(buf.kernel_ptr(), bytes, seed, nullptr);
    XB_CUDA_CHECK(cudaStreamSynchronize(nullptr));
  } else {
    fill_pattern_host(buf.ptr(), bytes, seed);
  }
  buf.set_content_seed(bytes == buf.bytes() ? seed : 0);
}

std::uint64_t verify_buffer(const Buffer& buf, std::uint64_t bytes, std::uint64_t seed, int device) {
  if (!buf.kernel_ptr()) return verify_pattern_host(buf.ptr(), bytes, seed);
  XB_CUDA_CHECK(cudaSetDevice(device));
  unsigned long long* first_bad = nullptr;
  XB_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&first_bad), sizeof(*first_bad)));
  *first_bad = ~0ull;
  launch_verify_pattern(buf.kernel_ptr(), bytes, seed, first_bad, nullptr);
  const cudaError_t err = cudaStreamSynchronize(nullptr);
  const unsigned long long result = *first_bad;
  XB_CUDA_CHECK_NOTHROW(cudaFreeHost(first_bad));
  XB_CUDA_CHECK(err);
  return result == ~0ull ? bytes : result;
}

void fill_bytes(Buffer& buf, std::uint64_t bytes, unsigned char value) {
  buf.set_content_seed(0);
  if (buf.location().on_host()) {
    std::memset(buf.ptr(), value, bytes);
    return;
  }
  XB_CUDA_CHECK(cudaSetDevice(buf.location().device >= 0 ? buf.location().device : 0));
  XB_CUDA_CHECK(cudaMemset(buf.ptr(), value, bytes));
  XB_CUDA_CHECK(cudaStreamSynchronize(nullptr));
}

void copy_to_host(const Buffer& buf, void* out, std::uint64_t bytes) {
  if (buf.location().on_host()) {
    std::memcpy(out, buf.ptr(), bytes);
    return;
  }
  XB_CUDA_CHECK(cudaMemcpy(out, buf.ptr(), bytes, cudaMemcpyDefault));
}

std::unique_ptr<Buffer> allocate_buffer(const Location& loc, std::uint64_t bytes) {
  return std::make_unique<Buffer>(loc, bytes);
}

void fill_pattern_host(void* buf, std::uint64_t bytes, std::uint64_t seed) {
  auto* words = static_cast<std::uint32_t*>(buf);
  const std::uint64_t n = bytes / 4;
  for (std::uint64_t i = 0; i < n; ++i) words[i] = pattern_word(seed, i);
  auto* b = static_cast<std::uint8_t*>(buf);
  for (std::uint64_t o = n * 4; o < bytes; ++o) b[o] = pattern_byte(seed, o);
}

std::uint64_t verify_pattern_host(const void* buf, std::uint64_t bytes, std::uint64_t seed) {
  const auto* b = static_cast<const std::uint8_t*>(buf);
  const auto* words = static_cast<const std::uint32_t*>(buf);
  const std::uint64_t n = bytes / 4;
  for (std::uint64_t i = 0; i < n; ++i) {
    if (words[i] != pattern_word(seed, i)) {
      for (std::uint64_t o = i * 4;; ++o)
        if (b[o] != pattern_byte(seed, o)) return o;
    }
  }
  for (std::uint64_t o = n * 4; o < bytes; ++o)
    if (b[o] != pattern_byte(seed, o)) return o;
  return bytes;
}

}  // namespace xb
