// The device transport without a GPU: its protocol (schedule, sequence
// numbers, parts, LL words), the CPU side run against itself on two threads
// through shared memory, and whole runs over the in-process communicator
// with host buffers on both ranks (both sides on the CPU, the mailboxes in a
// real shared segment). The GPU kernel runs the same protocol
// (device_protocol.hpp); GPU runs are in test_pingpong_gpu.cpp and
// bench/suites/pingpong_device.sh.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <thread>

#include "comm/inproc_comm.hpp"
#include "base/pattern.hpp"
#include "pingpong/cycle_clock.hpp"
#include "pingpong/device_protocol.hpp"
#include "pingpong/device_transport_base.hpp"
#include "pingpong/host_endpoint.hpp"
#include "pingpong/runner.hpp"
#include "fault_transports.hpp"
#include "rank_outcomes.hpp"

namespace xb::pingpong {
namespace {

using namespace devproto;

RunSpec spec_for(ModeCode mode, bool initiator, std::uint64_t bytes, bool ll, std::uint32_t reps,
                 std::uint32_t window) {
  RunSpec s;
  s.mode = mode;
  s.initiator = initiator;
  s.bytes = bytes;
  s.ll = ll;
  s.reps = reps;
  s.window = window;
  s.timeout_ns = 5'000'000'000ULL;
  return s;
}

TEST(DeviceProtocol, BothSidesCountTheSameMessagesInEveryMode) {
  for (ModeCode mode : {ModeCode::pingpong, ModeCode::bw, ModeCode::bibw}) {
    RunSpec a = spec_for(mode, true, 8, true, 3, 4);
    RunSpec b = spec_for(mode, false, 8, true, 3, 4);
    for (int run = 0; run < 2; ++run) {  // warm-up then timed: the second run starts where the first ended
      a.base = counters_after(a);
      b.base = counters_after(b);
    }
    EXPECT_EQ(a.base.sent, b.base.received) << static_cast<int>(mode);
    EXPECT_EQ(a.base.received, b.base.sent) << static_cast<int>(mode);
    EXPECT_EQ(a.base.acks_received, b.base.acks_sent) << static_cast<int>(mode);
    EXPECT_EQ(a.base.acks_sent, b.base.acks_received) << static_cast<int>(mode);
  }
  RunSpec bw = spec_for(ModeCode::bw, true, 8, true, 3, 4);
  EXPECT_EQ(counters_after(bw).sent, 12u);
  EXPECT_EQ(counters_after(bw).acks_received, 3u);
  // The responder answers from its send buffer unless asked to echo.
  EXPECT_EQ(rep_steps(ModeCode::pingpong, false, 9, false).step[1].kind, StepKind::send);
  EXPECT_EQ(rep_steps(ModeCode::pingpong, false, 9, true).step[1].kind, StepKind::echo);
  RunSpec echo = spec_for(ModeCode::pingpong, false, 8, true, 3, 1), separate = echo;
  echo.echo = true;
  EXPECT_EQ(counters_after(echo).sent, counters_after(separate).sent);
}

TEST(DeviceProtocol, PartsCoverTheMessageOnSixteenByteBoundaries) {
  for (std::uint64_t bytes : {1ULL, 15ULL, 16ULL, 17ULL, 1000ULL, 65536ULL, 65537ULL, 1ULL << 20, 512ULL << 20}) {
    for (std::uint32_t max_parts : {1u, 3u, 132u, 5000u}) {
      const std::uint32_t parts = parts_for(bytes, max_parts);
      EXPECT_GE(parts, 1u);
      EXPECT_LE(parts, std::min(max_parts, kMaxParts));
      if (bytes <= kMinPartBytes) {
        EXPECT_EQ(parts, 1u);
      }
      std::uint64_t next = 0;
      for (std::uint32_t b = 0; b < parts; ++b) {
        std::uint64_t begin = 0, end = 0;
        part_range(bytes, parts, b, begin, end);
        EXPECT_EQ(begin, next) << bytes << " " << parts << " " << b;
        EXPECT_TRUE(begin == bytes || begin % 16 == 0);
        EXPECT_LE(begin, end);
        next = end;
      }
      EXPECT_EQ(next, bytes) << bytes << " bytes in " << parts << " parts";
    }
  }
}

TEST(DeviceProtocol, LLWordsCarryDataAndAWrapSafeSequence) {
  const std::uint64_t w = ll_word(0xdeadbeefU, 7);
  EXPECT_EQ(ll_data(w), 0xdeadbeefU);
  EXPECT_TRUE(ll_at_least(w, 7));
  EXPECT_TRUE(ll_at_least(w, 6));
  EXPECT_FALSE(ll_at_least(w, 8));
  EXPECT_FALSE(ll_at_least(0, 1));  // a fresh (zeroed) mailbox holds no message
  // Across the 32-bit wrap a later message still counts as later.
  EXPECT_TRUE(ll_at_least(ll_word(1, 0x100000001ULL), 0xFFFFFFFFULL));
  EXPECT_FALSE(ll_at_least(ll_word(1, 0xFFFFFFFEULL), 0xFFFFFFFFULL));
  for (std::uint64_t n = 0; n <= 8; ++n) {
    const unsigned char in[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    unsigned char out[8] = {};
    store_tail(out, load_tail(in, n), n);
    EXPECT_EQ(std::memcmp(in, out, n), 0);
    for (std::uint64_t k = n; k < 8; ++k) {
      EXPECT_EQ(out[k], 0) << "byte " << k << " written for n = " << n;
    }
  }
  EXPECT_EQ(ll_area_bytes(9), 32u);  // two pairs of words
}

TEST(DeviceProtocol, SharedLayoutKeepsSectionsApartOnPages) {
  const ShmLayout l = shm_layout(16 << 10, 1 << 20);
  EXPECT_EQ(l.ll_offset % 4096, 0u);
  EXPECT_EQ(l.data_offset % 4096, 0u);
  EXPECT_GE(l.ll_offset, sizeof(BoxFlags));
  EXPECT_GE(l.data_offset - l.ll_offset, ll_area_bytes(16 << 10));
  EXPECT_GE(l.box_bytes - l.data_offset, 1u << 20);
  EXPECT_EQ(l.total, 2 * l.box_bytes);
}

TEST(DeviceProtocol, TicksBecomeSecondsThatAddUpToTheTrustedSpan) {
  const auto t = ticks_to_seconds({100, 300, 400, 1100}, 1.0);
  ASSERT_EQ(t.size(), 3u);
  EXPECT_DOUBLE_EQ(t[0], 0.2);
  EXPECT_DOUBLE_EQ(t[1], 0.1);
  EXPECT_DOUBLE_EQ(t[2], 0.7);
  EXPECT_TRUE(ticks_to_seconds({5}, 1.0).empty());
}

// Two mailboxes in ordinary memory, as a shared segment would hold them.
class Boxes {
 public:
  Boxes(std::uint64_t ll_max, std::uint64_t max_bytes) : layout_(shm_layout(ll_max, max_bytes)) {
    base_ = static_cast<unsigned char*>(std::aligned_alloc(4096, layout_.total));
    std::memset(base_, 0, layout_.total);
  }
  ~Boxes() { std::free(base_); }
  Boxes(const Boxes&) = delete;
  Boxes& operator=(const Boxes&) = delete;
  Links links(bool initiator, const unsigned char* send) const {
    Links l{};
    l.send = send;
    l.in = box_at(base_, layout_, initiator ? 0 : 1);
    l.out = box_at(base_, layout_, initiator ? 1 : 0);
    l.recv_ll = l.in.data;
    return l;
  }

 private:
  ShmLayout layout_;
  unsigned char* base_ = nullptr;
};

// Runs both sides on two threads; returns the error text of either side.
std::string run_both(const RunSpec& a, const Links& la, const RunSpec& b, const Links& lb) {
  std::string errors;
  std::thread peer([&] {
    try {
      run_host_side(b, lb);
    } catch (const Error& e) {
      errors += std::string("responder: ") + e.what();
    }
  });
  try {
    const std::vector<double> times = run_host_side(a, la);
    EXPECT_EQ(times.size(), a.reps);
    EXPECT_GT(std::accumulate(times.begin(), times.end(), 0.0), 0);
  } catch (const Error& e) {
    errors += std::string("initiator: ") + e.what();
  }
  peer.join();
  return errors;
}

// Per mode and protocol, and in pingpong with and without --buffers echo:
// the initiator gets the responder's pattern (its own, echoed, with echo).
TEST(DeviceHostSide, TwoThreadsExchangeVerifiedDataInEveryModeAndBothProtocols) {
  const std::uint64_t max_bytes = 5000;
  for (bool ll : {true, false}) {
    for (int variant = 0; variant < 4; ++variant) {
      const ModeCode mode = variant == 3 ? ModeCode::pingpong : static_cast<ModeCode>(variant);
      const bool echo = variant == 3;
      Boxes boxes(ll ? max_bytes : 0, max_bytes);
      std::vector<unsigned char> send_a(max_bytes), send_b(max_bytes);
      const Links la = boxes.links(true, send_a.data()), lb = boxes.links(false, send_b.data());
      Counters ca, cb;
      std::uint64_t run = 0;
      for (std::uint64_t bytes : {1ULL, 13ULL, 64ULL, 4999ULL}) {
        fill_pattern_host(send_a.data(), bytes, 1000 + bytes);
        fill_pattern_host(send_b.data(), bytes, 2000 + bytes);
        std::memset(la.in.data, 0xA5, bytes);
        std::memset(lb.in.data, 0xA5, bytes);
        for (std::uint32_t reps : {1u, 3u}) {  // warm-up, then timed
          RunSpec a = spec_for(mode, true, bytes, ll, reps, 4), b = spec_for(mode, false, bytes, ll, reps, 4);
          a.echo = b.echo = echo;
          a.run = b.run = ++run;
          a.base = ca;
          b.base = cb;
          ASSERT_EQ(run_both(a, la, b, lb), "") << "mode " << static_cast<int>(mode) << " ll " << ll;
          ca = counters_after(a);
          cb = counters_after(b);
        }
        const std::uint64_t a_pattern = 1000 + bytes, b_pattern = 2000 + bytes;
        if (mode != ModeCode::bw) {  // in bw the initiator only receives acknowledgements
          const std::uint64_t want = echo ? a_pattern : b_pattern;
          EXPECT_EQ(verify_pattern_host(la.in.data, bytes, want), bytes) << bytes << " B, mode " << static_cast<int>(mode);
        }
        EXPECT_EQ(verify_pattern_host(lb.in.data, bytes, a_pattern), bytes) << bytes << " B, mode " << static_cast<int>(mode);
      }
    }
  }
}

TEST(DeviceHostSide, AMessageInPartsIsCompleteOnlyWhenEveryPartArrived) {
  const std::uint64_t bytes = 3000;
  Boxes boxes(0, bytes);
  std::vector<unsigned char> unused(bytes), message(bytes);
  fill_pattern_host(message.data(), bytes, 77);
  const Links responder = boxes.links(false, unused.data());
  const Links gpu_like = boxes.links(true, message.data());  // writes as a 3-block sender would
  RunSpec r = spec_for(ModeCode::pingpong, false, bytes, false, 1, 1);
  r.echo = true;  // so what comes back is the message itself
  r.run = 1;
  r.peer_parts = 3;
  std::atomic<bool> done{false};
  std::thread t([&] {
    run_host_side(r, responder);
    done = true;
  });
  __atomic_store_n(&gpu_like.out.flags->ready, 1, __ATOMIC_RELEASE);
  for (std::uint32_t b = 0; b < 3; ++b) {
    std::uint64_t begin = 0, end = 0;
    part_range(bytes, 3, b, begin, end);
    std::memcpy(gpu_like.out.data + begin, message.data() + begin, end - begin);
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    EXPECT_FALSE(done) << "the echo left before part " << b << " arrived";
    EXPECT_EQ(__atomic_load_n(&gpu_like.in.flags->parts[0], __ATOMIC_ACQUIRE), 0u);
    __atomic_store_n(&gpu_like.out.flags->parts[b], 1, __ATOMIC_RELEASE);
  }
  t.join();
  EXPECT_EQ(__atomic_load_n(&gpu_like.in.flags->parts[0], __ATOMIC_ACQUIRE), 1u);  // the echo's flag
  EXPECT_EQ(verify_pattern_host(gpu_like.in.data, bytes, 77), bytes);                   // and its data
}

std::string host_side_error(const RunSpec& s, const Links& l) {
  try {
    run_host_side(s, l);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::timeout);
    return e.what();
  }
  return "no error";
}

TEST(DeviceHostSide, APeerThatNeverStartsIsATimeoutSayingWhatWasAwaited) {
  Boxes boxes(64, 64);
  std::vector<unsigned char> send(64);
  RunSpec s = spec_for(ModeCode::pingpong, true, 8, true, 3, 1);
  s.run = 1;
  s.timeout_ns = 50'000'000;
  const auto t0 = std::chrono::steady_clock::now();
  const std::string what = host_side_error(s, boxes.links(true, send.data()));
  EXPECT_NE(what.find("gave up after 0.05 s waiting for the peer to start run 1"), std::string::npos) << what;
  // Gave up rather than waited for ever; 60 s is a bound, not the expected time.
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(60));
}

TEST(DeviceHostSide, APeerThatStopsMidRunIsATimeoutNamingTheMessage) {
  for (bool ll : {true, false}) {
    Boxes boxes(ll ? 64 : 0, 64);
    std::vector<unsigned char> send(64);
    RunSpec a = spec_for(ModeCode::pingpong, true, 64, ll, 3, 1), b = spec_for(ModeCode::pingpong, false, 64, ll, 1, 1);
    a.run = b.run = 1;
    // Long enough for the peer thread to answer message 1 on a loaded
    // machine (a short one could end at "waiting for message 1" instead).
    a.timeout_ns = 2'000'000'000;
    std::thread peer([&] { run_host_side(b, boxes.links(false, send.data())); });  // answers one round trip only
    const std::string what = host_side_error(a, boxes.links(true, send.data()));
    peer.join();
    EXPECT_NE(what.find("waiting for message 2"), std::string::npos) << what;
  }
}

Options device_options(Mode mode) {
  Options o;
  o.transport = TransportKind::device;
  o.mode = mode;
  o.num_sizes = 6;  // 8 B .. 256 B: LL up to 32 B, stores + flags above
  o.ll_max_bytes = 32;
  o.loop_count = 3;
  o.warmup = 1;
  o.window = 4;
  o.timeout_s = 10;
  return o;
}

TEST(PingpongDevice, HostBuffersOnBothRanksRunTheProtocolThroughSharedMemory) {
  for (int variant = 0; variant < 4; ++variant) {  // every mode, and pingpong with --buffers echo
    Options opts = device_options(variant == 3 ? Mode::pingpong : static_cast<Mode>(variant));
    if (variant == 3) opts.buffers = Buffers::echo;
    const auto out = run_all_ranks<Result>({2, {}}, [&](comm::Communicator& c) { return run(c, opts); });
    for (const auto& [rank, o] : out) {
      ASSERT_TRUE(o.result) << "rank " << rank << ": " << o.error->what();
      const PairResult& p = o.result->pairs.at(0);
      EXPECT_EQ(p.transport, "device");
      EXPECT_NE(p.path.find("both ranks: a CPU thread stores into the peer's mailbox"), std::string::npos) << p.path;
      ASSERT_EQ(p.sizes.size(), 6u);
      for (const auto& s : p.sizes) {
        EXPECT_TRUE(s.verified) << s.bytes << " B: " << s.verify_error;
        EXPECT_EQ(s.one_way_s.count, 3);
        EXPECT_GT(s.one_way_s.median, 0);
        EXPECT_LE(s.one_way_s.median, s.one_way_s.p99);
        EXPECT_LE(s.one_way_s.p99, s.one_way_s.max);
      }
    }
  }
}

TEST(PingpongDevice, AllPairsMeasuresEveryPairOverSharedMemory) {
  Options o = device_options(Mode::pingpong);
  o.all_pairs = true;
  o.num_sizes = 2;
  const auto out = run_all_ranks<Result>({3, {}}, [&](comm::Communicator& c) { return run(c, o); });
  for (const auto& [rank, ro] : out) {
    ASSERT_TRUE(ro.result) << "rank " << rank << ": " << ro.error->what();
    ASSERT_EQ(ro.result->pairs.size(), 3u);
    for (const auto& p : ro.result->pairs) EXPECT_EQ(p.transport, "device");
    EXPECT_FALSE(first_failure(*ro.result));
  }
}

TEST(PingpongDevice, CorruptedDataFailsTheRunWithTheFirstBadOffset) {
  Environment env = default_environment();
  env.make_transport = [](TransportKind k, const PairContext& ctx) -> std::unique_ptr<Transport> {
    auto t = make_transport(k, ctx);
    if (!ctx.initiator) return t;
    return std::make_unique<CorruptingTransport>(std::move(t), 5);
  };
  Options o = device_options(Mode::pingpong);
  o.num_sizes = 2;
  o.min_bytes = 64;
  std::optional<Result> result;
  comm::run_ranks({2, {}}, [&](comm::Communicator& c) {
    auto r = run(c, o, env);
    if (c.rank() == 0) result = r;
  });
  ASSERT_TRUE(result);
  const auto failure = first_failure(*result);
  ASSERT_TRUE(failure);
  EXPECT_EQ(failure->kind(), ErrorKind::verification);
  EXPECT_NE(std::string(failure->what()).find("initiator received wrong data at byte offset 5"), std::string::npos)
      << failure->what();
}

TEST(PingpongDevice, ARankThatNeverRunsItsSideEndsTheRunWithATimeoutNamingIt) {
  Environment env = default_environment();
  env.make_transport = [](TransportKind k, const PairContext& ctx) -> std::unique_ptr<Transport> {
    auto t = make_transport(k, ctx);
    if (ctx.initiator) return t;
    return std::make_unique<SilentTransport>(std::move(t));  // connects, never runs its side
  };
  Options o = device_options(Mode::pingpong);
  // Every exchange before the silent run must succeed within it, also on a
  // loaded machine, or rank 0 would time out elsewhere, with another message.
  o.timeout_s = 2;
  const auto out = run_all_ranks<Result>({2, {}}, [&](comm::Communicator& c) { return run(c, o, env); });
  const auto& err = out.at(0).error;
  ASSERT_TRUE(err);
  EXPECT_EQ(err->kind(), ErrorKind::timeout);
  EXPECT_NE(std::string(err->what()).find("rank 0 (host): rank 1 (host) did not answer within 2 s"),
            std::string::npos)
      << err->what();
}

}  // namespace
}  // namespace xb::pingpong
