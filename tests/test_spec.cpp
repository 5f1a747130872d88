// Unit tests for the --do spec grammar (multi-gpu-bwtest), its expansion into
// transfers, and the CUts flag mapping. Every README example of both tools
// appears here.
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/error.hpp"
#include "frontends/cuts.hpp"
#include "frontends/spec.hpp"

namespace xb {
namespace {

constexpr std::uint64_t KiB = 1024;
constexpr std::uint64_t MiB = KiB * 1024;
constexpr std::uint64_t GiB = MiB * 1024;

// Runs `call`, expects an xb::Error of `kind` whose message holds `part`.
::testing::AssertionResult fails_with(const std::function<void()>& call, ErrorKind kind,
                                      const std::string& part) {
  try {
    call();
  } catch (const Error& e) {
    const std::string message = e.what();
    if (e.kind() != kind) {
      return ::testing::AssertionFailure() << "kind " << to_string(e.kind()) << ", message: " << message;
    }
    if (message.find(part) == std::string::npos) {
      return ::testing::AssertionFailure() << "message '" << message << "' lacks '" << part << "'";
    }
    if (message.find('\n') != std::string::npos) {
      return ::testing::AssertionFailure() << "message spans lines: " << message;
    }
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "no xb::Error thrown";
}

::testing::AssertionResult spec_fails(const std::string& text, const std::string& part) {
  return fails_with([&] { parse_transfer_spec(text); }, ErrorKind::usage, part);
}

TransferRequest one(const std::string& text) {
  const auto requests = parse_transfer_spec(text);
  EXPECT_EQ(requests.size(), 1u) << text;
  return requests.at(0);
}

Scenario expand(const std::string& text, int device_count) {
  return expand_requests(parse_transfer_spec(text), device_count, StreamMode::per_transfer);
}

std::vector<std::string> labels(const Scenario& scenario) {
  std::vector<std::string> out;
  for (const auto& t : scenario.transfers) out.push_back(t.label);
  return out;
}

// ---- multi-gpu-bwtest README examples -------------------------------------

TEST(SpecReadme, AllWithSizeBeforeDirection) {
  const TransferRequest req = one("all:1024:both");
  EXPECT_TRUE(req.all_devices);
  EXPECT_EQ(req.direction, Direction::both);
  EXPECT_EQ(req.bytes, 1024u);
  EXPECT_EQ(req.spec, "all:1024:both");

  // The README's 5-GPU run: every GPU does HtoD, then every GPU does DtoH.
  const Scenario s = expand("all:1024:both", 5);
  ASSERT_EQ(s.transfers.size(), 10u);
  for (int i = 0; i < 5; ++i) {
    const Transfer& up = s.transfers[static_cast<std::size_t>(i)];
    const Transfer& down = s.transfers[static_cast<std::size_t>(i + 5)];
    EXPECT_EQ(up.exec_device, i);
    EXPECT_TRUE(up.src.on_host());
    EXPECT_EQ(up.dst.device, i);
    EXPECT_EQ(down.exec_device, i);
    EXPECT_EQ(down.src.device, i);
    EXPECT_TRUE(down.dst.on_host());
    EXPECT_EQ(up.bytes, 1024u);
  }
  EXPECT_EQ(s.transfers[0].label, "host->gpu0");
  EXPECT_EQ(s.transfers[9].label, "gpu4->host");
}

TEST(SpecReadme, MappedDtoHAndSecondSpec) {
  // ./bwtest --do=0:DtoH:$((64 * 1024 * 102)):mapped --do=2:1024:HtoD
  const TransferRequest first = one("0:DtoH:6684672:mapped");
  EXPECT_EQ(first.device, 0);
  EXPECT_EQ(first.direction, Direction::dtoh);
  EXPECT_EQ(first.bytes, 64u * 1024 * 102);
  EXPECT_EQ(first.memory, MemKind::mapped);
  const TransferRequest second = one("2:1024:HtoD");
  EXPECT_EQ(second.device, 2);
  EXPECT_EQ(second.direction, Direction::htod);
  EXPECT_EQ(second.bytes, 1024u);

  const Scenario s = expand_requests({first, second}, 5, StreamMode::per_transfer);
  ASSERT_EQ(s.transfers.size(), 2u);
  EXPECT_EQ(s.transfers[0].src.device, 0);
  EXPECT_EQ(s.transfers[0].dst.kind, MemKind::mapped);
  EXPECT_EQ(s.transfers[1].src.kind, MemKind::pinned);
  EXPECT_EQ(s.transfers[1].dst.device, 2);
  EXPECT_EQ(labels(s), (std::vector<std::string>{"gpu0->host", "host->gpu2"}));
}

TEST(SpecReadme, Defaults) {
  const TransferRequest req = one("1");
  EXPECT_FALSE(req.all_devices);
  EXPECT_EQ(req.device, 1);
  EXPECT_EQ(req.direction, Direction::both);
  EXPECT_EQ(req.bytes, 32 * MiB);
  EXPECT_EQ(req.memory, MemKind::pinned);
  EXPECT_EQ(req.numa, kGpuNumaNode);
  EXPECT_EQ(req.engine, Engine::copy_engine);
  EXPECT_EQ(req.peer, -1);
  EXPECT_EQ(req.issuer, Issuer::src);
  EXPECT_EQ(one("all").all_devices, true);
  EXPECT_EQ(one("ALL").all_devices, true);
}

TEST(SpecReadme, FieldsInAnyOrder) {
  for (const char* text : {"0:HtoD:4K:wc", "0:4K:HtoD:wc", "0:wc:4K:HtoD", "0:wc:HtoD:4K"}) {
    const TransferRequest req = one(text);
    EXPECT_EQ(req.direction, Direction::htod) << text;
    EXPECT_EQ(req.bytes, 4 * KiB) << text;
    EXPECT_EQ(req.memory, MemKind::write_combined) << text;
  }
}

// ---- directions -------------------------------------------------------------

TEST(SpecDirection, EachKeywordCaseInsensitive) {
  EXPECT_EQ(one("0:HtoD").direction, Direction::htod);
  EXPECT_EQ(one("0:htod").direction, Direction::htod);
  EXPECT_EQ(one("0:DtoH").direction, Direction::dtoh);
  EXPECT_EQ(one("0:DTOH").direction, Direction::dtoh);
  EXPECT_EQ(one("0:both").direction, Direction::both);
  EXPECT_EQ(one("0:Both").direction, Direction::both);
  EXPECT_EQ(one("0:reverse").direction, Direction::reverse);
  EXPECT_EQ(one("0:REVERSE").direction, Direction::reverse);
  EXPECT_EQ(one("0:DtoD:peer=1").direction, Direction::dtod);
  EXPECT_EQ(one("0:dtod:peer=1").direction, Direction::dtod);
}

TEST(SpecDirection, ToStringSpellings) {
  EXPECT_STREQ(to_string(Direction::htod), "HtoD");
  EXPECT_STREQ(to_string(Direction::dtoh), "DtoH");
  EXPECT_STREQ(to_string(Direction::both), "both");
  EXPECT_STREQ(to_string(Direction::reverse), "reverse");
  EXPECT_STREQ(to_string(Direction::dtod), "DtoD");
}

TEST(SpecDirection, ExpansionOrder) {
  EXPECT_EQ(labels(expand("0:HtoD", 1)), (std::vector<std::string>{"host->gpu0"}));
  EXPECT_EQ(labels(expand("0:DtoH", 1)), (std::vector<std::string>{"gpu0->host"}));
  EXPECT_EQ(labels(expand("0:both", 1)), (std::vector<std::string>{"host->gpu0", "gpu0->host"}));
  EXPECT_EQ(labels(expand("0:reverse", 1)), (std::vector<std::string>{"gpu0->host", "host->gpu0"}));
  EXPECT_EQ(labels(expand("all:reverse", 2)),
            (std::vector<std::string>{"gpu0->host", "gpu1->host", "host->gpu0", "host->gpu1"}));
}

TEST(SpecDirection, HostToDeviceLocations) {
  const Transfer t = expand("1:HtoD:1M", 2).transfers.at(0);
  EXPECT_EQ(t.src.kind, MemKind::pinned);
  EXPECT_EQ(t.src.numa, kGpuNumaNode);
  EXPECT_EQ(t.dst.kind, MemKind::device);
  EXPECT_EQ(t.dst.device, 1);
  EXPECT_EQ(t.exec_device, 1);
  EXPECT_EQ(t.engine, Engine::copy_engine);
  EXPECT_EQ(t.bytes, MiB);
}

TEST(SpecDirection, DeviceToDevice) {
  const TransferRequest req = one("0:DtoD:peer=1");
  EXPECT_EQ(req.peer, 1);
  EXPECT_EQ(req.memory, MemKind::device);
  const Transfer t = expand("0:DtoD:peer=1", 2).transfers.at(0);
  EXPECT_EQ(t.src.kind, MemKind::device);
  EXPECT_EQ(t.src.device, 0);
  EXPECT_EQ(t.dst.kind, MemKind::device);
  EXPECT_EQ(t.dst.device, 1);
  EXPECT_EQ(t.exec_device, 0);
  EXPECT_EQ(t.label, "gpu0->gpu1");
}

TEST(SpecDirection, DeviceToDeviceIssuedByDestination) {
  const Scenario s = expand("1:DtoD:peer=0,issuer=dst:8M", 2);
  ASSERT_EQ(s.transfers.size(), 1u);
  EXPECT_EQ(s.transfers[0].exec_device, 0);
  EXPECT_EQ(s.transfers[0].src.device, 1);
  EXPECT_EQ(s.transfers[0].label, "gpu1->gpu0");
  EXPECT_EQ(expand("1:DtoD:peer=0:issuer=src", 2).transfers[0].exec_device, 1);
}

TEST(SpecDirection, ManagedDeviceToDevice) {
  const Transfer t = expand("0:DtoD:peer=1:managed", 2).transfers.at(0);
  EXPECT_EQ(t.src.kind, MemKind::managed);
  EXPECT_EQ(t.src.device, 0);
  EXPECT_EQ(t.dst.kind, MemKind::managed);
  EXPECT_EQ(t.dst.device, 1);
}

// ---- memory options, settings, sizes -------------------------------------

TEST(SpecMemory, EachOption) {
  EXPECT_EQ(one("0:mapped").memory, MemKind::mapped);
  EXPECT_EQ(one("0:wc").memory, MemKind::write_combined);
  EXPECT_EQ(one("0:WC").memory, MemKind::write_combined);
  EXPECT_EQ(one("0:pinned").memory, MemKind::pinned);
  EXPECT_EQ(one("0:pageable").memory, MemKind::pageable);
  EXPECT_EQ(one("0:managed").memory, MemKind::managed);
}

TEST(SpecMemory, HostKindReachesTransfers) {
  const Scenario s = expand("0:both:pageable", 1);
  EXPECT_EQ(s.transfers[0].src.kind, MemKind::pageable);
  EXPECT_EQ(s.transfers[1].dst.kind, MemKind::pageable);
  EXPECT_EQ(expand("0:HtoD:wc", 1).transfers[0].src.kind, MemKind::write_combined);
}

TEST(SpecMemory, ManagedHostSide) {
  const Scenario s = expand("1:both:managed", 2);
  EXPECT_EQ(s.transfers[0].src.kind, MemKind::managed);
  EXPECT_EQ(s.transfers[0].src.device, -1);  // resident on the host, not on a GPU
  EXPECT_EQ(s.transfers[0].dst.kind, MemKind::device);
  EXPECT_EQ(labels(s), (std::vector<std::string>{"managed->gpu1", "gpu1->managed"}));
  EXPECT_EQ(expand("0:HtoD:managed,numa=2", 1).transfers[0].label, "managed(numa2)->gpu0");
}

TEST(SpecSettings, NumaEngineAndOptionLists) {
  const TransferRequest req = one("0:HtoD:pinned,numa=1,engine=sm");
  EXPECT_EQ(req.numa, 1);
  EXPECT_EQ(req.engine, Engine::sm);
  EXPECT_EQ(req.memory, MemKind::pinned);
  const Transfer t = expand("0:HtoD:numa=1:engine=SM", 1).transfers.at(0);
  EXPECT_EQ(t.src.numa, 1);
  EXPECT_EQ(t.engine, Engine::sm);
  EXPECT_EQ(t.label, "host(numa1)->gpu0");
  EXPECT_EQ(one("0:engine=ce").engine, Engine::copy_engine);
}

TEST(SpecSize, Suffixes) {
  EXPECT_EQ(one("0:1").bytes, 1u);
  EXPECT_EQ(one("0:4096").bytes, 4096u);
  EXPECT_EQ(one("0:64K").bytes, 64 * KiB);
  EXPECT_EQ(one("0:64k").bytes, 64 * KiB);
  EXPECT_EQ(one("0:1M").bytes, MiB);
  EXPECT_EQ(one("0:2MiB").bytes, 2 * MiB);
  EXPECT_EQ(one("0:1G").bytes, GiB);
  EXPECT_EQ(one("0:1GB").bytes, GiB);
  EXPECT_EQ(one("0:1T").bytes, 1024 * GiB);
}

TEST(SpecMulti, WhitespaceSeparatedSpecs) {
  const auto requests = parse_transfer_spec("  0:HtoD\t1:DtoH:4K  ");
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].spec, "0:HtoD");
  EXPECT_EQ(requests[1].spec, "1:DtoH:4K");
  EXPECT_EQ(requests[1].bytes, 4 * KiB);
}

// ---- parse errors -----------------------------------------------------------

TEST(SpecErrors, UnknownDirection) {
  EXPECT_TRUE(spec_fails("0:HtoX",
                         "invalid transfer spec '0:HtoX': unknown direction 'HtoX' "
                         "(expected HtoD, DtoH, both, reverse, DtoD)"));
  EXPECT_TRUE(spec_fails("0:HostToDevice", "unknown direction 'HostToDevice'"));
}

TEST(SpecErrors, ShapeOfTheSpec) {
  EXPECT_TRUE(spec_fails("", "empty transfer spec"));
  EXPECT_TRUE(spec_fails(" \t ", "empty transfer spec"));
  EXPECT_TRUE(spec_fails(":HtoD", "invalid transfer spec ':HtoD': missing device"));
  EXPECT_TRUE(spec_fails("0::HtoD", "invalid transfer spec '0::HtoD': empty field"));
  EXPECT_TRUE(spec_fails("0:", "empty field"));
  EXPECT_TRUE(spec_fails("gpu0:HtoD", "invalid device 'gpu0' (expected a GPU id such as 0, or all)"));
  EXPECT_TRUE(spec_fails("-1:HtoD", "invalid device '-1'"));
  EXPECT_TRUE(spec_fails("1x:HtoD", "invalid device '1x'"));
  EXPECT_TRUE(spec_fails("99999999999:HtoD", "device '99999999999' is too large"));
}

TEST(SpecErrors, RepeatedFields) {
  EXPECT_TRUE(spec_fails("0:HtoD:DtoH", "direction given twice ('HtoD' and 'DtoH')"));
  EXPECT_TRUE(spec_fails("0:both:both", "direction given twice"));
  EXPECT_TRUE(spec_fails("0:1K:2K", "size given twice ('1K' and '2K')"));
  EXPECT_TRUE(spec_fails("0:mapped,mapped", "memory option 'mapped' given twice"));
  EXPECT_TRUE(spec_fails("0:numa=0:numa=1", "'numa' given twice ('numa=0' and 'numa=1')"));
  EXPECT_TRUE(spec_fails("0:engine=ce,engine=sm", "'engine' given twice"));
}

TEST(SpecErrors, Sizes) {
  EXPECT_TRUE(spec_fails("0:12X", "invalid transfer spec '0:12X': invalid size '12X': unknown suffix"));
  EXPECT_TRUE(spec_fails("0:0", "size '0' is zero"));
  EXPECT_TRUE(spec_fails("0:0K", "size '0K' is zero"));
  EXPECT_TRUE(spec_fails("0:99999999999999999999", "too large"));
  EXPECT_TRUE(spec_fails("0:16777216T", "too large"));
}

TEST(SpecErrors, MemoryOptions) {
  EXPECT_TRUE(spec_fails("0:mapped,wc", "memory options 'mapped' and 'wc' exclude each other"));
  EXPECT_TRUE(spec_fails("0:pageable:managed", "memory options 'pageable' and 'managed' exclude each other"));
  EXPECT_TRUE(spec_fails("0:wc,pageable", "exclude each other"));
  EXPECT_TRUE(spec_fails("0:pinned,mapped", "exclude each other"));
  EXPECT_TRUE(spec_fails("0:HtoD:foo", "unknown memory option 'foo' (expected mapped, wc, pinned"));
  EXPECT_TRUE(spec_fails("0:mapped,,wc", "empty item in options 'mapped,,wc'"));
  EXPECT_TRUE(spec_fails("0:mapped,HtoD", "direction 'HtoD' needs its own ':' field"));
  EXPECT_TRUE(spec_fails("0:mapped,1K", "size '1K' needs its own ':' field"));
}

TEST(SpecErrors, Settings) {
  EXPECT_TRUE(spec_fails("0:color=red", "unknown setting 'color=red'"));
  EXPECT_TRUE(spec_fails("0:=1", "unknown setting '=1'"));
  EXPECT_TRUE(spec_fails("0:engine=gpu", "unknown engine 'gpu' (expected ce or sm)"));
  EXPECT_TRUE(spec_fails("0:numa=x", "invalid numa node 'x'"));
  EXPECT_TRUE(spec_fails("0:numa=", "invalid numa node ''"));
  EXPECT_TRUE(spec_fails("0:numa=-1", "invalid numa node '-1'"));
  EXPECT_TRUE(spec_fails("0:DtoD:peer=1:issuer=me", "unknown issuer 'me' (expected src or dst)"));
  EXPECT_TRUE(spec_fails("0:DtoD:peer=a", "invalid peer 'a'"));
}

TEST(SpecErrors, DeviceToDeviceRules) {
  EXPECT_TRUE(spec_fails("0:HtoD:peer=1", "invalid transfer spec '0:HtoD:peer=1': 'peer=1' only applies to DtoD"));
  EXPECT_TRUE(spec_fails("0:issuer=dst", "'issuer=dst' only applies to DtoD"));
  EXPECT_TRUE(spec_fails("0:DtoD", "DtoD needs peer=N"));
  EXPECT_TRUE(spec_fails("1:DtoD:peer=1", "DtoD from GPU 1 to itself (peer=1)"));
  EXPECT_TRUE(spec_fails("all:DtoD:peer=1", "DtoD needs one source GPU, not 'all'"));
  EXPECT_TRUE(spec_fails("0:DtoD:peer=1:wc", "memory option 'wc' does not apply to DtoD"));
  EXPECT_TRUE(spec_fails("0:DtoD:peer=1:mapped", "memory option 'mapped' does not apply to DtoD"));
  EXPECT_TRUE(spec_fails("0:DtoD:peer=1:pageable", "memory option 'pageable' does not apply to DtoD"));
  EXPECT_TRUE(spec_fails("0:DtoD:peer=1:numa=0", "'numa=0' does not apply to DtoD"));
}

TEST(SpecErrors, SecondSpecNamedInMessage) {
  EXPECT_TRUE(spec_fails("0:HtoD 1:HtoX", "invalid transfer spec '1:HtoX'"));
}

// ---- expansion errors -------------------------------------------------------

TEST(SpecExpand, DeviceDoesNotExist) {
  EXPECT_TRUE(fails_with([] { expand("3:HtoD", 2); }, ErrorKind::usage,
                         "transfer spec '3:HtoD': device 3 does not exist (2 GPUs: 0-1)"));
  EXPECT_TRUE(fails_with([] { expand("1", 1); }, ErrorKind::usage, "device 1 does not exist (1 GPU: 0)"));
  EXPECT_TRUE(fails_with([] { expand("0:DtoD:peer=4", 4); }, ErrorKind::usage,
                         "transfer spec '0:DtoD:peer=4': peer 4 does not exist (4 GPUs: 0-3)"));
}

TEST(SpecExpand, NoGpu) {
  EXPECT_TRUE(fails_with([] { expand("all", 0); }, ErrorKind::no_device, "transfer spec 'all': no CUDA GPU found"));
  EXPECT_TRUE(fails_with([] { expand("0:HtoD", 0); }, ErrorKind::no_device, "no CUDA GPU found"));
  EXPECT_TRUE(fails_with([] { expand_requests({}, -1, StreamMode::per_transfer); }, ErrorKind::internal,
                         "negative device count"));
}

TEST(SpecExpand, HandBuiltAllWithDtoDRejected) {
  TransferRequest req;
  req.all_devices = true;
  req.direction = Direction::dtod;
  req.peer = 1;
  req.spec = "hand";
  EXPECT_TRUE(fails_with([&] { expand_requests({req}, 2, StreamMode::per_transfer); }, ErrorKind::usage,
                         "DtoD needs one source GPU"));
}

TEST(SpecExpand, HandBuiltHostDirectionWithDeviceMemoryRejected) {
  TransferRequest req;
  req.direction = Direction::htod;
  req.memory = MemKind::device;
  req.spec = "hand";
  EXPECT_TRUE(fails_with([&] { expand_requests({req}, 1, StreamMode::per_transfer); }, ErrorKind::usage,
                         "transfer spec 'hand': HtoD needs a host memory kind"));
}

TEST(SpecExpand, AllOverEveryDevice) {
  const Scenario s = expand("all:HtoD:4K", 3);
  EXPECT_EQ(labels(s), (std::vector<std::string>{"host->gpu0", "host->gpu1", "host->gpu2"}));
  EXPECT_EQ(expand("all", 1).transfers.size(), 2u);
}

// ---- stream modes -----------------------------------------------------------

TEST(StreamModes, Parse) {
  EXPECT_EQ(parse_stream_mode("per-transfer"), StreamMode::per_transfer);
  EXPECT_EQ(parse_stream_mode("per-device"), StreamMode::per_device);
  EXPECT_EQ(parse_stream_mode("only-one"), StreamMode::only_one);
  EXPECT_EQ(parse_stream_mode("Per-Device"), StreamMode::per_device);
  EXPECT_TRUE(fails_with([] { parse_stream_mode("per_device"); }, ErrorKind::usage,
                         "invalid stream mode 'per_device' (expected per-transfer, per-device, only-one)"));
  EXPECT_TRUE(fails_with([] { parse_stream_mode(""); }, ErrorKind::usage, "invalid stream mode ''"));
}

TEST(StreamModes, CarriedIntoScenario) {
  const auto requests = parse_transfer_spec("all");
  EXPECT_EQ(expand_requests(requests, 2, StreamMode::per_transfer).streams, StreamMode::per_transfer);
  EXPECT_EQ(expand_requests(requests, 2, StreamMode::per_device).streams, StreamMode::per_device);
  EXPECT_EQ(expand_requests(requests, 2, StreamMode::only_one).streams, StreamMode::only_one);
}

// ---- CUts -------------------------------------------------------------------

Scenario cuts_scenario(const CutsOptions& options, int device_count) {
  return expand_requests(cuts_to_requests(options), device_count, StreamMode::per_transfer);
}

TEST(Cuts, Defaults) {
  const CutsOptions options;
  EXPECT_EQ(options.size, GiB);
  EXPECT_EQ(options.iterations, 100);
  EXPECT_FALSE(options.no_numa_affinity);
}

TEST(Cuts, ReadmeDtodBothDirections) {
  // ./cuts --dtod=1,0 --dtod=0,1
  CutsOptions options;
  options.dtod = {parse_cuts_pair("1,0"), parse_cuts_pair("0,1")};
  const auto requests = cuts_to_requests(options);
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].device, 0);
  EXPECT_EQ(requests[0].peer, 1);
  EXPECT_EQ(requests[0].issuer, Issuer::src);
  EXPECT_EQ(requests[0].spec, "--dtod=1,0");
  const Scenario s = cuts_scenario(options, 2);
  EXPECT_EQ(labels(s), (std::vector<std::string>{"gpu0->gpu1", "gpu1->gpu0"}));
  EXPECT_EQ(s.transfers[0].exec_device, 0);
  EXPECT_EQ(s.transfers[1].exec_device, 1);
  EXPECT_EQ(s.transfers[0].bytes, GiB);
  EXPECT_EQ(s.transfers[0].src.kind, MemKind::device);
}

