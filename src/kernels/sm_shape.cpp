#include "kernels/sm_shape.hpp"

#include <algorithm>

namespace xb {

bool sm_config_given(const SmCopyConfig& c) noexcept {
  return c.method != SmCopyConfig::Method::vector || c.blocks_per_sm > 0 || c.threads > 0 || c.unroll > 0 ||
         c.streaming || c.l2_256b || c.l2_only || c.chunk_kib > 0 || c.stages > 0;
}

SmCopyConfig nvbandwidth_sm_config() {
  SmCopyConfig c;
  c.blocks_per_sm = 1;
  c.threads = 512;
  c.unroll = 12;
  return c;
}

SmCopyConfig choose_sm_config(const SmCopyConfig& user, const SmCopySite& site) {
  if (user.method == SmCopyConfig::Method::bulk) return user;
  if (!sm_config_given(user) && site.nvbandwidth_kernel) return nvbandwidth_sm_config();
  if (!sm_config_given(user) && site.cc_major >= 9 && !site.migrating) {
    constexpr int kReservedKib = 1;
    const int copies = std::max(1, site.sm_copies_on_gpu);
    const int stages = site.to_host ? 4 : 3;
    const auto fits = [&](int chunk_kib, int per_sm) {
      return copies * per_sm * (stages * chunk_kib + kReservedKib) <= site.shared_memory_per_sm_kib;
    };
    // NVLink: 64, 32 or 16 KiB, one block per SM; GPU -> host 16 KiB, two; else 32 KiB, two.
    const int per_sm = site.nvlink_peer ? 1 : 2, largest = site.nvlink_peer ? 64 : site.to_host ? 16 : 32;
    for (int chunk_kib = largest, smallest = site.nvlink_peer ? 16 : largest; chunk_kib >= smallest; chunk_kib /= 2) {
      if (!fits(chunk_kib, per_sm)) continue;
      SmCopyConfig c;
      c.method = SmCopyConfig::Method::bulk;
      c.chunk_kib = chunk_kib;
      c.stages = stages;
      c.blocks_per_sm = per_sm;
      return c;
    }
  }
  SmCopyConfig c;
  c.blocks_per_sm = user.blocks_per_sm > 0 ? user.blocks_per_sm : 1;
  c.threads = user.threads > 0 ? user.threads : 512;
  c.unroll = user.unroll > 0 ? user.unroll : 4;
  c.streaming = user.streaming;
  c.l2_256b = user.l2_256b;
  c.l2_only = user.l2_only;
  return c;
}

}  // namespace xb
