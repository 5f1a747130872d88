// Bounded memory without a GPU: the pool's budget and eviction order with
// fake allocations, the per-case memory plan, the preflight arithmetic, the
// --max-memory option and the memory fields of the result; real pageable
// buffers (pattern, filler, copy out, when pages are faulted in).
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "app/run_options.hpp"
#include "cli_parse.hpp"
#include "memory/buffer_pool.hpp"
#include "base/error.hpp"
#include "memory/memory.hpp"
#include "cases/case_plan.hpp"
#include "memory/memory_plan.hpp"
#include "base/pattern.hpp"
#include "cases/runner.hpp"
#include "fake_system.hpp"
#include "report/reporter.hpp"

namespace {

constexpr std::uint64_t kMiB = 1ull << 20;

// Stands in for a real Buffer: logs its allocation and its release.
struct FakeBuffer {
  FakeBuffer(std::string name, std::uint64_t bytes, std::vector<std::string>* log)
      : name_(std::move(name)), bytes_(bytes), log_(log) {
    static std::uint64_t next = 100;
    seed_ = ++next;
  }
  ~FakeBuffer() { log_->push_back("free " + name_); }
  std::uint64_t bytes() const { return bytes_; }
  std::uint64_t seed() const { return seed_; }
  std::uint64_t content_seed() const { return content_seed_; }
  std::string name_;
  std::uint64_t bytes_, seed_ = 0, content_seed_ = 0;
  std::vector<std::string>* log_;
};

std::string place_name(const xb::Location& loc, std::uint64_t bytes) {
  return fmt::format("{}:{}M", xb::location_label(loc), bytes / kMiB);
}

struct PoolFixture {
  std::vector<std::string> log;
  int fail_next = 0;  // allocations to refuse with Error(resources)
  xb::BasicBufferPool<FakeBuffer> pool{[this](const xb::Location& loc, std::uint64_t bytes) {
    if (fail_next > 0) {
      --fail_next;
      xb::fail(xb::ErrorKind::resources, "fake out of memory");
    }
    log.push_back("alloc " + place_name(loc, bytes));
    return std::make_unique<FakeBuffer>(place_name(loc, bytes), bytes, &log);
  }};
};

xb::BufferRequest dev(int g, std::uint64_t mib, bool source = false) {
  return {xb::device_memory(g), mib * kMiB, source};
}
xb::BufferRequest host(std::uint64_t mib, bool source = false) {
  return {xb::host_memory(xb::MemKind::pinned, 0), mib * kMiB, source};
}

xb::MemoryAmount budget(std::vector<std::uint64_t> gpu_mib, std::uint64_t host_mib) {
  xb::MemoryAmount b;
  for (auto m : gpu_mib) b.gpu.push_back(m * kMiB);
  b.host = host_mib * kMiB;
  return b;
}

const xb::CaseDef& case_named(const std::string& name) { return *xb::select_cases({name}, {})[0]; }

// The memory a case needs at once, from its plan.
xb::MemoryAmount case_need(const xb::CaseDef& def, const xb::System& sys, std::uint64_t bytes) {
  return xb::plan_memory_need(xb::plan_case(def, sys, bytes), sys);
}

}  // namespace

TEST(Pool, ReusesByPlaceAndSizeAndHandsOutDistinctBuffers) {
  PoolFixture f;
  f.pool.set_budget(budget({64}, 0), true);
  const auto a = f.pool.acquire({dev(0, 16), dev(0, 16)});
  ASSERT_EQ(a.size(), 2u);
  EXPECT_NE(a[0], a[1]);
  const auto b = f.pool.acquire({dev(0, 16), dev(0, 16)});
  EXPECT_EQ(f.pool.allocations(), 2u);  // both reused
  EXPECT_TRUE((b[0] == a[0] && b[1] == a[1]) || (b[0] == a[1] && b[1] == a[0]));
  f.pool.acquire({dev(0, 8)});  // another size is another buffer
  EXPECT_EQ(f.pool.allocations(), 3u);
  EXPECT_EQ(f.pool.held(0), 40 * kMiB);
}

