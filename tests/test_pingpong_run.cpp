// Whole pingpong runs over the in-process communicator (threads as ranks,
// host buffers): results, modes, --all-pairs, and the faults that must end
// every rank with the same error instead of a hang.
#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <set>

#include "comm/inproc_comm.hpp"
#include "pingpong/runner.hpp"
#include "pingpong/transport.hpp"
#include "rank_outcomes.hpp"

namespace xb::pingpong {
namespace {

Options small_options() {
  Options o;
  o.num_sizes = 5;  // 8 .. 128 B
  o.loop_count = 3;
  o.warmup = 1;
  o.window = 4;
  o.timeout_s = 5;
  return o;
}

std::map<int, RankOutcome<Result>> run_all(const comm::InprocOptions& world, const Options& o,
                                           const Environment& env = default_environment()) {
  return run_all_ranks<Result>(world, [&](comm::Communicator& c) { return run(c, o, env); });
}

TEST(PingpongRun, TwoRankHostPingpongMeasuresAndVerifiesEverySize) {
  const auto out = run_all({2, {}}, small_options());
  for (const auto& [rank, o] : out) {
    ASSERT_TRUE(o.result) << "rank " << rank << ": " << (o.error ? o.error->what() : "");
    ASSERT_EQ(o.result->pairs.size(), 1u);
    const PairResult& p = o.result->pairs[0];
    EXPECT_EQ(p.transport, "mpi");
    EXPECT_EQ(p.gpu_a, -1);
    ASSERT_EQ(p.sizes.size(), 5u);
    EXPECT_EQ(p.sizes.back().bytes, 128u);
    for (const auto& s : p.sizes) {
      EXPECT_TRUE(s.verified) << s.verify_error;
      EXPECT_EQ(s.one_way_s.count, 3);
      EXPECT_GT(s.one_way_s.mean, 0);
      EXPECT_GT(s.bandwidth_gbps, 0);
      EXPECT_LE(s.one_way_s.min, s.one_way_s.max);
    }
    EXPECT_FALSE(first_failure(*o.result));
  }
}

TEST(PingpongRun, BwAndBibwModesVerifyTheirReceiveBuffers) {
  for (Mode mode : {Mode::bw, Mode::bibw}) {
    Options o = small_options();
    o.mode = mode;
    const auto out = run_all({2, {}}, o);
    ASSERT_TRUE(out.at(0).result) << out.at(0).error->what();
    EXPECT_FALSE(first_failure(*out.at(0).result)) << to_string(mode);
    EXPECT_EQ(out.at(0).result->mode, mode);
  }
}

TEST(PingpongRun, AllPairsWithFiveRanksMeasuresTenPairsWithByes) {
  Options o = small_options();
  o.num_sizes = 2;
  o.all_pairs = true;
  const auto out = run_all({5, {"a", "a", "b", "b", "c"}}, o);
  ASSERT_EQ(out.size(), 5u);
  for (const auto& [rank, ro] : out) {
    ASSERT_TRUE(ro.result) << "rank " << rank << ": " << ro.error->what();
    ASSERT_EQ(ro.result->pairs.size(), 10u);
    EXPECT_EQ(ro.result->pairs[0].rank_a, 0);
    EXPECT_EQ(ro.result->pairs[0].rank_b, 1);
    EXPECT_EQ(ro.result->pairs[9].rank_a, 3);
    EXPECT_EQ(ro.result->pairs[9].rank_b, 4);
    EXPECT_EQ(ro.result->pairs[9].host_b, "c");
    EXPECT_FALSE(first_failure(*ro.result));
  }
}

void expect_same_error_everywhere(const std::map<int, RankOutcome<Result>>& out, ErrorKind kind, const std::string& text) {
  expect_every_rank_failed(out, kind, text);
}

TEST(PingpongRun, MoreThanTwoRanksNeedAllPairs) {
  expect_same_error_everywhere(run_all({3, {}}, small_options()), ErrorKind::usage, "--all-pairs");
}

Environment fake_gpus(int count, bool nccl) {
  Environment env = default_environment();
  env.device_count = [count] { return count; };
  env.nccl_available = [nccl] { return nccl; };
  env.gpu_identity = [](int d) { return GpuIdentity{"bus" + std::to_string(d), {"bus" + std::to_string(d)}}; };
  return env;
}

TEST(PingpongRun, AGpuIdOutOfRangeOnOneRankStopsEveryRank) {
  Options o = small_options();
  o.dev2 = Endpoint{true, 5};  // only rank 1 holds dev2
  expect_same_error_everywhere(run_all({2, {}}, o, fake_gpus(2, false)), ErrorKind::usage,
                               "rank 1: gpu 5 is out of range");
}

TEST(PingpongRun, AGpuAskedForOnAMachineWithoutOneIsNoDevice) {
  Options o = small_options();
  o.dev1 = Endpoint{true, -1};
  expect_same_error_everywhere(run_all({2, {}}, o, fake_gpus(0, false)), ErrorKind::no_device, "rank 0:");
}

TEST(PingpongRun, GpuBuffersOverMpiThatIsNotCudaAwareNameTheAlternatives) {
  Options o = small_options();
  o.dev1 = Endpoint{true, -1};
  o.transport = TransportKind::mpi;
  o.cuda_aware = CudaAware::no;
  expect_same_error_everywhere(run_all({2, {}}, o, fake_gpus(2, false)), ErrorKind::usage,
                               "use --transport staged, ipc or nccl");
}

TEST(PingpongRun, NcclMissingIsACleanErrorNamingTheLibrary) {
  Options o = small_options();
  o.dev1 = o.dev2 = Endpoint{true, -1};
  o.transport = TransportKind::nccl;
  expect_same_error_everywhere(run_all({2, {}}, o, fake_gpus(2, false)), ErrorKind::comm, "libnccl.so.2");
}

TEST(PingpongRun, ADeadPeerBecomesATimeoutNamingIt) {
  Options o = small_options();
  o.timeout_s = 0.3;
  std::optional<Error> err;
  comm::run_ranks({2, {}}, [&](comm::Communicator& c) {
    if (c.rank() == 1) return;  // dies before taking part
    try {
      run(c, o);
    } catch (const Error& e) {
      err = e;
    }
  });
  ASSERT_TRUE(err);
  EXPECT_EQ(err->kind(), ErrorKind::timeout);
  EXPECT_NE(std::string(err->what()).find("rank 1 did not answer within 0.3 s"), std::string::npos) << err->what();
}

// Passes everything through, but flips one byte of every data message
// `corrupted_rank` sends, as a faulty link would.
class CorruptingComm final : public comm::Communicator {
 public:
  explicit CorruptingComm(comm::Communicator& inner, int corrupted_rank = 1)
      : inner_(inner), corrupted_rank_(corrupted_rank) {}
  int rank() const override { return inner_.rank(); }
  int size() const override { return inner_.size(); }
  int local_rank() const override { return inner_.local_rank(); }
  int local_size() const override { return inner_.local_size(); }
  std::string host_name() const override { return inner_.host_name(); }
  std::string name() const override { return "corrupting"; }
  comm::Request isend(int peer, int tag, const void* data, std::size_t bytes) override {
    if (tag != kTagData || rank() != corrupted_rank_ || bytes == 0) return inner_.isend(peer, tag, data, bytes);
    std::vector<unsigned char> copy(static_cast<const unsigned char*>(data),
                                    static_cast<const unsigned char*>(data) + bytes);
    copy[bytes / 2] ^= 0x10;
    return inner_.isend(peer, tag, copy.data(), bytes);  // inproc sends are buffered
  }
  comm::Request irecv(int peer, int tag, void* data, std::size_t bytes) override {
    return inner_.irecv(peer, tag, data, bytes);
  }
  void wait_all(comm::Request* r, std::size_t n, comm::Seconds t) override { inner_.wait_all(r, n, t); }