TEST(Cuts, ReadmeSingleGpuDtoH) {
  // ./cuts --dtoh=0
  CutsOptions options;
  options.dtoh = {0};
  const Scenario s = cuts_scenario(options, 1);
  ASSERT_EQ(s.transfers.size(), 1u);
  EXPECT_EQ(s.transfers[0].label, "gpu0->host");
  EXPECT_EQ(s.transfers[0].dst.kind, MemKind::pinned);
  EXPECT_EQ(s.transfers[0].dst.numa, kGpuNumaNode);
}

TEST(Cuts, ReadmeBothDirectionsOneGpu) {
  // ./cuts --dtoh=0 --htod=0
  CutsOptions options;
  options.dtoh = {0};
  options.htod = {0};
  EXPECT_EQ(labels(cuts_scenario(options, 1)), (std::vector<std::string>{"host->gpu0", "gpu0->host"}));
}

TEST(Cuts, ReadmeTwoGpusDtoH) {
  // ./cuts --dtoh=0 --dtoh=1
  CutsOptions options;
  options.dtoh = {0, 1};
  EXPECT_EQ(labels(cuts_scenario(options, 2)), (std::vector<std::string>{"gpu0->host", "gpu1->host"}));
}

TEST(Cuts, ReadmeEightGpuMix) {
  // ./cuts --dtoh=0 --htod=1 --dtoh=2 --htod=3 --dtoh=4 --htod=5 --dtod=6,7
  CutsOptions options;
  options.dtoh = {0, 2, 4};
  options.htod = {1, 3, 5};
  options.dtod = {parse_cuts_pair("6,7")};
  const Scenario s = cuts_scenario(options, 8);
  EXPECT_EQ(labels(s), (std::vector<std::string>{"host->gpu1", "host->gpu3", "host->gpu5", "gpu0->host",
                                                 "gpu2->host", "gpu4->host", "gpu7->gpu6"}));
  EXPECT_EQ(s.transfers.back().exec_device, 7);  // the source issues the copy
}