TEST(Pool, EvictsLeastRecentlyUsedFirstToStayInsideTheBudget) {
  PoolFixture f;
  f.pool.set_budget(budget({32}, 0), true);
  f.pool.acquire({dev(0, 8)});   // A
  f.pool.acquire({dev(0, 10)});  // B
  f.pool.acquire({dev(0, 12)});  // C: 30 MiB held
  f.pool.acquire({dev(0, 8)});   // A used again: B is now the oldest
  f.log.clear();
  f.pool.acquire({dev(0, 14)});  // needs 14: B (10) then C (12) must go
  const std::vector<std::string> expected = {"free gpu0:10M", "free gpu0:12M", "alloc gpu0:14M"};
  EXPECT_EQ(f.log, expected);
  EXPECT_EQ(f.pool.held(0), 22 * kMiB);
  EXPECT_EQ(f.pool.stats().evictions, 2u);
  EXPECT_EQ(f.pool.stats().gpu_allocations, 4u);
  EXPECT_EQ(f.pool.stats().host_allocations, 0u);
}

TEST(Pool, NeverFreesABufferTheSameRequestSetReuses) {
  PoolFixture f;
  f.pool.set_budget(budget({20}, 0), true);
  f.pool.acquire({dev(0, 8)});
  f.pool.acquire({dev(0, 10)});
  f.log.clear();
  // 8 MiB is the oldest, but this set reuses it: the 10 MiB one goes.
  f.pool.acquire({dev(0, 12), dev(0, 8)});
  const std::vector<std::string> expected = {"free gpu0:10M", "alloc gpu0:12M"};
  EXPECT_EQ(f.log, expected);
}

TEST(Pool, BudgetsArePerGpuAndHost) {
  PoolFixture f;
  f.pool.set_budget(budget({16, 16}, 16), true);
  f.pool.acquire({dev(0, 16), host(16)});
  f.log.clear();
  f.pool.acquire({dev(1, 16)});  // gpu1 has room: nothing on gpu0 or the host is freed
  EXPECT_EQ(f.log, std::vector<std::string>{"alloc gpu1:16M"});
  f.pool.acquire({host(8)});
  EXPECT_EQ(f.log.back(), "alloc host(numa0):8M");
  EXPECT_EQ(f.log[f.log.size() - 2], "free host(numa0):16M");
  EXPECT_EQ(f.pool.held(0), 16 * kMiB);
}

