// Runs a body on every in-process rank (threads as ranks) and keeps what
// each rank ended with: its result, or the xb::Error it threw. Shared by the
// pingpong and first-touch run tests.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "comm/inproc_comm.hpp"
#include "base/error.hpp"

template <class Result>
struct RankOutcome {
  std::optional<Result> result;
  std::optional<xb::Error> error;
};

// body(Communicator&) returns the rank's Result or throws xb::Error.
template <class Result, class Body>
std::map<int, RankOutcome<Result>> run_all_ranks(const xb::comm::InprocOptions& world, Body body) {
  std::map<int, RankOutcome<Result>> out;
  std::mutex m;
  xb::comm::run_ranks(world, [&](xb::comm::Communicator& c) {
    RankOutcome<Result> mine;
    try {
      mine.result = body(c);
    } catch (const xb::Error& e) {
      mine.error = e;
    }
    std::lock_guard<std::mutex> lock(m);
    out[c.rank()] = mine;
  });
  return out;
}

// Every rank failed with `kind` and a message containing `text`; with
// `identical_messages`, the very same message on every rank.
template <class Result>
void expect_every_rank_failed(const std::map<int, RankOutcome<Result>>& out, xb::ErrorKind kind,
                              const std::string& text, bool identical_messages = false) {
  for (const auto& [rank, oc] : out) {
    ASSERT_TRUE(oc.error) << "rank " << rank << " did not fail";
    EXPECT_EQ(oc.error->kind(), kind) << oc.error->what();
    EXPECT_NE(std::string(oc.error->what()).find(text), std::string::npos) << oc.error->what();
    if (identical_messages) {
      EXPECT_EQ(std::string(oc.error->what()), out.begin()->second.error->what());
    }
  }
}
