// Pure parts of pingpong: options, sizes, patterns, the round-robin
// schedule, transport choice, device resolution and per-size statistics.
#include <gtest/gtest.h>

#include <set>

#include "base/pattern.hpp"
#include "pingpong/options.hpp"
#include "pingpong/result.hpp"
#include "pingpong/schedule.hpp"
#include "pingpong/select.hpp"
#include "pingpong/pingpong_json.hpp"

namespace xb::pingpong {
namespace {

TEST(PingpongOptions, DefaultSweepIsTheSeeds8BytesTo128MiB) {
  const auto sizes = message_sizes(Options{});
  ASSERT_EQ(sizes.size(), 25u);
  EXPECT_EQ(sizes.front(), 8u);
  EXPECT_EQ(sizes.back(), 128u << 20);
  EXPECT_EQ(sizes[1], 16u);
}

TEST(PingpongOptions, SizesAboveMpisIntCountAreRefused) {
  Options o;
  o.num_sizes = 29;  // 8 B << 28 = 2 GiB
  EXPECT_THROW(message_sizes(o), Error);
  o.num_sizes = 28;
  EXPECT_NO_THROW(message_sizes(o));
}

TEST(PingpongOptions, ValidateRejectsOutOfRangeCounts) {
  using Breaker = void (*)(Options&);
  const Breaker breakers[] = {[](Options& o) { o.num_sizes = 0; },        [](Options& o) { o.loop_count = 0; },
                              [](Options& o) { o.window = 0; },           [](Options& o) { o.timeout_s = 0; },
                              [](Options& o) { o.warmup = -1; },          [](Options& o) { o.window = 2000000000; },
                              [](Options& o) { o.ll_max_bytes = 2 << 20; }, [](Options& o) { o.stage_chunk_bytes = 1; }};
  for (Breaker bad : breakers) {
    Options o;
    bad(o);
    EXPECT_THROW(validate(o), Error);
  }
  EXPECT_NO_THROW(validate(Options{}));
}

TEST(PingpongOptions, EndpointsAcceptOurAndTheSeedsSpellings) {
  EXPECT_FALSE(parse_endpoint("host").gpu);
  EXPECT_FALSE(parse_endpoint("vh").gpu);
  EXPECT_TRUE(parse_endpoint("ve").gpu);
  EXPECT_EQ(parse_endpoint("gpu").device, -1);
  EXPECT_EQ(parse_endpoint("gpu:3").device, 3);
  EXPECT_EQ(to_string(parse_endpoint("gpu:3")), "gpu:3");
  for (const char* bad : {"", "cpu", "gpu:", "gpu:x", "gpu:-1"}) {
    EXPECT_THROW(parse_endpoint(bad), Error) << bad;
  }
}

TEST(PingpongOptions, EnumNamesRoundTrip) {
  for (const char* t : {"auto", "mpi", "staged", "ipc", "nccl", "device"}) {
    EXPECT_STREQ(to_string(parse_transport(t)), t);
  }
  for (const char* m : {"pingpong", "bw", "bibw"}) EXPECT_STREQ(to_string(parse_mode(m)), m);
  EXPECT_THROW(parse_transport("tcp"), Error);
  EXPECT_THROW(parse_mode("latency"), Error);
  EXPECT_THROW(parse_cuda_aware("maybe"), Error);
}

// Separate send and receive buffers unless --buffers echo, which
// only means something for round trips.
TEST(PingpongOptions, BuffersAreSeparateByDefaultAndEchoIsForPingpongOnly) {
  EXPECT_EQ(Options{}.buffers, Buffers::separate);
  for (const char* b : {"separate", "echo"}) EXPECT_STREQ(to_string(parse_buffers(b)), b);
  try {
    parse_buffers("same");
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_EQ(std::string(e.what()), "invalid --buffers 'same': use separate or echo");
  }
  Options o;
  o.buffers = Buffers::echo;
  EXPECT_NO_THROW(validate(o));
  o.mode = Mode::bibw;
  try {
    validate(o);
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_NE(std::string(e.what()).find("--buffers echo applies to --mode pingpong only, not --mode bibw"),
              std::string::npos)
        << e.what();
  }
}

TEST(PingpongPattern, MatchesItselfAndFindsTheFirstWrongByte) {
  std::vector<unsigned char> buf(1003);
  fill_pattern_host(buf.data(), buf.size(), 7);
  EXPECT_EQ(verify_pattern_host(buf.data(), buf.size(), 7), buf.size());
  EXPECT_LT(verify_pattern_host(buf.data(), buf.size(), 8), buf.size());
  buf[517] ^= 1;
  EXPECT_EQ(verify_pattern_host(buf.data(), buf.size(), 7), 517u);
}

TEST(PingpongPattern, AllZeroDataNeverPasses) {
  std::vector<unsigned char> zeros(64, 0);
  EXPECT_LT(verify_pattern_host(zeros.data(), zeros.size(), 42), zeros.size());
}

class RoundRobin : public ::testing::TestWithParam<int> {};

TEST_P(RoundRobin, EveryPairOnceAndNoRankTwiceInARound) {
  const int n = GetParam();
  const auto rounds = round_robin(n);
  EXPECT_EQ(static_cast<int>(rounds.size()), n % 2 == 0 ? n - 1 : n);
  std::set<Pair> seen;
  for (const auto& round : rounds) {
    std::set<int> busy;
    for (const auto& [a, b] : round) {
      EXPECT_LT(a, b);
      EXPECT_TRUE(busy.insert(a).second);
      EXPECT_TRUE(busy.insert(b).second);
      EXPECT_TRUE(seen.insert({a, b}).second);
    }
    // Even counts keep every rank busy; odd counts give exactly one bye.
    EXPECT_EQ(static_cast<int>(busy.size()), n - n % 2);
  }
  EXPECT_EQ(static_cast<int>(seen.size()), n * (n - 1) / 2);
}

INSTANTIATE_TEST_SUITE_P(PingpongSchedule, RoundRobin, ::testing::Values(2, 3, 4, 5, 8, 9));

TEST(PingpongSelect, GpusMapByLocalRankAndOutOfRangeIdsAreUsageErrors) {
  EXPECT_EQ(resolve_device(Endpoint{}, 3, 0), -1);
  EXPECT_EQ(resolve_device(Endpoint{true, -1}, 3, 2), 1);
  EXPECT_EQ(resolve_device(Endpoint{true, 1}, 0, 2), 1);
  try {
    resolve_device(Endpoint{true, 2}, 0, 2);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_NE(std::string(e.what()).find("gpu 2 is out of range"), std::string::npos);
  }
  try {
    resolve_device(Endpoint{true, -1}, 0, 0);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::no_device);
  }
}

RankInfo info(int rank, const std::string& host, bool nccl, comm::GpuBuffers aware) {
  RankInfo r;
  r.rank = rank;
  r.host = host;
  r.nccl = nccl;
  r.mpi_gpu = aware;
  return r;
}

TEST(PingpongSelect, AutomaticPicksTheBestPathPerPair) {
  using comm::GpuBuffers;
  const auto a = info(0, "n0", true, GpuBuffers::no);
  const auto b_same = info(1, "n0", true, GpuBuffers::no);
  const auto b_far = info(1, "n1", true, GpuBuffers::no);
  const auto b_far_no_nccl = info(1, "n1", false, GpuBuffers::no);
  const auto auto_ = TransportKind::automatic;
  EXPECT_EQ(choose_transport(auto_, a, -1, b_same, -1), TransportKind::mpi);
  EXPECT_EQ(choose_transport(auto_, a, 0, b_same, 1), TransportKind::ipc);
  EXPECT_EQ(choose_transport(auto_, a, 0, b_far, 0), TransportKind::nccl);
  EXPECT_EQ(choose_transport(auto_, a, 0, b_far_no_nccl, 0), TransportKind::staged);
  EXPECT_EQ(choose_transport(auto_, a, -1, b_same, 0), TransportKind::device);
  EXPECT_EQ(choose_transport(auto_, a, -1, b_far, 0), TransportKind::staged);
  const auto aware = info(0, "n0", false, GpuBuffers::yes);
  const auto aware_b = info(1, "n1", false, GpuBuffers::yes);
  EXPECT_EQ(choose_transport(auto_, aware, 0, aware_b, 0), TransportKind::mpi);
}

// Ranks on one host whose GPUs (bus ids) reach each other, or not.
std::pair<RankInfo, RankInfo> gpu_pair(bool peers) {
  auto a = info(0, "n0", false, comm::GpuBuffers::no);
  auto b = info(1, "n0", false, comm::GpuBuffers::no);
  a.bus_as_dev1 = "0000:19:00.0";
  b.bus_as_dev2 = "0000:3b:00.0";
  a.peers_as_dev1 = {a.bus_as_dev1};
  b.peers_as_dev2 = {b.bus_as_dev2};
  if (peers) {
    a.peers_as_dev1.push_back(b.bus_as_dev2);
    b.peers_as_dev2.push_back(a.bus_as_dev1);
  }
  return {a, b};
}

TEST(PingpongSelect, AutomaticPicksTheDevicePathWhereThePeersReachEachOther) {
  const auto [a, b] = gpu_pair(true);
  EXPECT_TRUE(peer_access(a, b));
  EXPECT_EQ(choose_transport(TransportKind::automatic, a, 0, b, 1), TransportKind::device);
  const auto [c, d] = gpu_pair(false);
  EXPECT_FALSE(peer_access(c, d));
  EXPECT_EQ(choose_transport(TransportKind::automatic, c, 0, d, 1), TransportKind::ipc);
  // A host buffer and a GPU buffer on one host: the device path too, while
  // /dev/shm has room for its segment; staged otherwise.
  auto roomy = a;
  roomy.shm_free = 1 << 30;
  EXPECT_EQ(choose_transport(TransportKind::automatic, roomy, -1, b, 1, 1 << 30), TransportKind::device);
  EXPECT_EQ(choose_transport(TransportKind::automatic, roomy, -1, b, 1, (1 << 30) + 1), TransportKind::staged);
  EXPECT_EQ(choose_transport(TransportKind::device, a, -1, b, 1), TransportKind::device);
  EXPECT_EQ(choose_transport(TransportKind::device, a, -1, b, -1), TransportKind::device);
}

TEST(PingpongSelect, TheDevicePathWithoutPeerAccessOrAcrossHostsNamesTheAlternatives) {
  const auto message = [](auto fn) {
    try {
      fn();
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::usage);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const auto [a, b] = gpu_pair(false);
  const auto no_peer = message([&] { choose_transport(TransportKind::device, a, 0, b, 1); });
  EXPECT_NE(no_peer.find("needs peer access between gpu 0 of rank 0 and gpu 1 of rank 1"), std::string::npos)
      << no_peer;
  EXPECT_NE(no_peer.find("use --transport ipc, nccl or staged"), std::string::npos) << no_peer;
  auto far = b;
  far.host = "n1";
  const auto two_hosts = message([&] { choose_transport(TransportKind::device, a, -1, far, 1); });
  EXPECT_NE(two_hosts.find("needs both ranks on one host"), std::string::npos) << two_hosts;
}

// Both ranks on one GPU: two processes' persistent kernels would take turns
// (seen on an H200: ~2 ms per message), so auto keeps ipc and an explicit
// device request is refused naming the GPU.
TEST(PingpongSelect, TheDevicePathNeedsTwoGpus) {
  auto [a, b] = gpu_pair(true);
  b.bus_as_dev2 = a.bus_as_dev1;
  EXPECT_EQ(choose_transport(TransportKind::automatic, a, 0, b, 0), TransportKind::ipc);
  try {
    choose_transport(TransportKind::device, a, 0, b, 0);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_NE(std::string(e.what()).find("both use the GPU at 0000:19:00.0"), std::string::npos) << e.what();
  }
}

TEST(PingpongSelect, ImpossibleRequestsNameTheAlternatives) {
  using comm::GpuBuffers;
  const auto a = info(0, "n0", false, GpuBuffers::no);
  const auto b = info(1, "n1", false, GpuBuffers::unknown);
  const auto message = [](auto fn) {
    try {
      fn();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const auto mpi_gpu = message([&] { choose_transport(TransportKind::mpi, a, 0, b, -1); });
  EXPECT_NE(mpi_gpu.find("not CUDA-aware"), std::string::npos) << mpi_gpu;
  EXPECT_NE(mpi_gpu.find("staged, ipc or nccl"), std::string::npos) << mpi_gpu;
  const auto unknown = message([&] { choose_transport(TransportKind::mpi, a, -1, b, 0); });
  EXPECT_NE(unknown.find("could not be checked"), std::string::npos) << unknown;
  EXPECT_NE(message([&] { choose_transport(TransportKind::ipc, a, 0, b, 0); }).find("one host"), std::string::npos);
  EXPECT_NE(message([&] { choose_transport(TransportKind::ipc, a, -1, b, 0); }).find("GPU buffers on both"),
            std::string::npos);
  EXPECT_NE(message([&] { choose_transport(TransportKind::nccl, a, 0, b, 0); }).find("libnccl.so.2"),
            std::string::npos);
  EXPECT_EQ(choose_transport(TransportKind::staged, a, -1, b, -1), TransportKind::mpi);
  EXPECT_EQ(choose_transport(TransportKind::staged, a, 0, b, 0), TransportKind::staged);
}

TEST(PingpongSelect, RankInfoSurvivesItsWireFormat) {
  RankInfo r = info(3, "node-7", true, comm::GpuBuffers::yes);
  r.local_rank = 1;
  r.gpu_as_dev1 = 1;
  r.gpu_as_dev2 = -1;
  r.bus_as_dev1 = "0000:19:00.0";
  r.peers_as_dev1 = {"0000:19:00.0", "0000:3b:00.0"};
  const RankInfo back = rank_info_from_json(to_json(r));
  EXPECT_EQ(back.bus_as_dev1, r.bus_as_dev1);
  EXPECT_EQ(back.peers_as_dev1, r.peers_as_dev1);
  EXPECT_TRUE(back.peers_as_dev2.empty());
  EXPECT_EQ(back.rank, 3);
  EXPECT_EQ(back.host, "node-7");
  EXPECT_EQ(back.local_rank, 1);
  EXPECT_EQ(back.gpu_as_dev1, 1);
  EXPECT_EQ(back.gpu_as_dev2, -1);
  EXPECT_TRUE(back.nccl);
  EXPECT_EQ(back.mpi_gpu, comm::GpuBuffers::yes);
}

TEST(PingpongResult, PingpongHalvesTheRoundTrip) {
  const SizeResult s = summarize_size(Mode::pingpong, 1000, 64, {2e-6, 4e-6});
  EXPECT_DOUBLE_EQ(s.one_way_s.mean, 1.5e-6);
  EXPECT_DOUBLE_EQ(s.one_way_s.min, 1e-6);
  EXPECT_DOUBLE_EQ(s.one_way_s.max, 2e-6);
  EXPECT_NEAR(s.bandwidth_gbps, 1000 / 1.5e-6 / 1e9, 1e-12);
  EXPECT_NEAR(s.bandwidth_max_gbps, 1.0, 1e-12);
  EXPECT_NEAR(s.bandwidth_min_gbps, 0.5, 1e-12);
}

TEST(PingpongResult, WindowedModesDivideByTheWindowAndBibwCountsBothWays) {
  const SizeResult bw = summarize_size(Mode::bw, 1000, 10, {1e-5});
  EXPECT_DOUBLE_EQ(bw.one_way_s.mean, 1e-6);
  EXPECT_NEAR(bw.bandwidth_gbps, 1.0, 1e-12);
  const SizeResult bibw = summarize_size(Mode::bibw, 1000, 10, {1e-5});
  EXPECT_NEAR(bibw.bandwidth_gbps, 2.0, 1e-12);
}

TEST(PingpongResult, FirstFailurePrefersPairErrorsThenVerification) {
  Result r;
  r.pairs.resize(2);
  r.pairs[0].sizes.resize(1);
  r.pairs[0].sizes[0].verified = true;
  EXPECT_FALSE(first_failure(r).has_value());
  r.pairs[0].sizes[0].verified = false;
  r.pairs[0].sizes[0].verify_error = "bad byte";
  ASSERT_TRUE(first_failure(r).has_value());
  EXPECT_EQ(first_failure(r)->kind(), ErrorKind::verification);
  r.pairs[1].error = "rank 3: cuda error";
  r.pairs[1].error_kind = ErrorKind::cuda;
  EXPECT_EQ(first_failure(r)->kind(), ErrorKind::cuda);
}

TEST(PingpongResult, PairsSurviveTheirWireFormat) {
  PairResult p;
  p.rank_a = 2;
  p.rank_b = 5;
  p.host_a = "x";
  p.host_b = "y";
  p.gpu_a = 1;
  p.transport = "nccl";
  p.path = "rank 2: through the network";
  p.sizes.push_back(summarize_size(Mode::pingpong, 64, 1, {1e-6, 3e-6}));
  p.sizes[0].verified = true;
  const auto back = records::pairs_from_wire(records::pairs_to_wire({p}));
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].rank_b, 5);
  EXPECT_EQ(back[0].gpu_a, 1);
  EXPECT_EQ(back[0].gpu_b, -1);
  EXPECT_EQ(back[0].transport, "nccl");
  EXPECT_EQ(back[0].path, p.path);
  ASSERT_EQ(back[0].sizes.size(), 1u);
  EXPECT_DOUBLE_EQ(back[0].sizes[0].one_way_s.mean, p.sizes[0].one_way_s.mean);
  EXPECT_DOUBLE_EQ(back[0].sizes[0].bandwidth_gbps, p.sizes[0].bandwidth_gbps);
  EXPECT_DOUBLE_EQ(back[0].sizes[0].one_way_s.p95, 1.5e-6);
  EXPECT_DOUBLE_EQ(back[0].sizes[0].one_way_s.p99, 1.5e-6);
  EXPECT_TRUE(back[0].sizes[0].verified);
}

}  // namespace
}  // namespace xb::pingpong