TEST(Pool, FixedBudgetRefusesASetThatNeedsMore) {
  PoolFixture f;
  f.pool.set_budget(budget({16}, 0), true);
  try {
    f.pool.acquire({dev(0, 10), dev(0, 10)});
    FAIL() << "expected Error(resources)";
  } catch (const xb::Error& e) {
    EXPECT_EQ(e.kind(), xb::ErrorKind::resources);
    EXPECT_NE(std::string(e.what()).find("20 MiB of gpu0"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--max-memory budget of 16 MiB"), std::string::npos) << e.what();
  }
  EXPECT_EQ(f.pool.allocations(), 0u);
}

TEST(Pool, AutomaticBudgetRisesToTheLargestSetSoFar) {
  PoolFixture f;
  f.pool.set_budget(budget({8}, 0), false);
  f.pool.acquire({dev(0, 8)});
  f.pool.acquire({dev(0, 6), dev(0, 6)});  // needs 12: the budget rises, the 8 MiB buffer goes
  EXPECT_EQ(f.pool.budget().get(0), 12 * kMiB);
  EXPECT_EQ(f.pool.held(0), 12 * kMiB);
  f.pool.acquire({dev(0, 4)});  // 12 + 4 > 12: one 6 MiB buffer goes, the budget stays
  EXPECT_EQ(f.pool.budget().get(0), 12 * kMiB);
  EXPECT_EQ(f.pool.held(0), 10 * kMiB);
}

TEST(Pool, FootprintCountsWholeAllocationUnits) {
  PoolFixture f;
  f.pool.set_budget(budget({4}, 0), true);
  f.pool.acquire({{xb::device_memory(0), 1, false}});  // 1 byte takes a 2 MiB unit
  EXPECT_EQ(f.pool.held(0), 2 * kMiB);
  EXPECT_EQ(xb::footprint_bytes(xb::host_memory(), 1), 4096u);
}

TEST(Pool, SourcesPreferABufferStillHoldingItsPattern) {
  PoolFixture f;
  f.pool.set_budget(budget({64}, 0), true);
  auto first = f.pool.acquire({dev(0, 16), dev(0, 16)});
  first[1]->content_seed_ = first[1]->seed();  // the second holds its own pattern
  const auto again = f.pool.acquire({dev(0, 16, false), dev(0, 16, true)});
  EXPECT_EQ(again[1], first[1]);
  EXPECT_EQ(again[0], first[0]);
}

TEST(Pool, AllocationFailureFreesUnusedBuffersAndRetriesOnce) {
  PoolFixture f;
  f.pool.set_budget(budget({64}, 0), true);
  f.pool.acquire({dev(0, 16)});
  f.fail_next = 1;
  f.log.clear();
  f.pool.acquire({dev(0, 32)});
  const std::vector<std::string> expected = {"free gpu0:16M", "alloc gpu0:32M"};
  EXPECT_EQ(f.log, expected);
  f.fail_next = 2;
  EXPECT_THROW(f.pool.acquire({dev(0, 8)}), xb::Error);
}

TEST(MemoryPlan, HostCasesNeedOneBufferPerEndOfEveryTransfer) {
  const auto sys = fake_system(2);
  const std::uint64_t b = 512 * kMiB;
  const auto h2d = case_need(case_named("host_to_device_memcpy_ce"), sys, b);
  EXPECT_EQ(h2d.gpu, (std::vector<std::uint64_t>{b, b}));
  EXPECT_EQ(h2d.host, b);
  EXPECT_EQ(h2d.host_locked, b);
  const auto bidir = case_need(case_named("host_to_device_bidirectional_memcpy_ce"), sys, b);
  EXPECT_EQ(bidir.gpu, (std::vector<std::uint64_t>{2 * b, 2 * b}));
  EXPECT_EQ(bidir.host, 2 * b);
  // Measured + reverse on one GPU, both ways on the other: 4 host buffers.
  const auto all = case_need(case_named("host_to_all_bidirectional_memcpy_ce"), sys, b);
  EXPECT_EQ(all.gpu, (std::vector<std::uint64_t>{2 * b, 2 * b}));
  EXPECT_EQ(all.host, 4 * b);
  const auto split = case_need(case_named("host_to_all_bidirectional_memcpy_sm"), sys, b);
  EXPECT_EQ(split.host, 2 * b);
}

TEST(MemoryPlan, PeerCasesScaleWithTheNumberOfPeers) {
  const auto sys = fake_system(8);
  const std::uint64_t b = 64 * kMiB;
  const auto fan = case_need(case_named("all_to_one_write_ce"), sys, b);
  EXPECT_EQ(fan.gpu[3], 7 * b);  // the column GPU receives from 7 peers
  EXPECT_EQ(fan.host, 0u);
  const auto pair = case_need(case_named("device_to_device_bidirectional_memcpy_read_ce"), sys, b);
  EXPECT_EQ(pair.gpu[0], 2 * b);
  const auto all = case_need(case_named("all_to_host_bidirectional_memcpy_ce"), sys, b);
  EXPECT_EQ(all.host, 16 * b);  // 2 per GPU
  const auto lat = case_need(case_named("device_to_device_latency_sm"), sys, b);
  EXPECT_EQ(lat.gpu[5], xb::kChaseBytes);
}

TEST(MemoryPlan, FullSuiteOnTwoGpusPeaksAtTwoBuffersPerGpuAndFourOnTheHost) {
  const auto sys = fake_system(2);
  const std::uint64_t b = 512 * kMiB;
  const auto need = xb::run_memory_need(xb::plan_run_cases(xb::suite_cases("full"), sys, b, nullptr), sys);
  EXPECT_EQ(need.gpu, (std::vector<std::uint64_t>{2 * b, 2 * b}));
  EXPECT_EQ(need.host, 4 * b);
  // One GPU: the peer cases are waived and do not count.
  const xb::System one_gpu = fake_system(1);
  const auto one = xb::run_memory_need(xb::plan_run_cases(xb::suite_cases("full"), one_gpu, b, nullptr), one_gpu);
  EXPECT_EQ(one.gpu, (std::vector<std::uint64_t>{2 * b}));
  EXPECT_EQ(one.host, 2 * b);
}

TEST(Preflight, NamesNeededAndFreeMemoryAndTheOptionThatHelps) {
  xb::MemoryAmount need = budget({1024, 0}, 0);
  xb::MemoryAvailable avail;
  avail.free = budget({800, 4096}, 1 << 20);
  auto why = xb::memory_shortfall(need, avail);
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ(*why, "needs 1 GiB of gpu0 memory at once, 800 MiB free; lower -b or free memory on gpu0");
  avail.free.gpu[0] = 1024 * kMiB;
  EXPECT_FALSE(xb::memory_shortfall(need, avail).has_value());  // exactly enough fits

  need = budget({}, 3000);
  avail.free.host = 2000 * kMiB;
  why = xb::memory_shortfall(need, avail);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("3000 MiB of host memory at once, 2000 MiB available (MemAvailable)"), std::string::npos) << *why;

  need.host_locked = 3000 * kMiB;
  avail.free.host = 8000 * kMiB;
  avail.locked_limit = 64 * kMiB;
  why = xb::memory_shortfall(need, avail);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("locked-memory limit of 64 MiB"), std::string::npos) << *why;
  EXPECT_NE(why->find("ulimit -l"), std::string::npos) << *why;
}

