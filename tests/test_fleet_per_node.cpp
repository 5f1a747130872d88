// The per-node mechanism over the in-process communicator: one measurement
// per node by its first rank, errors and deaths as records, idle waiting,
// the pre-check, and the exit code every rank agrees on.
#include <gtest/gtest.h>

#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>

#include "comm/inproc_comm.hpp"
#include "base/error.hpp"
#include "fleet/node_json.hpp"
#include "fleet/per_node.hpp"

namespace {

using namespace xb;
using namespace std::chrono_literals;

// Thrown by a simulated measuring rank that "dies": not an std::exception,
// so the mechanism cannot turn it into a record; the thread just ends.
struct SimulatedDeath {};

comm::InprocOptions world(const std::vector<int>& ranks_per_node) {
  comm::InprocOptions w;
  for (std::size_t n = 0; n < ranks_per_node.size(); ++n)
    for (int i = 0; i < ranks_per_node[n]; ++i) w.hosts.push_back("node" + std::to_string(n));
  w.size = static_cast<int>(w.hosts.size());
  return w;
}

double thread_cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_THREAD, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

// The in-process communicator without its blocking wait_for: waits take
// the polling path that MPI uses.
class PollingComm final : public comm::Communicator {
 public:
  explicit PollingComm(comm::Communicator& inner) : inner_(inner) {}
  int rank() const override { return inner_.rank(); }
  int size() const override { return inner_.size(); }
  int local_rank() const override { return inner_.local_rank(); }
  int local_size() const override { return inner_.local_size(); }
  std::string host_name() const override { return inner_.host_name(); }
  std::string name() const override { return "polling"; }
  std::vector<int> node_ranks() const override { return inner_.node_ranks(); }
  comm::Request isend(int peer, int tag, const void* data, std::size_t bytes) override {
    return inner_.isend(peer, tag, data, bytes);
  }
  comm::Request irecv(int peer, int tag, void* data, std::size_t bytes) override {
    return inner_.irecv(peer, tag, data, bytes);
  }
  void wait_all(comm::Request* r, std::size_t n, comm::Seconds t) override { inner_.wait_all(r, n, t); }
  bool test(comm::Request& r) override { return inner_.test(r); }
  void cancel(comm::Request& r) override { inner_.cancel(r); }

