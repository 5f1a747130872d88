#include "measure/dedicated_engines.hpp"

#include <fmt/format.h>

#include "machine/cuda_check.hpp"
#include "machine/cuda_raii.hpp"
#include "base/error.hpp"
#include "kernels/kernels.hpp"

namespace xb {
namespace {

// Any value will do as long as the compiler cannot know it.
constexpr unsigned long long kReadSentinel = 0x0ddba11cafef00dull;

unsigned long long device_read(const DeviceValue<unsigned long long>& v) {
  unsigned long long h = 0;
  XB_CUDA_CHECK(cudaMemcpy(&h, v.get(), sizeof(h), cudaMemcpyDeviceToHost));
  return h;
}

Verification verify_read(Buffer& src, std::uint64_t bytes, const SmCopyConfig& cfg, int sm_count, int device) {
  DeviceValue<unsigned long long> got(device), want(device);
  XB_CUDA_CHECK(cudaMemset(got.get(), 0, sizeof(unsigned long long)));
  XB_CUDA_CHECK(cudaMemset(want.get(), 0, sizeof(unsigned long long)));
  launch_read_only(src.kernel_ptr(), bytes, cfg, sm_count, true, got.get(), 0, nullptr);
  launch_pattern_checksum(bytes, src.seed(), want.get(), nullptr);
  XB_CUDA_CHECK(cudaStreamSynchronize(nullptr));
  Verification v;
  v.status = device_read(got) == device_read(want) ? Verification::Status::passed : Verification::Status::failed;
  return v;
}

Verification verify_written(Buffer& dst, std::uint64_t bytes, int device) {
  DeviceValue<unsigned long long> first_bad(device);
  XB_CUDA_CHECK(cudaMemset(first_bad.get(), 0xff, sizeof(unsigned long long)));
  launch_verify_written(dst.kernel_ptr(), bytes, write_base(dst), first_bad.get(), nullptr);
  XB_CUDA_CHECK(cudaStreamSynchronize(nullptr));
  const unsigned long long bad = device_read(first_bad);
  dst.set_content_seed(0);  // it holds the written words, no seeded pattern
  Verification v;
  v.status = bad == ~0ull ? Verification::Status::passed : Verification::Status::failed;
  v.first_bad_offset = bad == ~0ull ? bytes : bad;
  return v;
}

}  // namespace

SmCopyConfig dedicated_config(Engine e, const SmCopyConfig& user, SmCopySite site) {
  if (e == Engine::tma) {
    if (user.method == SmCopyConfig::Method::bulk) return user;
    site.cc_major = 9;  // asks for the bulk kernel; a GPU without a TMA is refused when launched
    SmCopyConfig c = choose_sm_config(SmCopyConfig{}, site);
    site.nvlink_peer = true;  // the smaller chunks of the NVLink shape, when two 32 KiB blocks do not fit
    if (c.method != SmCopyConfig::Method::bulk) c = choose_sm_config(SmCopyConfig{}, site);
    if (c.method != SmCopyConfig::Method::bulk)
      fail(ErrorKind::usage, fmt::format("TMA copy: no bulk chunk of 16 KiB or more fits {} KiB of shared memory per SM "
                                         "for {} concurrent copies", site.shared_memory_per_sm_kib, site.sm_copies_on_gpu));
    return c;
  }
  if (e == Engine::sm_read && !sm_config_given(user)) {
    // Bulk reads: 185 GB/s from one H200 SM, where vector loads reach 74
    // (bench/results/2026-11-25-h200-sm-shapes), and 95% of HBM from 48 SMs.
    site.nvlink_peer = false;
    const SmCopyConfig c = choose_sm_config(user, site);
    if (c.method == SmCopyConfig::Method::bulk) return c;
  }
  if (user.method == SmCopyConfig::Method::bulk) return SmCopyConfig{};
  return user;
}

std::uint32_t write_base(const Buffer& dst) noexcept {
  return static_cast<std::uint32_t>(dst.seed() * 0x9E3779B97F4A7C15ull >> 32) | 1u;
}

void enqueue_dedicated(Engine e, Buffer* src, Buffer* dst, std::uint64_t bytes, const SmCopyConfig& cfg, int sm_count,
                  cudaStream_t stream, int reps, unsigned long long* sink) {
  switch (e) {
    case Engine::tma: launch_tma_copy(dst->kernel_ptr(), src->kernel_ptr(), bytes, cfg, sm_count, stream, reps); return;
    case Engine::sm_read:
      launch_read_only(src->kernel_ptr(), bytes, cfg, sm_count, false, sink, kReadSentinel, stream, reps);
      return;
    case Engine::sm_write: launch_write_only(dst->kernel_ptr(), bytes, write_base(*dst), cfg, sm_count, stream, reps); return;
    default: fail(ErrorKind::internal, "enqueue_dedicated: not a v0.10 engine");
  }
}

void prepare_dedicated(Engine e, Buffer* dst, int device) {
  // The buffer's own seeded pattern differs from base ^ index in almost
  // every word, so stale written words cannot pass the check.
  if (e == Engine::sm_write && dst->content_seed() != dst->seed()) fill_buffer(*dst, dst->bytes(), dst->seed(), device);
}

Verification verify_dedicated(Engine e, Buffer* src, Buffer* dst, std::uint64_t bytes, const SmCopyConfig& cfg,
                         int sm_count, int device) {
  XB_CUDA_CHECK(cudaSetDevice(device));
  if (e == Engine::sm_write) return verify_written(*dst, bytes, device);
  if (e != Engine::sm_read) fail(ErrorKind::internal, "verify_dedicated: a TMA copy is verified as any copy");
  return verify_read(*src, bytes, cfg, sm_count, device);
}

}  // namespace xb