TEST(Preflight, BudgetShortfallNamesTheGroupAndMaxMemory) {
  const auto why = xb::budget_shortfall(budget({256, 1024}, 100), budget({512, 512}, 4096));
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ(*why, "needs 1 GiB of gpu1 at once, above the --max-memory budget of 512 MiB; raise --max-memory or "
                  "lower -b");
  EXPECT_FALSE(xb::budget_shortfall(budget({512, 512}, 4096), budget({512, 512}, 4096)).has_value());
}

TEST(Preflight, ParsesMemAvailableAndCapIpcLock) {
  EXPECT_EQ(xb::parse_mem_available("MemTotal:       16000 kB\nMemFree:  100 kB\nMemAvailable:   12345 kB\n"),
            12345u * 1024);
  EXPECT_FALSE(xb::parse_mem_available("MemTotal: 16000 kB\n").has_value());
  EXPECT_TRUE(xb::parse_cap_ipc_lock("Name:\tx\nCapEff:\t000001ffffffffff\n"));
  EXPECT_FALSE(xb::parse_cap_ipc_lock("CapEff:\t0000000000000000\n"));
  EXPECT_TRUE(xb::parse_cap_ipc_lock("CapEff:\t0000000000004000\n"));  // bit 14 alone
  EXPECT_FALSE(xb::parse_cap_ipc_lock(""));
}

