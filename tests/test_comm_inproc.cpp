// The communicator contract, checked on the in-process implementation:
// ordering, collectives, timeouts that name the silent rank, and status
// agreement.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "comm/inproc_comm.hpp"

namespace xb::comm {
namespace {

constexpr Seconds kShort{0.3};
constexpr Seconds kLong{10};

TEST(CommInproc, MessagesBetweenTwoRanksArriveInOrderWithTheirBytes) {
  std::vector<int> got;
  run_ranks({2, {}}, [&](Communicator& c) {
    if (c.rank() == 0) {
      for (int v : {7, 8, 9}) c.send(1, 5, &v, sizeof v, kLong);
    } else {
      for (int i = 0; i < 3; ++i) {
        int v = 0;
        c.recv(0, 5, &v, sizeof v, kLong);
        got.push_back(v);
      }
    }
  });
  EXPECT_EQ(got, (std::vector<int>{7, 8, 9}));
}

TEST(CommInproc, TagsAreMatchedSeparately) {
  int first = 0, second = 0;
  run_ranks({2, {}}, [&](Communicator& c) {
    if (c.rank() == 0) {
      const int a = 1, b = 2;
      c.send(1, 10, &a, sizeof a, kLong);
      c.send(1, 20, &b, sizeof b, kLong);
    } else {
      c.recv(0, 20, &first, sizeof first, kLong);
      c.recv(0, 10, &second, sizeof second, kLong);
    }
  });
  EXPECT_EQ(first, 2);
  EXPECT_EQ(second, 1);
}

TEST(CommInproc, AllgatherGivesEveryRankEveryValueInRankOrder) {
  std::map<int, std::vector<std::string>> strings;
  std::mutex m;
  run_ranks({3, {}}, [&](Communicator& c) {
    auto s = c.allgather("r" + std::to_string(c.rank()), kLong);
    std::lock_guard<std::mutex> lock(m);
    strings[c.rank()] = s;
  });
  for (int r = 0; r < 3; ++r) EXPECT_EQ(strings[r], (std::vector<std::string>{"r0", "r1", "r2"}));
}

// Every rank learns the same vote: a signal outranks the time limit, the
// lowest rank's error comes first, skip and fail_check from any rank.
TEST(CommInproc, VotesCombineInRankOrder) {
  std::map<int, Vote> votes;
  std::mutex m;
  run_ranks({4, {}}, [&](Communicator& c) {
    Vote mine;
    if (c.rank() == 1) mine.stop = StopReason::time_limit;
    if (c.rank() == 3) mine.stop = StopReason::sigterm;
    if (c.rank() == 2) mine.skip = true;
    if (c.rank() == 3) mine.fail_check = true;
    if (c.rank() >= 2) mine.error = Error(ErrorKind::verification, "bad data\non rank " + std::to_string(c.rank()));
    const Vote all = agree_votes(c, mine, kLong);
    std::lock_guard<std::mutex> lock(m);
    votes[c.rank()] = all;
  });
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(votes[r].stop, StopReason::sigterm);
    EXPECT_TRUE(votes[r].skip);
    EXPECT_TRUE(votes[r].fail_check);
    ASSERT_TRUE(votes[r].error.has_value());
    EXPECT_EQ(votes[r].error->kind(), ErrorKind::verification);
    EXPECT_STREQ(votes[r].error->what(), "bad data\non rank 2");
  }
}

TEST(CommInproc, VoteTravelsWithItsErrorPrefixed) {
  Vote v;
  v.stop = StopReason::sigint;
  v.error = Error(ErrorKind::timeout, "late");
  const Vote back = vote_from_wire(vote_to_wire(v), "rank 1: ");
  EXPECT_EQ(back.stop, StopReason::sigint);
  EXPECT_FALSE(back.skip);
  ASSERT_TRUE(back.error.has_value());
  EXPECT_EQ(back.error->kind(), ErrorKind::timeout);
  EXPECT_STREQ(back.error->what(), "rank 1: late");
  EXPECT_FALSE(vote_from_wire(vote_to_wire(Vote{}), "x").error.has_value());
}

TEST(CommInproc, StringsOfAnyLengthIncludingEmptyTravel) {
  std::string big(100000, 'x'), got_big, got_empty = "not empty";
  run_ranks({2, {}}, [&](Communicator& c) {
    if (c.rank() == 0) {
      c.send_string(1, 3, big, kLong);
      c.send_string(1, 3, "", kLong);
    } else {
      got_big = c.recv_string(0, 3, kLong);
      got_empty = c.recv_string(0, 3, kLong);
    }
  });
  EXPECT_EQ(got_big, big);
  EXPECT_EQ(got_empty, "");
}

TEST(CommInproc, ReceiveFromASilentRankTimesOutNamingIt) {
  std::string message;
  ErrorKind kind = ErrorKind::internal;
  run_ranks({2, {}}, [&](Communicator& c) {
    if (c.rank() != 0) return;  // rank 1 "dies" at once
    int v = 0;
    try {
      c.recv(1, 4, &v, sizeof v, kShort);
    } catch (const Error& e) {
      kind = e.kind();
      message = e.what();
    }
  });
  EXPECT_EQ(kind, ErrorKind::timeout);
  EXPECT_NE(message.find("rank 1 did not answer within 0.3 s"), std::string::npos) << message;
}

TEST(CommInproc, BarrierWithADeadRankTimesOutInsteadOfHanging) {
  EXPECT_THROW(run_ranks({3, {}},
                         [&](Communicator& c) {
                           if (c.rank() == 2) return;
                           c.barrier(kShort);
                         }),
               Error);
}

TEST(CommInproc, AMessageOfTheWrongSizeIsAnError) {
  ErrorKind kind = ErrorKind::internal;
  run_ranks({2, {}}, [&](Communicator& c) {
    if (c.rank() == 0) {
      const std::uint64_t v = 1;
      c.send(1, 1, &v, sizeof v, kLong);
    } else {
      std::uint32_t v = 0;
      try {
        c.recv(0, 1, &v, sizeof v, kLong);
      } catch (const Error& e) {
        kind = e.kind();
      }
    }
  });
  EXPECT_EQ(kind, ErrorKind::comm);
}

TEST(CommInproc, LocalRankCountsRanksOnTheSameHost) {
  std::map<int, std::pair<int, int>> local;
  std::mutex m;
  run_ranks({4, {"a", "b", "a", "b"}}, [&](Communicator& c) {
    std::lock_guard<std::mutex> lock(m);
    local[c.rank()] = {c.local_rank(), c.local_size()};
  });
  EXPECT_EQ(local[0], std::make_pair(0, 2));
  EXPECT_EQ(local[1], std::make_pair(0, 2));
  EXPECT_EQ(local[2], std::make_pair(1, 2));
  EXPECT_EQ(local[3], std::make_pair(1, 2));
}

TEST(CommAgree, EveryRankLearnsTheRootCauseNotTheTimeout) {
  std::map<int, std::optional<Error>> outcomes;
  std::mutex m;
  run_ranks({3, {}}, [&](Communicator& c) {
    std::optional<Error> mine;
    if (c.rank() == 1) mine = Error(ErrorKind::timeout, "rank 2 did not answer");
    if (c.rank() == 2) mine = Error(ErrorKind::usage, "gpu 9 is out of range");
    const auto o = agree(c, mine ? &*mine : nullptr, kLong);
    std::lock_guard<std::mutex> lock(m);
    outcomes[c.rank()] = o;
  });
  for (int r = 0; r < 3; ++r) {
    ASSERT_TRUE(outcomes[r].has_value());
    EXPECT_EQ(outcomes[r]->kind(), ErrorKind::usage);
    EXPECT_STREQ(outcomes[r]->what(), "rank 2: gpu 9 is out of range");
  }
}

TEST(CommAgree, OnlyTimeoutsStillFail) {
  std::atomic<int> failed{0};
  run_ranks({2, {}}, [&](Communicator& c) {
    const Error e(ErrorKind::timeout, "late");
    const auto o = agree(c, c.rank() == 1 ? &e : nullptr, kLong);
    if (o && o->kind() == ErrorKind::timeout && std::string(o->what()) == "rank 1: late") ++failed;
  });
  EXPECT_EQ(failed.load(), 2);
}

TEST(CommAgree, NoErrorsMeansOkEverywhere) {
  std::atomic<int> ok{0};
  run_ranks({4, {}}, [&](Communicator& c) {
    if (!agree(c, nullptr, kLong)) ++ok;
  });
  EXPECT_EQ(ok.load(), 4);
}

}  // namespace
}  // namespace xb::comm
