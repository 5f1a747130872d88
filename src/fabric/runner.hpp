// A fabric run as one collective call (docs/fabric.md): every rank of the
// launch is one rail of one node (the node-local rank is the rail; the node
// is the communicator's host name, which XFERBENCH_NODE_NAME or Slurm's
// node name may set). Rank 0 coordinates: before each stage of a round
// (legs.hpp: latency, a->b, b->a) it tells every rank which ranks are
// lost, each rank measures that stage of its pairs of the round and
// reports it, and rank 0 merges the reports into the result. So every
// pair of a round runs the same stage at the same time.
// Never prints.
//
//   fabric::Session s(comm, options, hooks);  // collective: who is where, the plan
//   Result r = s.run();                       // collective: every round
//   int code = 0;
//   if (comm.rank() == 0) code = report(r);   // only rank 0 has the pairs
//   return s.finish(code);                    // collective: rank 0's code everywhere
//
// A rank silent for Options::silence_s is lost: rank 0 records it with its
// node and rail, the pairs it would have measured are errors, and the
// other pairs go on. A signal to any rank stops every rank within a slice
// of a measurement (the stop relay); the rounds finished are kept.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "comm/communicator.hpp"
#include "comm/stop_relay.hpp"
#include "fabric/legs.hpp"
#include "fabric/link.hpp"
#include "fabric/result.hpp"

namespace xb::fabric {

struct Hooks {
  pingpong::Environment env = pingpong::default_environment();
  FaultPlan* faults = nullptr;      // slot faults (fault_names()); may be null
  RunControl* control = nullptr;    // size faults; may be null
  const NcclLog* nccl_log = nullptr;
  // Rank 0: the result before the first round (its plan and nodes), and
  // after each round (the pairs so far: an emergency copy, progress).
  std::function<void(const Result&)> planned, progress;
};

class Session {
 public:
  // Collective: every rank announces itself (host, node-local rank, GPU,
  // NCCL); Error on every rank when one cannot (a bad GPU id), or when the
  // launch has fewer than 2 nodes.
  Session(comm::Communicator& comm, const Options& options, Hooks hooks);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  const Result& header() const { return header_; }  // options, plan, nodes
  Result run();
  int finish(int code);

 private:
  Result coordinate();
  void run_round(Result& r, int k);
  void end_round(Result& r, std::size_t first, const std::vector<bool>& lost_before);
  void work();
  std::vector<LegReport> my_legs(int round, int stage, const std::vector<bool>& lost);
  std::vector<bool> order_stage(Result& r, int k, int stage);
  void merge(Result& r, std::size_t first_pair, const std::vector<LegReport>& legs);
  void lose(Result& r, int rank, int round, const std::string& why);

  comm::Communicator& comm_;
  Options options_;
  Hooks hooks_;
  std::vector<pingpong::RankInfo> infos_;
  std::vector<std::vector<Slot>> rounds_;
  Result header_;
  std::vector<std::pair<int, int>> where_;  // rank -> (node, rail)
  std::unique_ptr<comm::StopRelay> relay_;
  std::unique_ptr<Link> link_;
  std::size_t ordinal_ = 0;
  std::map<std::size_t, SlotRun> runs_;  // this rank's slots of the round in progress, by index
  StopReason stop_ = StopReason::none;
};

}  // namespace xb::fabric