TEST(Cuts, SizeAndNoNumaAffinity) {
  CutsOptions options;
  options.htod = {0};
  options.size = 64 * MiB;
  options.no_numa_affinity = true;
  const auto requests = cuts_to_requests(options);
  EXPECT_EQ(requests[0].numa, kNoNumaPlacement);
  EXPECT_EQ(requests[0].bytes, 64 * MiB);
  EXPECT_EQ(requests[0].spec, "--htod=0");
  const Transfer t = cuts_scenario(options, 1).transfers.at(0);
  EXPECT_EQ(t.src.numa, kNoNumaPlacement);
  EXPECT_EQ(t.label, "host->gpu0");
}

TEST(Cuts, ParsePair) {
  EXPECT_EQ(parse_cuts_pair("1,0"), (std::pair<int, int>{1, 0}));
  EXPECT_EQ(parse_cuts_pair("12,3"), (std::pair<int, int>{12, 3}));
  EXPECT_TRUE(fails_with([] { parse_cuts_pair("1"); }, ErrorKind::usage,
                         "invalid --dtod '1': expected DST,SRC such as 1,0"));
  for (const char* bad : {"", ",", "1,", ",0", "a,b", "1,2,3", "-1,0", "1;0", " 1,0"}) {
    EXPECT_TRUE(fails_with([&] { parse_cuts_pair(bad); }, ErrorKind::usage, "expected DST,SRC such as 1,0"))
        << bad;
  }
  EXPECT_TRUE(fails_with([] { parse_cuts_pair("3000000000,0"); }, ErrorKind::usage, "is too large"));
}