TEST(MaxMemory, ParsesGpuAndHostSizes) {
  const auto m = xb::app::parse_max_memory("8G,16G");
  EXPECT_EQ(m.gpu, 8ull << 30);
  EXPECT_EQ(m.host, 16ull << 30);
  for (const char* bad : {"8G", "8G,", ",8G", "8G,16G,1G", "8X,16G", "lots,16G"}) {
    try {
      xb::app::parse_max_memory(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const xb::Error& e) {
      EXPECT_EQ(e.kind(), xb::ErrorKind::usage);
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
  }
}

TEST(MaxMemory, CommandLineErrorsExitTwoBeforeAnyGpu) {
  const auto bad = parse({"run", "--max-memory", "8Q,1G"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("8Q"), std::string::npos) << bad.err;
  const auto mixed = parse({"run", "--do=0:HtoD:64M", "--max-memory", "1G,1G"});
  EXPECT_EQ(mixed.code, 2);
  EXPECT_NE(mixed.err.find("--max-memory"), std::string::npos) << mixed.err;
  EXPECT_EQ(parse({"run", "--suite", "full", "--max-memory", "1G,2G"}).code, -1);
}

TEST(MemoryResult, JsonRecordsMeasuredPeaksBudgetAndWaivedCells) {
  xb::RunResult run;
  run.system = fake_system(2);
  run.memory.gpus = {{0, 1600 * kMiB, "nvml_process"}, {1, 1500 * kMiB, "nvml_process"}};
  run.memory.host_peak_rss_bytes = 2200 * kMiB;
  run.memory.planned = budget({1024, 1024}, 2048);
  run.memory.budget = budget({512, 512}, 4096);
  run.memory.budget_fixed = true;
  xb::CaseResult c;
  c.name = "host_to_device_memcpy_ce";
  c.waived_cells.push_back({0, 1, "needs 1 GiB of gpu1 at once"});
  run.cases.push_back(c);
  run.completion.status = xb::RunStatus::partial;  // as run_cases settles a waived cell
  run.completion.stop = xb::StopReason::memory;
  const auto j = xb::records::run_json(run);
  const auto& m = j["memory"];
  EXPECT_EQ(m["peak_host_rss_bytes"], 2200 * kMiB);
  EXPECT_EQ(m["host_source"], "getrusage ru_maxrss");
  ASSERT_EQ(m["peak_gpu"].size(), 2u);
  EXPECT_EQ(m["peak_gpu"][1]["peak_bytes"], 1500 * kMiB);
  EXPECT_EQ(m["peak_gpu"][1]["source"], "nvml_process");
  EXPECT_TRUE(m["gpu_sources"].contains("cuda_used_rise"));
  EXPECT_EQ(m["budget"]["mode"], "max-memory");
  EXPECT_EQ(m["budget"]["gpu_bytes"][0], 512 * kMiB);
  EXPECT_EQ(m["planned_peak"]["host_bytes"], 2048 * kMiB);
  EXPECT_TRUE(m["pool"].contains("host_allocation_seconds"));
  EXPECT_EQ(j["cases"][0]["waived_cells"][0]["col"], 1);
  EXPECT_EQ(j["status"], "partial");
  EXPECT_EQ(run.completion.stop, xb::StopReason::memory);
}

TEST(MemoryResult, TextFooterPrintsTheCostInOneLine) {
  xb::RunResult run;
  run.system = fake_system(2);
  run.memory.gpus = {{0, 1600 * kMiB, "cuda_used_rise"}, {1, 1500 * kMiB, "cuda_used_rise"}};
  run.memory.host_peak_rss_bytes = 2200 * kMiB;
  run.memory.budget = budget({1024, 1024}, 2048);
  std::ostringstream os;
  xb::report::make_reporter("text", os)->run(run);
  const std::string text = os.str();
  EXPECT_NE(text.find("# memory: peak GPU gpu0 1600 MiB, gpu1 1500 MiB (rise of used memory, without the CUDA "
                      "context); peak host RSS 2200 MiB; buffer budget per GPU 1024 MiB, host 2048 MiB (largest cell)"),
            std::string::npos)
      << text;
  EXPECT_EQ(run.completion.status, xb::RunStatus::complete);
}

// --host-mem hugepages: the buffers go through the same pool, count against
// the host budget and as page-locked, in whole 2 MiB pages; the preflight
// checks them against the hugetlb pool (which MemAvailable leaves out).
TEST(HugePageMemory, CountsAgainstTheHostBudgetAsPageLockedTwoMibPages) {
  const xb::BufferRequest huge{xb::host_memory(xb::MemKind::hugepages, 0), 3 * kMiB, true};
  const xb::MemoryAmount need = xb::memory_need({huge});
  EXPECT_EQ(need.host, 4 * kMiB);
  EXPECT_EQ(need.host_locked, 4 * kMiB);
  EXPECT_EQ(need.host_hugepages, 4 * kMiB);
  EXPECT_EQ(xb::memory_need({host(3)}).host_hugepages, 0u);

  PoolFixture f;
  f.pool.set_budget(budget({}, 6), true);
  EXPECT_THROW(f.pool.acquire({huge, huge}), xb::Error);  // 8 MiB of pages above a 6 MiB host budget
  ASSERT_EQ(f.pool.acquire({huge}).size(), 1u);
  EXPECT_EQ(f.pool.held_kind(xb::MemKind::hugepages), 4 * kMiB);
  EXPECT_EQ(f.pool.held_kind(xb::MemKind::pinned), 0u);
  EXPECT_EQ(f.pool.held(xb::kHostGroup), 4 * kMiB);

  xb::MemoryAmount two = xb::memory_need({huge, huge});
  xb::MemoryAvailable avail;  // MemAvailable 0: huge pages do not come from it
  avail.hugepages_total = 2;
  avail.hugepages_free = 2;
  const auto why = xb::memory_shortfall(two, avail);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("--host-mem hugepages: needs 4 free 2 MiB huge pages, the pool has 2 free of 2"),
            std::string::npos)
      << *why;
  EXPECT_NE(why->find("sysctl vm.nr_hugepages=4"), std::string::npos) << *why;
  avail.hugepages_free = 4;
  avail.hugepages_total = 4;
  EXPECT_FALSE(xb::memory_shortfall(two, avail).has_value());
  two.add(xb::kHostGroup, 1 * kMiB);  // one more MiB of ordinary host memory: that one needs MemAvailable
  EXPECT_TRUE(xb::memory_shortfall(two, avail).has_value());
}

// The read-only and write-only kernels use one end of their transfer: the
// plan (and the pool) hold one buffer per GPU, not two.
TEST(MemoryPlan, OneWayKernelsNeedOnlyTheEndTheyUse) {
  const auto sys = fake_system(2);
  const std::uint64_t b = 64 * kMiB;
  for (const char* name : {"device_local_read_sm", "device_local_write_sm"}) {
    const xb::MemoryAmount need = case_need(case_named(name), sys, b);
    EXPECT_EQ(need.gpu, std::vector<std::uint64_t>(2, b)) << name;
  }
  EXPECT_EQ(case_need(case_named("device_local_copy"), sys, b).gpu, std::vector<std::uint64_t>(2, 2 * b));
  // The measurer resolves the named cases' pinned host buffers to the
  // --host-mem kind before it asks the pool.
  const auto plan = xb::plan_case(case_named("host_to_device_memcpy_ce"), sys, b);
  const auto reqs = xb::cell_requests(plan, plan.cells.at(0), [](const xb::Location& loc, int) {
    xb::Location out = loc;
    if (out.kind == xb::MemKind::pinned) out.kind = xb::MemKind::hugepages;
    return out;
  });
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[0].loc.kind, xb::MemKind::hugepages);
  EXPECT_EQ(xb::memory_need(reqs).host_hugepages, b);
}

// Pageable buffers need no GPU: the pattern is written and checked on the
// CPU, the filler replaces it, and copy_to_host hands the bytes out.
TEST(PageableBuffer, FillsVerifiesOverwritesAndCopiesOut) {
  xb::Buffer buf(xb::host_memory(xb::MemKind::pageable, xb::kNoNumaPlacement), 4099);
  EXPECT_EQ(buf.kernel_ptr(), nullptr);
  xb::fill_buffer(buf, buf.bytes(), 77, -1);
  EXPECT_EQ(xb::verify_buffer(buf, buf.bytes(), 77, -1), buf.bytes());
  EXPECT_EQ(buf.content_seed(), 77u);
  xb::fill_bytes(buf, 100, 0xA5);
  EXPECT_EQ(buf.content_seed(), 0u);
  EXPECT_EQ(xb::verify_buffer(buf, buf.bytes(), 77, -1), 0u);
  std::vector<unsigned char> out(buf.bytes());
  xb::copy_to_host(buf, out.data(), out.size());
  EXPECT_EQ(out[0], 0xA5);
  EXPECT_EQ(out[99], 0xA5);
  EXPECT_EQ(out[100], xb::pattern_byte(77, 100));
}

TEST(PageableBuffer, DefaultAndMovedFromBuffersOwnNothing) {
  xb::Buffer empty;
  EXPECT_EQ(empty.ptr(), nullptr);
  EXPECT_EQ(empty.bytes(), 0u);
  xb::Buffer a(xb::host_memory(xb::MemKind::pageable, xb::kNoNumaPlacement), 64);
  void* p = a.ptr();
  empty = std::move(a);
  EXPECT_EQ(empty.ptr(), p);
  EXPECT_EQ(a.ptr(), nullptr);  // NOLINT(bugprone-use-after-move): moved-from state is defined
}

// FaultIn::on_first_use leaves the pages to whoever touches them first (the
// first-touch paths time that); the default faults them in at allocation.
TEST(PageableBuffer, PagesAreFaultedInAtAllocationUnlessLeftToTheFirstUse) {
  const std::uint64_t page = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  const std::uint64_t pages = 64;
  const auto resident = [&](const xb::Buffer& b) {
    std::vector<unsigned char> in_core(pages);
    EXPECT_EQ(mincore(b.ptr(), pages * page, in_core.data()), 0);
    std::uint64_t n = 0;
    for (unsigned char c : in_core) n += c & 1u;
    return n;
  };
  const xb::Location loc = xb::host_memory(xb::MemKind::pageable, xb::kNoNumaPlacement);
  EXPECT_EQ(resident(xb::Buffer(loc, pages * page)), pages);
  EXPECT_EQ(resident(xb::Buffer(loc, pages * page, xb::FaultIn::on_first_use)), 0u);
}
