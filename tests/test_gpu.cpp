// Tests that need a CUDA GPU. Without one they are skipped visibly
// (GTEST_SKIP with the reason), never passed silently.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include "cases/cases.hpp"
#include "base/error.hpp"
#include "measure/measure.hpp"
#include "memory/memory.hpp"
#include "cases/runner.hpp"
#include "kernels/sm_shape.hpp"
#include "machine/topology.hpp"

namespace {

bool have_gpu(std::string& why) {
  int n = 0;
  const cudaError_t err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess || n == 0) {
    why = std::string("no CUDA GPU: ") + cudaGetErrorName(err);
    (void)cudaGetLastError();
    return false;
  }
  return true;
}

#define REQUIRE_GPU()                        \
  do {                                       \
    std::string why_;                        \
    if (!have_gpu(why_)) GTEST_SKIP() << why_; \
  } while (0)

}  // namespace

TEST(Gpu, NoGpuIsReportedAsNoDevice) {
  std::string why;
  if (have_gpu(why)) GTEST_SKIP() << "a GPU is present";
  try {
    xb::cuda_device_count();
    FAIL();
  } catch (const xb::Error& e) {
    EXPECT_EQ(e.kind(), xb::ErrorKind::no_device);
    const std::string what = e.what();  // which of the two depends on whether a driver is installed
    EXPECT_TRUE(what.find("no CUDA GPU found") != std::string::npos ||
                what.find("no NVIDIA driver or GPU found") != std::string::npos)
        << what;
  }
}

TEST(Gpu, VerificationCatchesAPlantedCorruption) {
  REQUIRE_GPU();
  const std::uint64_t bytes = (64ull << 20) + 3;
  for (xb::Location loc : {xb::device_memory(0), xb::host_memory(xb::MemKind::pinned, 0),
                           xb::host_memory(xb::MemKind::pageable, 0)}) {
    xb::Buffer buf(loc, bytes);
    xb::fill_buffer(buf, bytes, 1234, 0);
    EXPECT_EQ(xb::verify_buffer(buf, bytes, 1234, 0), bytes);
    const std::uint64_t off = 12345679;
    unsigned char b = 0;
    ASSERT_EQ(cudaMemcpy(&b, static_cast<char*>(buf.ptr()) + off, 1, cudaMemcpyDefault), cudaSuccess);
    b ^= 0x40;
    ASSERT_EQ(cudaMemcpy(static_cast<char*>(buf.ptr()) + off, &b, 1, cudaMemcpyDefault), cudaSuccess);
    EXPECT_EQ(xb::verify_buffer(buf, bytes, 1234, 0), off) << xb::to_string(loc.kind);
  }
}

TEST(Gpu, CopyCaseRunsAndVerifies) {
  REQUIRE_GPU();
  const xb::System sys = xb::discover_system(false);
  xb::RunRequest req;
  req.cases = xb::select_cases({"host_to_device_memcpy_ce", "device_to_host_memcpy_sm", "device_local_copy"}, {});
  req.buffer_bytes = 32ull << 20;
  req.measure.min_samples = req.measure.max_samples = 3;
  const xb::RunResult run = xb::run_cases(sys, req);
  ASSERT_EQ(run.cases.size(), 3u);
  for (const auto& c : run.cases) {
    EXPECT_EQ(c.status, xb::CaseStatus::passed) << c.name << ": " << c.message;
    ASSERT_FALSE(c.matrices.empty());
    for (const auto& cell : c.matrices[0].cells) {
      EXPECT_GT(cell.value, 0.0);
      EXPECT_EQ(cell.stats.count, 3);
      EXPECT_EQ(cell.verification.status, xb::Verification::Status::passed);
    }
  }
}

TEST(Gpu, SmCopyHandlesUnalignedTailBytes) {
  REQUIRE_GPU();
  const xb::System sys = xb::discover_system(false);
  xb::Measurer m(sys, xb::MeasureOptions{});
  xb::Scenario sc;
  xb::Transfer t;
  t.src = xb::device_memory(0);
  t.dst = xb::device_memory(0);
  t.engine = xb::Engine::sm;
  t.bytes = (1 << 20) + 13;
  t.label = "tail";
  sc.transfers.push_back(t);
  const auto s = m.run(sc, [](const xb::ScenarioSamples& ss, std::size_t i) { return ss.transfers[0].seconds[i]; });
  EXPECT_EQ(s.transfers[0].verification.status, xb::Verification::Status::passed);
}

// A sample's SM copies repeated inside one launch (the default) must leave
// the same verified data as one launch per copy, for every SM kernel.
TEST(Gpu, SmCopiesRepeatedInOneLaunchVerify) {
  REQUIRE_GPU();
  const xb::System sys = xb::discover_system(false);
  xb::SmCopyConfig bulk;
  bulk.method = xb::SmCopyConfig::Method::bulk;
  bulk.chunk_kib = 16;
  bulk.stages = 3;
  bulk.blocks_per_sm = 1;
  const xb::SmCopyConfig nvbandwidths = xb::nvbandwidth_sm_config();  // one 512-thread block per SM, 12 deep
  for (const bool in_kernel : {true, false}) {
    for (const bool split : {false, true}) {
      for (const xb::SmCopyConfig& cfg : {xb::SmCopyConfig{}, bulk, nvbandwidths}) {
        if (split && cfg.method == xb::SmCopyConfig::Method::bulk) continue;
        xb::MeasureOptions o;
        o.copies_per_sample = 7;
        o.min_samples = o.max_samples = 2;
        o.sm = cfg;
        o.sm_repeat_in_kernel = in_kernel;
        xb::Measurer m(sys, o);
        xb::Scenario sc;
        xb::Transfer t;
        t.src = xb::device_memory(0);
        t.dst = split ? xb::host_memory(xb::MemKind::pinned, xb::kNoNumaPlacement) : xb::device_memory(0);
        t.engine = split ? xb::Engine::sm_split : xb::Engine::sm;
        t.bytes = (3ull << 20) + (split ? 0 : 4096 + 16);  // bulk: a remainder below one chunk
        t.label = "repeat";
        sc.transfers.push_back(t);
        const auto s = m.run(sc, [](const xb::ScenarioSamples& ss, std::size_t i) { return ss.transfers[0].seconds[i]; });
        EXPECT_EQ(s.copies_per_sample, 7);
        EXPECT_EQ(s.transfers[0].verification.status, xb::Verification::Status::passed)
            << "in_kernel=" << in_kernel << " split=" << split << " bulk=" << (cfg.method == xb::SmCopyConfig::Method::bulk)
            << " unroll=" << cfg.unroll
            << " first bad offset " << s.transfers[0].verification.first_bad_offset;
      }
    }
  }
}
