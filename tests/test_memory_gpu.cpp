// Bounded memory on a real GPU. Without one every test is skipped visibly.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "cases/cases.hpp"
#include "machine/cuda_raii.hpp"
#include "base/error.hpp"
#include "measure/measure.hpp"
#include "memory/memory.hpp"
#include "base/pattern.hpp"
#include "cases/runner.hpp"
#include "machine/topology.hpp"

namespace {

constexpr std::uint64_t kMiB = 1ull << 20;

#define REQUIRE_GPU_FOR_MEMORY()                                                        \
  do {                                                                                  \
    int n_ = 0;                                                                         \
    const cudaError_t err_ = cudaGetDeviceCount(&n_);                                   \
    if (err_ != cudaSuccess || n_ == 0) {                                               \
      (void)cudaGetLastError();                                                         \
      GTEST_SKIP() << "no CUDA GPU: " << cudaGetErrorName(err_);                        \
    }                                                                                   \
  } while (0)

xb::Scenario one_copy(const xb::Location& src, const xb::Location& dst) {
  xb::Scenario sc;
  xb::Transfer t;
  t.src = src;
  t.dst = dst;
  t.bytes = 8 * kMiB;
  t.label = "pool";
  sc.transfers.push_back(t);
  return sc;
}

double first_seconds(const xb::ScenarioSamples& s, std::size_t i) { return s.transfers[0].seconds[i]; }

}  // namespace

// The same two buffers serve a copy and the copy back: the roles swap, the
// patterns are refilled or poisoned as needed, and both directions verify.
TEST(GpuMemory, PoolReusesBuffersWhenRolesSwap) {
  REQUIRE_GPU_FOR_MEMORY();
  const xb::System sys = xb::discover_system(false);
  xb::MeasureOptions o;
  o.min_samples = o.max_samples = 2;
  xb::Measurer m(sys, o);
  const xb::Location host = xb::host_memory(xb::MemKind::pinned, xb::kNoNumaPlacement);
  for (int round = 0; round < 2; ++round) {
    for (const bool to_device : {true, false}) {
      const auto s = m.run(to_device ? one_copy(host, xb::device_memory(0)) : one_copy(xb::device_memory(0), host),
                           first_seconds);
      EXPECT_EQ(s.transfers[0].verification.status, xb::Verification::Status::passed)
          << "round " << round << (to_device ? " host->gpu0" : " gpu0->host");
    }
  }
  EXPECT_EQ(m.pool().allocations(), 2u);
}

// --max-memory below what a cell needs: those cells are waived with the
// reason, the others run, and the run is partial; peaks are measured.
TEST(GpuMemory, MaxMemoryBelowACellWaivesItAndRunsTheRest) {
  REQUIRE_GPU_FOR_MEMORY();
  const xb::System sys = xb::discover_system(false);
  xb::RunRequest req;
  req.cases = xb::select_cases({"host_to_device_memcpy_ce", "host_to_device_bidirectional_memcpy_ce",
                                "host_device_latency_sm"}, {});
  req.buffer_bytes = 32 * kMiB;
  req.measure.min_samples = req.measure.max_samples = 2;
  req.max_memory = xb::MemoryLimit{48 * kMiB, 1024 * kMiB};  // one 32 MiB buffer per GPU, not two
  const xb::RunResult run = xb::run_cases(sys, req);
  ASSERT_EQ(run.cases.size(), 3u);
  EXPECT_EQ(run.cases[0].status, xb::CaseStatus::passed) << run.cases[0].message;
  EXPECT_EQ(run.cases[1].status, xb::CaseStatus::waived);
  EXPECT_NE(run.cases[1].message.find("--max-memory budget of 48 MiB"), std::string::npos) << run.cases[1].message;
  EXPECT_EQ(run.cases[1].waived_cells.size(), static_cast<std::size_t>(sys.gpu_count()));
  EXPECT_EQ(run.cases[2].status, xb::CaseStatus::passed) << run.cases[2].message;
  EXPECT_EQ(run.completion.stop, xb::StopReason::memory);
  ASSERT_EQ(run.memory.gpus.size(), static_cast<std::size_t>(sys.gpu_count()));
  EXPECT_GE(run.memory.gpus[0].peak_bytes, 32 * kMiB) << run.memory.gpus[0].source;
  EXPECT_GE(run.memory.host_peak_rss_bytes, 32 * kMiB);
}

// Same-size interference repeated twice per copy runs and verifies.
TEST(GpuMemory, RepeatedInterferenceVerifies) {
  REQUIRE_GPU_FOR_MEMORY();
  const xb::System sys = xb::discover_system(false);
  xb::RunRequest req;
  req.cases = xb::select_cases({"device_to_host_bidirectional_memcpy_ce", "all_to_host_bidirectional_memcpy_ce",
                                "host_to_all_bidirectional_memcpy_sm"}, {});
  req.buffer_bytes = 16 * kMiB;
  req.measure.min_samples = req.measure.max_samples = 2;
  const xb::RunResult run = xb::run_cases(sys, req);
  for (const auto& c : run.cases) EXPECT_EQ(c.status, xb::CaseStatus::passed) << c.name << ": " << c.message;
  EXPECT_EQ(run.completion.status, xb::RunStatus::complete);
}

// A buffer larger than a GPU's free memory stops the run before anything is
// measured, naming the size and the free memory (exit 4 in main).
TEST(GpuMemory, BufferLargerThanFreeMemoryFailsBeforeMeasuring) {
  REQUIRE_GPU_FOR_MEMORY();
  const xb::System sys = xb::discover_system(false);
  xb::RunRequest req;
  req.cases = xb::select_cases({"host_to_device_memcpy_ce"}, {});
  req.buffer_bytes = sys.gpus[0].memory_bytes + kMiB;
  try {
    xb::run_cases(sys, req);
    FAIL() << "expected Error(resources)";
  } catch (const xb::Error& e) {
    EXPECT_EQ(e.kind(), xb::ErrorKind::resources);
    EXPECT_NE(std::string(e.what()).find("free"), std::string::npos) << e.what();
  }
}

// What pingpong and first-touch use on a GPU buffer: the pattern, a filler
// over part of it, the bytes copied out, and a polled wait on a stream.
TEST(GpuMemory, DeviceBufferTakesPatternFillerAndCopiesOut) {
  REQUIRE_GPU_FOR_MEMORY();
  xb::Buffer buf(xb::device_memory(0), 4099);
  xb::fill_buffer(buf, buf.bytes(), 77, 0);
  EXPECT_EQ(xb::verify_buffer(buf, buf.bytes(), 77, 0), buf.bytes());
  xb::fill_bytes(buf, 100, 0xA5);
  EXPECT_EQ(xb::verify_buffer(buf, buf.bytes(), 77, 0), 0u);
  std::vector<unsigned char> out(buf.bytes());
  xb::copy_to_host(buf, out.data(), out.size());
  EXPECT_EQ(out[99], 0xA5);
  EXPECT_EQ(xb::verify_pattern_host(out.data(), out.size(), 77), 0u);
  EXPECT_EQ(out[100], xb::pattern_byte(77, 100));
  const xb::Stream s(0);
  const xb::Event e(0, cudaEventDisableTiming);
  XB_CUDA_CHECK(cudaMemsetAsync(buf.ptr(), 0, buf.bytes(), s.get()));
  XB_CUDA_CHECK(cudaEventRecord(e.get(), s.get()));
  xb::wait_stream(s.get(), std::chrono::seconds(10), "a small memset");
  EXPECT_EQ(cudaEventQuery(e.get()), cudaSuccess);
}
