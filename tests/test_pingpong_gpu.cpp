// GPU paths of pingpong that run inside one process: staged (pipelined),
// nccl and the device transport between a host thread and a GPU kernel, as
// two threads (ipc and the device transport between two GPUs need two
// processes: bench/suites/pingpong_device.sh runs them under mpirun). Skipped,
// with the reason, where there is no GPU or NCCL.
#include <gtest/gtest.h>

#if __has_include(<nccl.h>)
#include <nccl.h>
#endif

#include <chrono>

#include "comm/inproc_comm.hpp"
#include "machine/cuda_check.hpp"
#include "fault_transports.hpp"
#include "pingpong/select.hpp"
#include "pingpong/nccl_api.hpp"
#include "pingpong/runner.hpp"

namespace xb::pingpong {
namespace {

#if __has_include(<nccl.h>)
// nccl_api.hpp mirrors the few parts of NCCL's ABI it uses instead of
// including nccl.h; this keeps the mirror honest where the header exists.
static_assert(sizeof(nccl::UniqueId) == sizeof(ncclUniqueId));
static_assert(nccl::kSuccess == ncclSuccess);
static_assert(nccl::kInProgress == ncclInProgress);
static_assert(nccl::kInt8 == ncclInt8);
#endif

// Every mode, and pingpong with both buffer modes (separate
// send and receive buffers by default, --buffers echo on request).
struct Shape {
  Mode mode;
  Buffers buffers;
};
constexpr Shape kShapes[] = {{Mode::pingpong, Buffers::separate},
                             {Mode::pingpong, Buffers::echo},
                             {Mode::bw, Buffers::separate},
                             {Mode::bibw, Buffers::separate}};

Options gpu_options(Endpoint dev1, Endpoint dev2, TransportKind t, Shape shape) {
  Options o;
  o.dev1 = dev1;
  o.dev2 = dev2;
  o.transport = t;
  o.mode = shape.mode;
  o.buffers = shape.buffers;
  o.num_sizes = 12;  // 8 B .. 16 KiB
  o.min_bytes = 8;
  o.loop_count = 3;
  o.warmup = 1;
  o.window = 4;
  o.timeout_s = 20;
  return o;
}

void expect_verified_run(const Options& o, const char* transport) {
  std::optional<Result> result;
  comm::run_ranks({2, {}}, [&](comm::Communicator& c) {
    auto r = run(c, o);
    if (c.rank() == 0) result = r;
  });
  ASSERT_TRUE(result);
  ASSERT_EQ(result->pairs.size(), 1u);
  EXPECT_EQ(result->pairs[0].transport, transport);
  const auto failure = first_failure(*result);
  EXPECT_FALSE(failure) << failure->what();
}

TEST(PingpongGpu, StagedGpuToGpuAndGpuToHostVerifyInEveryMode) {
  const int n = device_count_or_zero();
  if (n < 1) GTEST_SKIP() << "no CUDA GPU on this machine";
  const Endpoint gpu0{true, 0}, gpu_last{true, n - 1}, host{};
  for (const Shape& shape : kShapes) {
    expect_verified_run(gpu_options(gpu0, gpu_last, TransportKind::staged, shape), "staged");
    expect_verified_run(gpu_options(host, gpu0, TransportKind::staged, shape), "staged");
  }
}

TEST(PingpongGpu, StagedMessagesLargerThanAChunkArePipelinedAndVerify) {
  if (device_count_or_zero() < 1) GTEST_SKIP() << "no CUDA GPU on this machine";
  const Endpoint gpu0{true, 0}, host{};
  for (const Shape& shape : kShapes) {
    Options o = gpu_options(gpu0, gpu0, TransportKind::staged, shape);
    o.num_sizes = 15;  // 8 B .. 128 KiB: up to 32 chunks of 4 KiB
    o.stage_chunk_bytes = 4096;
    expect_verified_run(o, "staged");
    o.dev1 = host;
    expect_verified_run(o, "staged");
  }
}

// The device transport between a CPU thread and a kernel: the CPU side is
// one in-process rank, the GPU side the other, mailboxes in shared memory.
TEST(PingpongGpu, DeviceTransportBetweenHostAndGpuVerifiesInEveryMode) {
  if (device_count_or_zero() < 1) GTEST_SKIP() << "no CUDA GPU on this machine";
  const Endpoint gpu0{true, 0}, host{};
  for (const Shape& shape : kShapes) {
    Options o = gpu_options(host, gpu0, TransportKind::device, shape);
    o.num_sizes = 18;  // 8 B .. 1 MiB: LL words up to 1 KiB, stores and flags above (several blocks)
    o.ll_max_bytes = 1024;
    expect_verified_run(o, "device");
    std::swap(o.dev1, o.dev2);  // the GPU initiates and times
    expect_verified_run(o, "device");
  }
}

// A peer that never starts its side: the kernel gives up after the timeout
// (read from %globaltimer), says what it waited for, and the GPU is idle.
TEST(PingpongGpu, DeviceKernelGivesUpOnASilentPeerAndLeavesTheGpuIdle) {
  if (device_count_or_zero() < 1) GTEST_SKIP() << "no CUDA GPU on this machine";
  Environment env = default_environment();
  env.make_transport = [](TransportKind k, const PairContext& ctx) -> std::unique_ptr<Transport> {
    auto t = make_transport(k, ctx);
    if (ctx.initiator) return t;
    return std::make_unique<SilentTransport>(std::move(t));
  };
  Options o = gpu_options(Endpoint{true, 0}, Endpoint{}, TransportKind::device, kShapes[0]);
  o.num_sizes = 1;
  // Every exchange before the silent run must succeed within it, also on a
  // loaded machine, or rank 0 would time out elsewhere, with another message.
  o.timeout_s = 2;
  std::optional<Error> err;
  comm::run_ranks({2, {}}, [&](comm::Communicator& c) {
    try {
      run(c, o, env);
    } catch (const Error& e) {
      if (c.rank() == 0) err = e;
    }
  });
  ASSERT_TRUE(err);
  EXPECT_EQ(err->kind(), ErrorKind::timeout);
  EXPECT_NE(std::string(err->what()).find("rank 0 (gpu 0): rank 1 (host) did not answer within 2 s: the device "
                                          "kernel on gpu 0 gave up waiting for the peer to start run 1"),
            std::string::npos)
      << err->what();
  const auto t0 = std::chrono::steady_clock::now();
  XB_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(100)) << "the GPU was still busy";
}

TEST(PingpongGpu, NcclBetweenTwoGpusVerifiesInEveryMode) {
  if (device_count_or_zero() < 2) GTEST_SKIP() << "fewer than 2 CUDA GPUs on this machine";
  if (!nccl::available()) GTEST_SKIP() << "cannot load " << nccl::kLibrary;
  for (const Shape& shape : kShapes) {
    expect_verified_run(gpu_options(Endpoint{true, 0}, Endpoint{true, 1}, TransportKind::nccl, shape), "nccl");
  }
}

}  // namespace
}  // namespace xb::pingpong
