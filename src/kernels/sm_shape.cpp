#include "kernels/sm_shape.hpp"

#include <algorithm>

namespace xb {

bool sm_config_given(const SmCopyConfig& c) noexcept {
  return c.method != SmCopyConfig::Method::vector || c.blocks_per_sm > 0 || c.threads > 0 || c.unroll > 0 ||
         c.streaming || c.l2_256b || c.l2_only || c.chunk_kib > 0 || c.stages > 0;
}

SmCopyConfig choose_sm_config(const SmCopyConfig& user, const SmCopySite& site) {
  if (user.method == SmCopyConfig::Method::bulk) return user;
  if (!sm_config_given(user) && site.nvlink_peer && site.cc_major >= 9) {
    constexpr int kStages = 3, kReservedKib = 1;
    const int copies = std::max(1, site.sm_copies_on_gpu);
    for (const int chunk_kib : {64, 32, 16}) {
      if (copies * (kStages * chunk_kib + kReservedKib) > site.shared_memory_per_sm_kib) continue;
      SmCopyConfig c;
      c.method = SmCopyConfig::Method::bulk;
      c.chunk_kib = chunk_kib;
      c.stages = kStages;
      c.blocks_per_sm = 1;
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
