// The staged pipeline without a GPU: chunks through a ring of slots over
// the in-process communicator, with a fake stager whose copies finish only
// after a few polls (as asynchronous GPU copies do), against a host-side
// peer that sends and receives the same chunks directly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <map>

#include "comm/inproc_comm.hpp"
#include "base/pattern.hpp"
#include "pingpong/staged_pipeline.hpp"

namespace xb::pingpong {
namespace {

// Copies happen when done() is first asked after `delay` polls, not when
// they are started, so a pipeline that reads a slot before its copy is done
// sends stale bytes and the check fails.
class SlowStager final : public Stager {
 public:
  explicit SlowStager(int delay) : delay_(delay) {}
  std::uint64_t to_host(void* dst, const void* src, std::size_t bytes) override { return start(dst, src, bytes); }
  std::uint64_t to_device(void* dst, const void* src, std::size_t bytes) override { return start(dst, src, bytes); }
  bool done(std::uint64_t ticket) override {
    auto it = pending_.find(ticket);
    if (it == pending_.end()) return true;
    if (--it->second.polls > 0) return false;
    std::memcpy(it->second.dst, it->second.src, it->second.bytes);
    pending_.erase(it);
    ++copies;
    return true;
  }
  int copies = 0;

 private:
  struct Copy {
    void* dst;
    const void* src;
    std::size_t bytes;
    int polls;
  };
  std::uint64_t start(void* dst, const void* src, std::size_t bytes) {
    pending_[next_] = Copy{dst, src, bytes, delay_};
    return next_++;
  }
  int delay_;
  std::uint64_t next_ = 0;
  std::map<std::uint64_t, Copy> pending_;
};

constexpr std::size_t kBytes = 10000;  // 10 chunks of 1000 bytes, the last one short of nothing
constexpr std::size_t kOdd = 10037;    // and one with a short last chunk

TEST(StagedPipeline, ChunkCounts) {
  EXPECT_EQ(chunks_per_message(1, 4096), 1u);
  EXPECT_EQ(chunks_per_message(4096, 4096), 1u);
  EXPECT_EQ(chunks_per_message(4097, 4096), 2u);
  EXPECT_EQ(chunks_per_message(kOdd, 1000), 11u);
}

// Each rank sends `messages` of src's size to the other: both at once, or
// rank 0 first and then rank 1.
void swap_messages(StagedPipeline& pipe, int rank, const std::vector<unsigned char>& src, std::vector<unsigned char>& dst,
                   int messages, bool both_at_once) {
  const std::size_t bytes = src.size();
  if (both_at_once) {
    pipe.exchange(src.data(), messages, dst.data(), messages, bytes);
  } else if (rank == 0) {
    pipe.exchange(src.data(), messages, nullptr, 0, bytes);
    pipe.exchange(nullptr, 0, dst.data(), messages, bytes);
  } else {
    pipe.exchange(nullptr, 0, dst.data(), messages, bytes);
    pipe.exchange(src.data(), messages, nullptr, 0, bytes);
  }
}

// Rank 0 stages through slots (a GPU side); rank 1 uses its buffers
// directly (a host side). Each sends `messages` to the other, one way after
// the other or both at once.
void exchange_between_gpu_and_host_sides(std::size_t bytes, bool both_at_once) {
  const PipelineShape shape{1000, 3};
  comm::run_ranks({2, {}}, [&](comm::Communicator& c) {
    std::vector<unsigned char> src(bytes), dst(bytes, 0xA5), out_ring(3000), in_ring(3000);
    fill_pattern_host(src.data(), bytes, 10 + c.rank());
    SlowStager stager(3);
    Stager* staging = c.rank() == 0 ? &stager : nullptr;
    MpiChunkLink link(c, 1 - c.rank(), 1, comm::Seconds(10), shape, out_ring.data(), in_ring.data());
    StagedPipeline pipe(link, shape, staging, comm::Seconds(10));
    const int messages = 3;
    swap_messages(pipe, c.rank(), src, dst, messages, both_at_once);
    EXPECT_EQ(verify_pattern_host(dst.data(), bytes, 10 + (1 - c.rank())), bytes) << "rank " << c.rank();
    if (c.rank() == 0) {
      // Every chunk of every message was copied out and back in.
      EXPECT_EQ(stager.copies, static_cast<int>(2 * messages * chunks_per_message(bytes, shape.chunk)));
    }
  });
}

TEST(StagedPipeline, OneWayThenBackReassemblesEveryChunk) {
  exchange_between_gpu_and_host_sides(kBytes, false);
  exchange_between_gpu_and_host_sides(kOdd, false);
  exchange_between_gpu_and_host_sides(999, false);  // smaller than one chunk
}

TEST(StagedPipeline, BothWaysAtOnceReassemblesEveryChunk) {
  exchange_between_gpu_and_host_sides(kBytes, true);
  exchange_between_gpu_and_host_sides(kOdd, true);
}

TEST(StagedPipeline, APeerThatSendsNothingIsATimeoutNamingIt) {
  std::string what;
  comm::run_ranks({2, {}}, [&](comm::Communicator& c) {
    if (c.rank() == 1) return;
    std::vector<unsigned char> dst(kBytes), ring(3000);
    SlowStager stager(1);
    MpiChunkLink link(c, 1, 1, comm::Seconds(0.2), PipelineShape{1000, 3}, ring.data(), ring.data());
    StagedPipeline pipe(link, PipelineShape{1000, 3}, &stager, comm::Seconds(0.2));
    try {
      pipe.exchange(nullptr, 0, dst.data(), 1, kBytes);
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::timeout);
      what = e.what();
    }
  });
  EXPECT_NE(what.find("rank 1 did not answer within 0.2 s"), std::string::npos) << what;
  EXPECT_NE(what.find("staged pipeline"), std::string::npos) << what;
}

// Two GPU sides on one host: one ring in memory both map (here: one
// buffer two threads share), only flags cross. Every chunk of every message
// arrives, in both directions at once and one way after the other, over
// several exchanges (the sequence numbers run on), with stagers that finish
// their copies late.
void exchange_through_a_shared_ring(std::size_t bytes, bool both_at_once) {
  const PipelineShape shape{1000, 3};
  std::vector<unsigned char> region(SharedRing::bytes(shape) + 64, 0);
  auto* base = region.data() + (64 - reinterpret_cast<std::uintptr_t>(region.data()) % 64) % 64;
  comm::run_ranks({2, {}}, [&](comm::Communicator& c) {
    std::vector<unsigned char> src(bytes), dst(bytes, 0xA5);
    fill_pattern_host(src.data(), bytes, 20 + c.rank());
    SlowStager stager(2 + c.rank());
    SharedChunkLink link(SharedRing(base, shape, c.rank()), comm::Seconds(10), "the peer");
    StagedPipeline pipe(link, shape, &stager, comm::Seconds(10));
    for (int round = 0; round < 3; ++round) {
      std::fill(dst.begin(), dst.end(), 0xA5);
      const int messages = 2 + round;
      swap_messages(pipe, c.rank(), src, dst, messages, both_at_once);
      EXPECT_EQ(verify_pattern_host(dst.data(), bytes, 20 + (1 - c.rank())), bytes) << "rank " << c.rank();
    }
  });
}

TEST(StagedPipeline, SharedRingReassemblesEveryChunkOverManyExchanges) {
  exchange_through_a_shared_ring(kBytes, false);
  exchange_through_a_shared_ring(kOdd, true);
  exchange_through_a_shared_ring(999, true);
}

TEST(StagedPipeline, SharedRingPeerThatNeverFillsIsATimeout) {
  const PipelineShape shape{1000, 3};
  std::vector<unsigned char> region(SharedRing::bytes(shape) + 64, 0);
  auto* base = region.data() + (64 - reinterpret_cast<std::uintptr_t>(region.data()) % 64) % 64;
  std::vector<unsigned char> dst(kBytes);
  SlowStager stager(1);
  SharedChunkLink link(SharedRing(base, shape, 0), comm::Seconds(0.2), "rank 1");
  StagedPipeline pipe(link, shape, &stager, comm::Seconds(0.2));
  try {
    pipe.exchange(nullptr, 0, dst.data(), 1, kBytes);
    FAIL() << "no timeout";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::timeout);
    EXPECT_NE(std::string(e.what()).find("rank 1 did not move a chunk within 0.2 s"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace xb::pingpong
