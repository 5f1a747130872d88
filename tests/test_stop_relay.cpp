// comm::StopRelay over the in-process communicator: a signal to one node's
// leader reaches the others between their cells, nothing is relayed without
// one, a signal after the work is the last word, and close() gives up on a
// leader that never answers instead of waiting for it.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <thread>
#include <vector>

#include "comm/inproc_comm.hpp"
#include "comm/stop_relay.hpp"
#include "fake_stop_relay.hpp"


// A signal to one node's leader reaches the other leaders between their
// cells; the ranks that do not measure take no part.
TEST(StopRelay, ASignalToOneNodeStopsTheOtherNodesAtTheirNextCell) {
  std::vector<FakeRank> ranks(4);
  std::vector<int> leaders(4, -1), cells(4, 0);
  xb::comm::InprocOptions o;
  o.size = 4;
  o.hosts = {"nodeA", "nodeA", "nodeB", "nodeB"};
  xb::comm::run_ranks(o, [&](xb::comm::Communicator& comm) {
    FakeRank& me = ranks[static_cast<std::size_t>(comm.rank())];
    xb::comm::StopRelay relay(comm, "check", me.hooks());
    leaders[static_cast<std::size_t>(comm.rank())] = relay.leader();
    if (relay.leader()) {
      // nodeA's leader is signalled before its third cell; nodeB's measures
      // cells of 1 ms until a stop reaches it. The 60 s bound only turns a
      // relay that never arrives into a failure instead of a hang.
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
      for (int cell = 0; std::chrono::steady_clock::now() < give_up; ++cell) {
        if (comm.host_name() == "nodeA" && cell == 2) me.signal = SIGTERM;
        relay.poll();
        if (me.signal != 0 || me.requested != 0) break;
        ++cells[static_cast<std::size_t>(comm.rank())];
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    }
    relay.close(xb::comm::Seconds(10));
  });
  EXPECT_EQ(leaders, (std::vector<int>{1, 0, 1, 0}));
  EXPECT_EQ(cells[0], 2);
  EXPECT_EQ(ranks[2].requested, SIGTERM);  // relayed to nodeB's leader, which stopped at it
  EXPECT_EQ(ranks[0].requested, 0);        // the signalled one needs no relay
  EXPECT_EQ(ranks[1].requested, 0);
  EXPECT_EQ(ranks[3].requested, 0);
}

TEST(StopRelay, WithoutASignalEveryLeaderSaysDoneAndNothingIsRequested) {
  std::vector<FakeRank> ranks(3);
  xb::comm::InprocOptions o;
  o.size = 3;
  o.hosts = {"a", "b", "c"};
  xb::comm::run_ranks(o, [&](xb::comm::Communicator& comm) {
    FakeRank& me = ranks[static_cast<std::size_t>(comm.rank())];
    xb::comm::StopRelay relay(comm, "check", me.hooks());
    for (int cell = 0; cell < 5; ++cell) relay.poll();
    relay.close(xb::comm::Seconds(10));
    EXPECT_EQ(relay.relayed(), 0);
  });
  for (const auto& r : ranks) EXPECT_EQ(r.requested, 0);
}

// A leader whose signal comes after its own work ended still sends it as
// its last word, and every other leader hears it.
TEST(StopRelay, ASignalAfterTheWorkIsTheLastWord) {
  std::vector<FakeRank> ranks(2);
  std::vector<int> relayed(2, -1);
  xb::comm::InprocOptions o;
  o.size = 2;
  o.hosts = {"a", "b"};
  xb::comm::run_ranks(o, [&](xb::comm::Communicator& comm) {
    FakeRank& me = ranks[static_cast<std::size_t>(comm.rank())];
    xb::comm::StopRelay relay(comm, "check", me.hooks());
    if (comm.rank() == 0) me.signal = SIGINT;
    relay.close(xb::comm::Seconds(10));
    relayed[static_cast<std::size_t>(comm.rank())] = relay.relayed();
  });
  EXPECT_EQ(relayed, (std::vector<int>{0, SIGINT}));
  EXPECT_EQ(ranks[0].requested, 0);
}

// The poll a thread installs runs in every throw_if_stopped() of that
// thread only, and is removed with its scope (the previous one restored).
TEST(StopPoll, RunsOnTheInstallingThreadWhileInScope) {
  int outer = 0, inner = 0, other = 0;
  {
    const xb::StopPoll a([&] { ++outer; });
    xb::throw_if_stopped();
    {
      const xb::StopPoll b([&] { ++inner; });
      xb::throw_if_stopped();
      xb::throw_if_stopped();
      std::thread([&] {
        xb::throw_if_stopped();  // another thread: neither poll runs
        other = outer + inner;
      }).join();
    }
    xb::throw_if_stopped();
  }
  xb::throw_if_stopped();
  EXPECT_EQ(outer, 2);
  EXPECT_EQ(inner, 2);
  EXPECT_EQ(other, 1 + 2);  // what had run on the main thread by then
}

// A stop relayed from another process stops the loops like a signal but
// is not this process's first signal: its own next signal is not "the
// second" (which would end it at once), and the guards against a
// launcher's kill do not apply until it has one of its own.
TEST(StopState, ARelayedStopIsNotThisProcesssFirstSignal) {
  xb::clear_stop();
  xb::relay_stop(SIGTERM);
  EXPECT_EQ(xb::stop_requested(), xb::StopReason::sigterm);
  EXPECT_TRUE(xb::stop_relayed());
  EXPECT_TRUE(xb::request_stop(SIGINT));  // its own first signal
  EXPECT_EQ(xb::signal_stop(), xb::StopReason::sigterm);  // the first reason stays
  EXPECT_FALSE(xb::stop_relayed());
  EXPECT_FALSE(xb::request_stop(SIGINT));  // its own second signal
  xb::clear_stop();
  EXPECT_TRUE(xb::request_stop(SIGTERM));
  xb::relay_stop(SIGINT);
  EXPECT_EQ(xb::signal_stop(), xb::StopReason::sigterm);
  EXPECT_FALSE(xb::stop_relayed());
  xb::clear_stop();
}

// The stop an exit code stands for is the inverse of stop_exit_code for
// the codes a result can end with.
TEST(StopState, ExitCodesMapBackToTheirStops) {
  for (xb::StopReason r : {xb::StopReason::sigint, xb::StopReason::sigterm, xb::StopReason::time_limit})
    EXPECT_EQ(xb::stop_of_exit_code(xb::stop_exit_code(r)), r);
  for (int code : {0, 1, 2, 8, 9})
    EXPECT_EQ(xb::stop_of_exit_code(code), xb::StopReason::none) << code;
}

// A leader that never says its last word (its process died, or it still
// measures) is abandoned after the timeout: close() returns, it does not
// throw or hang, and says how many words it gave up on. (The 60 s bound
// tells "gave up" from "waits for ever" on however slow a machine.)
TEST(StopRelay, CloseAbandonsALeaderThatNeverAnswers) {
  std::vector<FakeRank> ranks(3);
  std::vector<std::size_t> abandoned(3, 99);
  xb::comm::InprocOptions o;
  o.size = 3;
  o.hosts = {"a", "b", "c"};
  xb::comm::run_ranks(o, [&](xb::comm::Communicator& comm) {
    FakeRank& me = ranks[static_cast<std::size_t>(comm.rank())];
    xb::comm::StopRelay relay(comm, "run", me.hooks());
    if (comm.rank() == 2) return;  // "dies": no last word
    const auto t0 = std::chrono::steady_clock::now();
    abandoned[static_cast<std::size_t>(comm.rank())] = relay.close(xb::comm::Seconds(0.2));
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 60.0);
  });
  EXPECT_EQ(abandoned, (std::vector<std::size_t>{1, 1, 99}));
}
