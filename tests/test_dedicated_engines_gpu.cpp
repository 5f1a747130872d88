// GPU tests of the v0.9/v0.10 additions: the TMA copy and chase, the
// read-only and write-only kernels and their checks, huge-page buffers, the
// SM budget. Without a GPU (or a TMA, or huge pages) they skip with the
// reason, never pass silently.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include "cases/cases.hpp"
#include "machine/cuda_raii.hpp"
#include "measure/dedicated_engines.hpp"
#include "base/error.hpp"
#include "machine/hugepages.hpp"
#include "kernels/kernels.hpp"
#include "memory/memory.hpp"
#include "cases/runner.hpp"
#include "cases/sm_sweep.hpp"
#include "machine/topology.hpp"

namespace {

std::string no_gpu() {
  int n = 0;
  const cudaError_t err = cudaGetDeviceCount(&n);
  if (err == cudaSuccess && n > 0) return "";
  (void)cudaGetLastError();
  return std::string("no CUDA GPU: ") + cudaGetErrorName(err);
}

#define REQUIRE_GPU()                              \
  do {                                             \
    if (const std::string why_ = no_gpu(); !why_.empty()) GTEST_SKIP() << why_; \
  } while (0)

xb::RunResult run(const std::vector<std::string>& cases, std::uint64_t bytes, xb::MeasureOptions m = {}) {
  const xb::System sys = xb::discover_system(false);
  xb::RunRequest req;
  req.cases = xb::select_cases(cases, {});
  req.buffer_bytes = bytes;
  m.min_samples = m.max_samples = 3;
  req.measure = m;
  return xb::run_cases(sys, req);
}

}  // namespace

TEST(DedicatedEngineGpu, NewCasesRunAndVerifyOrAreWaived) {
  REQUIRE_GPU();
  // Local traffic at 256 MiB so it streams from memory, not from L2; every
  // size has a tail that fills no 16-byte vector or TMA chunk.
  for (const auto& [cases, bytes] : std::vector<std::pair<std::vector<std::string>, std::uint64_t>>{
           {{"device_local_read_sm", "device_local_write_sm", "device_local_copy_tma"}, (256ull << 20) + 7},
           {{"device_to_device_memcpy_read_tma", "device_to_device_memcpy_write_tma", "device_to_device_latency_tma"},
            (32ull << 20) + 7}}) {
    const auto r = run(cases, bytes);
    for (const auto& c : r.cases) {
      if (c.status == xb::CaseStatus::waived) {
        EXPECT_FALSE(c.message.empty());
        continue;
      }
      EXPECT_EQ(c.status, xb::CaseStatus::passed) << c.name << ": " << c.message;
      for (const auto& cell : c.matrices.at(0).cells) {
        EXPECT_GT(cell.value, 0.0) << c.name;
        if (c.matrices[0].metric != xb::Metric::bandwidth_gbps) continue;
        EXPECT_EQ(cell.verification.status, xb::Verification::Status::passed) << c.name;
        ASSERT_TRUE(cell.peak.known()) << c.name;
        EXPECT_LT(cell.value, cell.peak.gbps) << c.name << ": above the link's peak";
      }
    }
  }
}

TEST(DedicatedEngineGpu, ReadChecksumAndWriteCheckCatchWrongData) {
  REQUIRE_GPU();
  const std::uint64_t bytes = (8ull << 20) + 7;
  xb::Buffer buf(xb::device_memory(0), bytes);
  xb::fill_buffer(buf, bytes, buf.seed(), 0);
  const xb::SmCopyConfig cfg;
  int sms = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
  EXPECT_EQ(xb::verify_dedicated(xb::Engine::sm_read, &buf, nullptr, bytes, cfg, sms, 0).status,
            xb::Verification::Status::passed);
  unsigned char b = 0x5a;  // one byte of the source changed: the checksum differs
  ASSERT_EQ(cudaMemcpy(static_cast<char*>(buf.ptr()) + 4097, &b, 1, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(xb::verify_dedicated(xb::Engine::sm_read, &buf, nullptr, bytes, cfg, sms, 0).status,
            xb::Verification::Status::failed);
  xb::launch_write_only(buf.kernel_ptr(), bytes, xb::write_base(buf), cfg, sms, nullptr);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(xb::verify_dedicated(xb::Engine::sm_write, nullptr, &buf, bytes, cfg, sms, 0).status,
            xb::Verification::Status::passed);
  ASSERT_EQ(cudaMemcpy(static_cast<char*>(buf.ptr()) + bytes - 1, &b, 1, cudaMemcpyHostToDevice), cudaSuccess);
  const auto v = xb::verify_dedicated(xb::Engine::sm_write, nullptr, &buf, bytes, cfg, sms, 0);
  EXPECT_EQ(v.status, xb::Verification::Status::failed);
  EXPECT_EQ(v.first_bad_offset, bytes - 1);
}

TEST(DedicatedEngineGpu, HugePageHostBufferHasTwoMibPages) {
  REQUIRE_GPU();
  const xb::HugePagePool pool = xb::read_hugepage_pool();
  if (!pool.known() || pool.free < 8) GTEST_SKIP() << "needs 8 free 2 MiB huge pages: " << xb::hugepage_shortage(pool, 8);
  xb::Buffer buf(xb::host_memory(xb::MemKind::hugepages, 0), (8ull << 20) - 5);
  EXPECT_EQ(buf.page_bytes(), 2u << 20);
  xb::fill_buffer(buf, buf.bytes(), 99, 0);
  EXPECT_EQ(xb::verify_buffer(buf, buf.bytes(), 99, 0), buf.bytes());
  xb::MeasureOptions m;
  m.host_kind = xb::MemKind::hugepages;
  const auto r = run({"host_to_device_memcpy_ce"}, 4ull << 20, m);
  ASSERT_EQ(r.cases.at(0).status, xb::CaseStatus::passed) << r.cases[0].message;
  EXPECT_EQ(r.cases[0].matrices.at(0).cells.at(0).host_page_bytes, 2u << 20);
}

TEST(DedicatedEngineGpu, FewerSmsMoveFewerBytes) {
  REQUIRE_GPU();
  const xb::System sys = xb::discover_system(false);
  xb::SmSweepRequest req;
  req.def = xb::sm_sweep_case("device_local_read_sm");
  req.sms_text = "1";
  // Well above the L2 (50 MiB on an H200): at 64 MiB the all-SM reads hit
  // the L2 and come out above the memory's peak, which fails the case.
  req.bytes = 256ull << 20;
  req.measure.min_samples = req.measure.max_samples = 3;
  const xb::SmSweepResult r = xb::run_sm_sweep(sys, req);
  ASSERT_EQ(r.status, xb::SweepStatus::passed) << (r.messages.empty() ? "" : r.messages[0]);
  for (const auto& s : r.series) {
    ASSERT_EQ(s.points.size(), 2u);
    EXPECT_EQ(s.points[0].sms, 1);
    EXPECT_EQ(s.points[1].sms, s.gpu_sms);
    // One SM cannot stream a GPU's memory: well under a quarter of every SM.
    EXPECT_LT(s.points[0].value_gbps, 0.25 * s.points[1].value_gbps) << s.label;
    // The all-SM point is the named case's kernel: measured again, it agrees.
    EXPECT_GT(s.named_gbps, 0) << s.label;
    EXPECT_FALSE(s.disagrees) << s.label << ": " << s.all_sm_gbps << " vs " << s.named_gbps;
  }
  req.sms_text = std::to_string(sys.gpus[0].sm_count + 1);
  EXPECT_THROW(xb::run_sm_sweep(sys, req), xb::Error);
}