 private:
  comm::Communicator& inner_;
  int corrupted_rank_;
};

TEST(PingpongRun, CorruptedDataFailsVerification) {
  std::optional<Result> result;
  comm::run_ranks({2, {}}, [&](comm::Communicator& c) {
    CorruptingComm bad(c);
    auto r = run(bad, small_options());
    if (c.rank() == 0) result = r;
  });
  ASSERT_TRUE(result);
  const auto failure = first_failure(*result);
  ASSERT_TRUE(failure);
  EXPECT_EQ(failure->kind(), ErrorKind::verification);
  EXPECT_NE(std::string(failure->what()).find("initiator received wrong data"), std::string::npos)
      << failure->what();
}

// The first verification failure of a two-rank run where `corrupted_rank`'s
// data messages are corrupted on the way.
std::string failure_with_corrupted_sends(const Options& o, int corrupted_rank) {
  std::optional<Result> result;
  comm::run_ranks({2, {}}, [&](comm::Communicator& c) {
    CorruptingComm bad(c, corrupted_rank);
    auto r = run(bad, o);
    if (c.rank() == 0) result = r;
  });
  if (!result) return "no result";
  const auto failure = first_failure(*result);
  if (!failure) return "no failure";
  EXPECT_EQ(failure->kind(), ErrorKind::verification);
  return failure->what();
}

// With separate buffers the responder checks what it received
// itself (the initiator's pattern) and the initiator checks the
// responder's pattern, so a corruption on either way is caught on the rank
// that received it. (When the responder echoed, the initiator's check was
// the one that failed.)
TEST(PingpongRun, EachRankVerifiesWhatItReceivedFromThePeer) {
  const std::string to_responder = failure_with_corrupted_sends(small_options(), 0);
  EXPECT_NE(to_responder.find("rank responder received wrong data at byte offset"), std::string::npos) << to_responder;
  const std::string to_initiator = failure_with_corrupted_sends(small_options(), 1);
  EXPECT_NE(to_initiator.find("rank initiator received wrong data at byte offset"), std::string::npos) << to_initiator;
  Options echo = small_options();
  echo.buffers = Buffers::echo;  // the initiator's pattern comes back corrupted
  const std::string echoed = failure_with_corrupted_sends(echo, 0);
  EXPECT_NE(echoed.find("received wrong data at byte offset"), std::string::npos) << echoed;
}

// Records the buffers each rank hands to data sends and receives.
class RecordingComm final : public comm::Communicator {
 public:
  explicit RecordingComm(comm::Communicator& inner) : inner_(inner) {}
  int rank() const override { return inner_.rank(); }
  int size() const override { return inner_.size(); }
  int local_rank() const override { return inner_.local_rank(); }
  int local_size() const override { return inner_.local_size(); }
  std::string host_name() const override { return inner_.host_name(); }
  std::string name() const override { return "recording"; }
  comm::Request isend(int peer, int tag, const void* data, std::size_t bytes) override {
    if (tag == kTagData) sent.insert(data);
    return inner_.isend(peer, tag, data, bytes);
  }
  comm::Request irecv(int peer, int tag, void* data, std::size_t bytes) override {
    if (tag == kTagData) received.insert(data);
    return inner_.irecv(peer, tag, data, bytes);
  }
  void wait_all(comm::Request* r, std::size_t n, comm::Seconds t) override { inner_.wait_all(r, n, t); }
  bool test(comm::Request& r) override { return inner_.test(r); }  // the staged pipeline polls
  void cancel(comm::Request& r) override { inner_.cancel(r); }
  std::set<const void*> sent, received;

