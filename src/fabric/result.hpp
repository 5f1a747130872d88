// The fabric's result record: the nodes and their rails, every node pair x
// rail measured (bandwidth both ways, one-way latency), what was not
// measured and why, and the findings (outliers, culprits). SI units inside;
// reporters (src/report/fabric_report.cpp) only read it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/stats.hpp"
#include "fabric/options.hpp"
#include "pingpong/result.hpp"
#include "records/completion.hpp"

namespace xb::fabric {

struct Node {
  std::string name;         // the node's name (Slurm's, XFERBENCH_NODE_NAME, else the host name)
  std::vector<int> ranks;   // world rank of each rail, by node-local rank
  std::vector<int> gpus;    // GPU of each rail (-1: host buffers)
};

// One direction of a pair's bandwidth, or its latency: pingpong's record of
// one size as its initiator measured it (one_way_s: per message).
using Leg = pingpong::SizeResult;

// Bandwidth of a leg in GB/s at its median and at its 99th-percentile
// (slowest 1%) message time; 0 when not measured.
double gbps_p50(const Leg& l);
double gbps_p99(const Leg& l);
bool measured(const Leg& l);  // timed, whatever its data check said

struct PairRecord {
  int a = 0, b = 0;  // node indices, a < b
  int rail = 0;
  int round = 0;     // index into the rounds that ran (0-based)
  int rank_a = -1, rank_b = -1;
  int gpu_a = -1, gpu_b = -1;
  std::string transport;  // the path's kind (pingpong's transport names)
  std::string path;       // how it moved the data a -> b, as the transport (NCCL: its log) says
  std::string path_ba;    // the same b -> a (NCCL may pick another channel)
  std::optional<Leg> ab, ba, latency;  // absent: not measured (error or stop says why)
  std::string error;      // the first error that cost a leg (a dead peer, a failed setup)
  ErrorKind error_kind = ErrorKind::internal;
  StopReason stop = StopReason::none;
};

// A pair's place among the others (attribution.hpp), parallel to Result::pairs.
struct PairJudgement {
  double ratio_ab = 0, ratio_ba = 0;  // bandwidth / median of all bandwidths (0: not measured)
  double ratio_latency = 0;           // median latency / latency (below 1: slower)
  double worst = 0;                   // the lowest judged ratio (0 when nothing was measured)
  bool low = false;                   // worst < min_ratio
  bool failed = false;                // a leg failed its data check or could not be measured
};

enum class CulpritKind { rail, node, node_rail, pair, pair_rail };
const char* to_string(CulpritKind k) noexcept;

struct Culprit {
  CulpritKind kind = CulpritKind::pair_rail;
  int a = -1, b = -1;    // nodes (b: pairs only)
  int rail = -1;         // -1: every rail
  int low = 0, pairs = 0;  // its pairs below --min-ratio, of those measured
  double median_ratio = 0; // median worst ratio of its low pairs
  std::string what;        // "node n3", "rail 2", "pair n1-n5 rail 0"
  std::string why;         // the evidence and what it points at
};

struct Findings {
  double min_ratio = 0;
  Judge judge = Judge::all;
  double median_gbps = 0;       // of every measured direction's p50
  double median_latency_s = 0;  // of every measured latency's p50
  std::vector<PairJudgement> pairs;
  int low_pairs = 0, failed_pairs = 0;
  std::vector<Culprit> culprits;  // most severe first
  std::vector<std::string> notes; // what the attribution could not tell
};

// A rank the coordinator stopped waiting for.
struct LostRank {
  int rank = -1;
  int node = -1, rail = -1;
  int round = -1;  // the round in which it went silent
  std::string why;
};

struct Plan {
  int nodes = 0, rails = 0;
  bool all_pairs = true;
  std::uint64_t seed = 0;
  int node_rounds = 0;      // rounds of node pairs
  int rounds = 0;           // rounds as run (x rails with --rails one)
  std::size_t node_pairs = 0, pairs = 0;  // pairs: node pairs x rails
  double estimated_s = 0;   // from Options' assume_* figures
};

struct Result {
  Options options;
  Plan plan;
  std::vector<Node> nodes;
  std::vector<PairRecord> pairs;  // in schedule order
  std::vector<LostRank> lost;
  Findings findings;
  Completion completion;
  int world_size = 0;
  double wall_s = 0;
  std::string start_time_utc;
  std::vector<std::string> command_line;
};

std::string pair_name(const Result& r, const PairRecord& p);  // "n1-n5 rail 0"
// The failure that decides the exit status: the first pair error (its
// kind), else a failed data check; nullopt when every pair passed.
std::optional<ErrorKind> failure_kind(const Result& r);

}  // namespace xb::fabric