TEST(Cuts, Errors) {
  CutsOptions options;
  EXPECT_TRUE(fails_with([&] { cuts_to_requests(options); }, ErrorKind::usage, "no cuts transfer given"));
  options.htod = {-1};
  EXPECT_TRUE(fails_with([&] { cuts_to_requests(options); }, ErrorKind::usage,
                         "invalid --htod '-1': expected a GPU id"));
  options.htod = {};
  options.dtod = {{0, 0}};
  EXPECT_TRUE(fails_with([&] { cuts_to_requests(options); }, ErrorKind::usage,
                         "invalid --dtod '0,0': destination and source are the same GPU"));
  options.dtod = {{1, 0}};
  options.size = 0;
  EXPECT_TRUE(fails_with([&] { cuts_to_requests(options); }, ErrorKind::usage, "invalid --size '0'"));
  options.size = GiB;
  options.iterations = 0;
  EXPECT_TRUE(fails_with([&] { cuts_to_requests(options); }, ErrorKind::usage, "invalid --iter '0'"));
}

TEST(Cuts, MissingGpuNamesTheFlag) {
  CutsOptions options;
  options.htod = {3};
  EXPECT_TRUE(fails_with([&] { cuts_scenario(options, 2); }, ErrorKind::usage,
                         "transfer spec '--htod=3': device 3 does not exist (2 GPUs: 0-1)"));
  options.htod = {};
  options.dtod = {{2, 0}};
  EXPECT_TRUE(fails_with([&] { cuts_scenario(options, 2); }, ErrorKind::usage, "peer 2 does not exist"));
}

}  // namespace
}  // namespace xb