 private:
  comm::Communicator& inner_;
};

struct Recorded {
  std::set<const void*> sent, received;
  bool verified = false;
};

// Runs a two-rank pingpong over `kind` (mpi, or staged with host buffers,
// which sends its chunks straight from the buffers) and returns what each
// rank handed to data sends and receives.
std::map<int, Recorded> record_buffers(TransportKind kind, Buffers buffers) {
  Options o = small_options();
  o.buffers = buffers;
  Environment env = default_environment();
  env.make_transport = [kind](TransportKind, const PairContext& ctx) { return make_transport(kind, ctx); };
  std::map<int, Recorded> out;
  std::mutex m;
  comm::run_ranks({2, {}}, [&](comm::Communicator& c) {
    RecordingComm rec(c);
    const Result r = run(rec, o, env);
    std::lock_guard<std::mutex> lock(m);
    out[c.rank()] = Recorded{rec.sent, rec.received, !first_failure(r)};
  });
  return out;
}

bool disjoint(const std::set<const void*>& a, const std::set<const void*>& b) {
  for (const void* p : a) {
    if (b.count(p) != 0) return false;
  }
  return true;
}

// As osu_latency and the mpi-ping-pong seed, both ranks send from
// one buffer and receive into another; --buffers echo keeps the old way
// (the responder sends from the buffer it received into).
TEST(PingpongRun, TheResponderSendsFromItsSendBufferUnlessAskedToEcho) {
  for (TransportKind kind : {TransportKind::mpi, TransportKind::staged}) {
    const auto separate = record_buffers(kind, Buffers::separate);
    for (const auto& [rank, rec] : separate) {
      EXPECT_TRUE(rec.verified) << to_string(kind) << " rank " << rank;
      ASSERT_FALSE(rec.sent.empty());
      ASSERT_FALSE(rec.received.empty());
      EXPECT_TRUE(disjoint(rec.sent, rec.received)) << to_string(kind) << ": rank " << rank
                                                    << " sent from a buffer it receives into";
    }
    const auto echo = record_buffers(kind, Buffers::echo);
    EXPECT_TRUE(echo.at(0).verified && echo.at(1).verified) << to_string(kind);
    EXPECT_TRUE(disjoint(echo.at(0).sent, echo.at(0).received)) << to_string(kind);
    EXPECT_EQ(echo.at(1).sent, echo.at(1).received) << to_string(kind) << ": the responder echoes";
  }
}

}  // namespace
}  // namespace xb::pingpong