 private:
  comm::Communicator& inner_;
};

struct Gathered {
  std::mutex m;
  std::vector<fleet::NodeRecord> records;  // from rank 0
  std::map<int, int> codes;                // finish() per rank
  std::map<std::string, std::vector<int>> measured_by;
  void measured(const std::string& host, int rank) {
    std::lock_guard<std::mutex> lock(m);
    measured_by[host].push_back(rank);
  }
};

TEST(FleetPerNode, OneMeasurementPerNodeByItsFirstRank) {
  Gathered run;
  comm::run_ranks(world({2, 1, 3}), [&](comm::Communicator& c) {
    fleet::Session s(c, {});
    EXPECT_EQ(s.node_count(), 3u);
    EXPECT_FALSE(s.single_node());
    auto records = s.gather([&] {
      run.measured(c.host_name(), c.rank());
      return fleet::NodeOutcome{fleet::node_document({{"host", c.host_name()}}), c.host_name() == "node2" ? 1 : 0};
    });
    const int code = s.finish(c.rank() == 0 ? 42 : 0);
    std::lock_guard<std::mutex> lock(run.m);
    run.codes[c.rank()] = code;
    if (c.rank() == 0) run.records = std::move(records);
    else EXPECT_TRUE(records.empty());
  });
  EXPECT_EQ(run.measured_by, (std::map<std::string, std::vector<int>>{{"node0", {0}}, {"node1", {2}}, {"node2", {3}}}));
  ASSERT_EQ(run.records.size(), 3u);
  EXPECT_EQ(run.records[1].node.host, "node1");
  EXPECT_EQ(run.records[2].node.ranks, (std::vector<int>{3, 4, 5}));
  EXPECT_EQ(fleet::document_json(run.records[2].document)["host"], "node2");
  EXPECT_EQ(run.records[2].exit_code, 1);
  EXPECT_TRUE(run.records[0].ok());
  for (const auto& [rank, code] : run.codes) EXPECT_EQ(code, 42) << "rank " << rank;
}

TEST(FleetPerNode, NodeErrorsAreRecordsAndTheOthersAreKept) {
  Gathered run;
  comm::run_ranks(world({1, 2, 1}), [&](comm::Communicator& c) {
    fleet::Session s(c, {});
    auto records = s.gather([&]() -> fleet::NodeOutcome {
      if (c.host_name() == "node1") fail(ErrorKind::no_device, "no CUDA GPU found");
      if (c.host_name() == "node2") throw std::runtime_error("bad alloc somewhere");
      return {fleet::node_document({{"ok", true}}), 0};
    });
    if (c.rank() == 0) run.records = std::move(records);
    s.finish(0);
  });
  ASSERT_EQ(run.records.size(), 3u);
  EXPECT_TRUE(run.records[0].ok());
  EXPECT_EQ(run.records[1].error_kind, "no_device");
  EXPECT_EQ(run.records[1].error, "no CUDA GPU found");
  EXPECT_EQ(run.records[1].exit_code, 3);
  EXPECT_EQ(run.records[2].error_kind, "internal");
  EXPECT_EQ(run.records[2].exit_code, 70);
  EXPECT_TRUE(run.records[2].document.empty());
}

TEST(FleetPerNode, DeputyReportsAMeasuringRankThatDied) {
  Gathered run;
  std::atomic<bool> dead{false};
  fleet::Options opt;
  opt.process_alive = [&](int rank, long) { return !(rank == 1 && dead); };
  bool died = false;
  try {
    comm::run_ranks(world({1, 3}), [&](comm::Communicator& c) {
      fleet::Session s(c, opt);
      auto records = s.gather([&]() -> fleet::NodeOutcome {
        if (c.rank() == 1) {
          dead = true;
          throw SimulatedDeath{};
        }
        return {fleet::node_document({{"ok", true}}), 0};
      });
      if (c.rank() == 0) run.records = std::move(records);
      const int code = s.finish(c.rank() == 0 ? 6 : 0);
      std::lock_guard<std::mutex> lock(run.m);
      run.codes[c.rank()] = code;
    });
  } catch (const SimulatedDeath&) {
    died = true;
  }
  EXPECT_TRUE(died);
  ASSERT_EQ(run.records.size(), 2u);
  EXPECT_EQ(run.records[1].error_kind, "comm");
  EXPECT_NE(run.records[1].error.find("rank 1 (pid"), std::string::npos) << run.records[1].error;
  EXPECT_NE(run.records[1].error.find("died before reporting"), std::string::npos);
  // Every live rank got rank 0's code; rank 1 never came back.
  EXPECT_EQ(run.codes, (std::map<int, int>{{0, 6}, {2, 6}, {3, 6}}));
}

// Node 1 reports only once rank 0 has given up on it, however slow the
// machine (a fixed delay races rank 0's deadline); the 60 s bound only
// turns a rank 0 that never gives up into a failure instead of a hang.
TEST(FleetPerNode, SilentNodeBecomesATimeoutRecord) {
  Gathered run;
  fleet::Options opt;
  opt.timeout = comm::Seconds(0.3);
  std::atomic<bool> gave_up{false};
  comm::run_ranks(world({1, 1}), [&](comm::Communicator& c) {
    fleet::Session s(c, opt);
    auto records = s.gather([&] {
      const auto bound = std::chrono::steady_clock::now() + 60s;
      if (c.rank() == 1)
        while (!gave_up && std::chrono::steady_clock::now() < bound) std::this_thread::sleep_for(1ms);
      return fleet::NodeOutcome{fleet::node_document({{"ok", true}}), 0};
    });
    if (c.rank() == 0) {
      run.records = std::move(records);
      gave_up = true;
    }
    s.finish(0);
  });
  ASSERT_EQ(run.records.size(), 2u);
  EXPECT_EQ(run.records[1].error_kind, "timeout");
  EXPECT_NE(run.records[1].error.find("no result within the fleet timeout"), std::string::npos);
  EXPECT_EQ(run.records[1].exit_code, 9);
}

TEST(FleetPerNode, WaitingRanksDoNotSpin) {
  std::mutex m;
  std::map<int, double> cpu;
  comm::run_ranks(world({3, 2}), [&](comm::Communicator& inproc) {
    PollingComm c(inproc);  // polls like MPI, rather than block on a condition
    fleet::Session s(c, {});
    const double before = thread_cpu_seconds();
    s.gather([&] {
      std::this_thread::sleep_for(1500ms);  // a measurement the others wait for
      return fleet::NodeOutcome{fleet::node_document({{"ok", true}}), 0};
    });
    s.finish(0);
    std::lock_guard<std::mutex> lock(m);
    cpu[c.rank()] = thread_cpu_seconds() - before;
  });
  // 1.5 s of waiting; a spinning wait would use about that much CPU.
  for (const auto& [rank, seconds] : cpu) EXPECT_LT(seconds, 0.15) << "rank " << rank;
}

TEST(FleetPerNode, PreCheckFailureStopsEveryRankBeforeMeasuring) {
  std::atomic<int> measured{0};
  std::mutex m;
  std::map<int, std::string> stops;
  fleet::Options opt;
  opt.before_measuring = [] { fail(ErrorKind::io, "cannot write output file 'f.json'"); };
  comm::run_ranks(world({2, 2}), [&](comm::Communicator& c) {
    fleet::Session s(c, opt);
    ASSERT_TRUE(s.stop());
    EXPECT_EQ(s.stop()->kind(), ErrorKind::io);
    std::lock_guard<std::mutex> lock(m);
    stops[c.rank()] = s.stop()->what();
    (void)s;
  });
  EXPECT_EQ(measured, 0);
  ASSERT_EQ(stops.size(), 4u);
  for (const auto& [rank, what] : stops) EXPECT_EQ(what, "cannot write output file 'f.json'");
}

TEST(FleetPerNode, SingleNodeNeedsNoGather) {
  std::mutex m;
  std::map<int, int> codes;
  comm::run_ranks(world({4}), [&](comm::Communicator& c) {
    fleet::Session s(c, {});
    EXPECT_TRUE(s.single_node());
    EXPECT_EQ(s.measures(), c.rank() == 0);
    if (c.rank() == 0) std::this_thread::sleep_for(100ms);  // the single-process path
    const int code = s.finish(c.rank() == 0 ? 3 : 0);
    std::lock_guard<std::mutex> lock(m);
    codes[c.rank()] = code;
  });
  EXPECT_EQ(codes, (std::map<int, int>{{0, 3}, {1, 3}, {2, 3}, {3, 3}}));
}

TEST(FleetPerNode, RecordWireRoundTrip) {
  fleet::NodeRecord a;
  a.exit_code = 1;
  const nlohmann::json doc = {{"schema", "xferbench-run"}, {"x", 1.5}};
  a.document = fleet::node_document(doc);
  fleet::NodeRecord b;
  fleet::read_record(fleet::record_bytes(a), b);
  EXPECT_EQ(b.exit_code, 1);
  EXPECT_EQ(fleet::document_json(b.document), doc);
  EXPECT_TRUE(b.ok());
  a.error_kind = "no_device";
  a.document = {};
  fleet::read_record(fleet::record_bytes(a), b);
  EXPECT_TRUE(b.document.empty());
  EXPECT_TRUE(fleet::document_json(b.document).is_null());
  const auto cbor = nlohmann::json::to_cbor(nlohmann::json{{"exit_code", "x"}});
  EXPECT_THROW(fleet::read_record(std::string(cbor.begin(), cbor.end()), b), Error);
  EXPECT_THROW(fleet::read_record("not cbor", b), Error);
}

}  // namespace
