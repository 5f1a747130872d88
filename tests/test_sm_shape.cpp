// The SM copy kernel a transfer gets by default, and how user choices win.
#include <gtest/gtest.h>

#include "kernels/sm_shape.hpp"

namespace {

using Method = xb::SmCopyConfig::Method;

// An H200: 228 KiB of shared memory per SM.
xb::SmCopySite nvlink_hopper(int copies) { return {true, 9, 228, copies}; }

}  // namespace

TEST(SmShape, NvlinkPeerOnHopperUsesBulkWithChunksThatFitSideBySide) {
  const int expected_kib[] = {64, 64, 32, 16, 16};
  for (int copies = 1; copies <= 4; ++copies) {
    const xb::SmCopyConfig c = xb::choose_sm_config({}, nvlink_hopper(copies));
    EXPECT_EQ(c.method, Method::bulk) << copies;
    EXPECT_EQ(c.chunk_kib, expected_kib[copies]) << copies;
    EXPECT_EQ(c.stages, 3);
    EXPECT_EQ(c.blocks_per_sm, 1);
    // Every concurrent copy's block (plus 1 KiB reserved) fits in one SM.
    EXPECT_LE(copies * (c.stages * c.chunk_kib + 1), 228) << copies;
  }
  EXPECT_EQ(xb::choose_sm_config({}, nvlink_hopper(5)).method, Method::vector);
}

TEST(SmShape, BulkChunkFollowsTheSharedMemoryOfTheGpu) {
  // 100 KiB per SM: 32 KiB chunks alone, 16 for two, none for three.
  EXPECT_EQ(xb::choose_sm_config({}, xb::SmCopySite{true, 12, 100, 1}).chunk_kib, 32);
  EXPECT_EQ(xb::choose_sm_config({}, xb::SmCopySite{true, 12, 100, 2}).chunk_kib, 16);
  EXPECT_EQ(xb::choose_sm_config({}, xb::SmCopySite{true, 12, 100, 3}).method, Method::vector);
  // Unknown shared memory: never the bulk kernel.
  EXPECT_EQ(xb::choose_sm_config({}, xb::SmCopySite{true, 9, 0, 1}).method, Method::vector);
}

TEST(SmShape, PcieAndLocalOnHopperUseTwoBulkBlocksPerSmWhenTheyFit) {
  const xb::SmCopyConfig c = xb::choose_sm_config({}, xb::SmCopySite{false, 9, 228, 1});
  EXPECT_EQ(c.method, Method::bulk);
  EXPECT_EQ(c.chunk_kib, 32);
  EXPECT_EQ(c.stages, 3);
  EXPECT_EQ(c.blocks_per_sm, 2);
  EXPECT_LE(2 * (c.stages * c.chunk_kib + 1), 228);
}

TEST(SmShape, GpuToHostOnHopperUsesFourStagesOf16KibTwoBlocksPerSm) {
  xb::SmCopySite to_host{false, 9, 228, 1};
  to_host.to_host = true;
  const xb::SmCopyConfig c = xb::choose_sm_config({}, to_host);
  EXPECT_EQ(c.method, Method::bulk);
  EXPECT_EQ(c.chunk_kib, 16);
  EXPECT_EQ(c.stages, 4);
  EXPECT_EQ(c.blocks_per_sm, 2);
  to_host.sm_copies_on_gpu = 2;  // 2 x 2 blocks of 65 KiB do not fit 228 KiB
  EXPECT_EQ(xb::choose_sm_config({}, to_host).method, Method::vector);
}

TEST(SmShape, SharedSmsMigratingPagesAndPreHopperUseTheVectorKernel) {
  xb::SmCopySite migrating{false, 9, 228, 1};
  migrating.migrating = true;
  for (const xb::SmCopySite site : {xb::SmCopySite{false, 9, 228, 2}, migrating, xb::SmCopySite{true, 8, 164, 1},
                                    xb::SmCopySite{false, 8, 164, 1}}) {
    const xb::SmCopyConfig c = xb::choose_sm_config({}, site);
    EXPECT_EQ(c.method, Method::vector);
    EXPECT_EQ(c.blocks_per_sm, 1);
    EXPECT_EQ(c.threads, 512);
    EXPECT_EQ(c.unroll, 4);
    EXPECT_FALSE(c.streaming || c.l2_256b || c.l2_only);
  }
}

TEST(SmShape, UserChoicesWin) {
  xb::SmCopyConfig vec;
  vec.unroll = 8;
  const xb::SmCopyConfig v = xb::choose_sm_config(vec, nvlink_hopper(1));
  EXPECT_EQ(v.method, Method::vector);
  EXPECT_EQ(v.unroll, 8);
  EXPECT_EQ(v.threads, 512);
  xb::SmCopyConfig hint;
  hint.l2_only = true;
  EXPECT_EQ(xb::choose_sm_config(hint, nvlink_hopper(1)).method, Method::vector);
  EXPECT_TRUE(xb::choose_sm_config(hint, nvlink_hopper(1)).l2_only);
  xb::SmCopyConfig bulk;
  bulk.method = Method::bulk;
  bulk.chunk_kib = 8;
  bulk.stages = 2;
  bulk.blocks_per_sm = 4;
  const xb::SmCopyConfig b = xb::choose_sm_config(bulk, xb::SmCopySite{false, 9, 228, 3});
  EXPECT_EQ(b.method, Method::bulk);
  EXPECT_EQ(b.chunk_kib, 8);
  EXPECT_EQ(b.stages, 2);
  EXPECT_EQ(b.blocks_per_sm, 4);
  EXPECT_FALSE(xb::sm_config_given({}));
  EXPECT_TRUE(xb::sm_config_given(vec));
  EXPECT_TRUE(xb::sm_config_given(bulk));
}

TEST(SmShape, NvbandwidthsKernelIsOneBlockOf512ThreadsPerSm12Deep) {
  const xb::SmCopyConfig c = xb::nvbandwidth_sm_config();
  EXPECT_EQ(c.method, xb::SmCopyConfig::Method::vector);
  EXPECT_EQ(c.blocks_per_sm, 1);
  EXPECT_EQ(c.threads, 512);
  EXPECT_EQ(c.unroll, 12);
  EXPECT_TRUE(xb::sm_config_given(c));
  // A site measured nvbandwidth's way gets it on any GPU, even where the bulk
  // copy would be the default; a kernel the user names still wins.
  xb::SmCopySite site;
  site.cc_major = 9;
  site.shared_memory_per_sm_kib = 228;
  site.to_host = true;
  EXPECT_EQ(xb::choose_sm_config({}, site).method, xb::SmCopyConfig::Method::bulk);
  site.nvbandwidth_kernel = true;
  const xb::SmCopyConfig chosen = xb::choose_sm_config({}, site);
  EXPECT_EQ(chosen.method, xb::SmCopyConfig::Method::vector);
  EXPECT_EQ(chosen.unroll, 12);
  EXPECT_EQ(chosen.threads, 512);
  xb::SmCopyConfig user;
  user.blocks_per_sm = 2;
  user.threads = 256;
  user.unroll = 8;
  EXPECT_EQ(xb::choose_sm_config(user, site).unroll, 8);
}
