// Verdicts of `xferbench check`: every measured cell of a run record (just
// measured, or a recorded run decoded, so both are judged alike) against an
// expectation, taken in this order:
//   1. the spec file's most specific [[expect]] entry for the cell;
//   2. the same cell of a baseline run, under compare's noise model;
//   3. built-in defaults from the theoretical peak (builtin_min_pct).
// Independently of the source, a cell far below the same cell of identical
// GPUs fails (bandwidth below 85% of their median, latency above 115%).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "check/spec.hpp"
#include "compare/compare.hpp"
#include "records/result.hpp"

namespace xb::check {

enum class CellVerdict { pass, fail, unjudged };
const char* to_string(CellVerdict v) noexcept;

// Where a cell's expectation came from.
enum class Basis { spec, baseline, builtin, peers, none };
const char* to_string(Basis b) noexcept;

struct CheckCell {
  std::string case_name, matrix, row, col;
  int row_index = 0, col_index = 0;  // in the case's matrices
  std::string key;          // compare's key: "case matrix[row,col]"
  bool latency = false;
  LinkClass link = LinkClass::pcie;
  std::string link_label;   // "PCIe Gen5 x16", "NVLink x18"
  std::string link_key;     // "host<->gpu0", "gpu0<->gpu1", "gpu0<->peers", "gpu0 memory"
  int gpu = -1;             // the GPU whose link the cell measures (issuer for pairs)
  std::string gpu_name;
  double value = 0, stddev = 0;
  int samples = 0;
  double peak_gbps = 0;     // 0: unknown
  std::string peak_formula;
  bool verification_failed = false;
  std::string invalid_reason;  // the recorded cell is impossible (above its link's peak): why
  // Loaded-latency cells (the loaded matrix of the *_under_* cases).
  bool loaded = false;
  double idle_ns = 0, ratio = 0;
  std::string weak_load;       // why the load was too weak to show the link loaded; empty: it was not
  // Telemetry (filled by check_node before judging).
  bool throttled = false;
  std::string throttle_reasons;
  bool remeasured = false;
  // The judgement.
  CellVerdict verdict = CellVerdict::unjudged;
  Basis basis = Basis::none;
  double threshold = 0;      // absolute: GB/s at least, or ns at most
  double threshold_pct = 0;  // when the expectation is a percentage of the peak
  std::string source;        // "h200.toml:42", "baseline.json", "built-in"
  std::string why;           // the spec entry's justification, if any
  double baseline_value = 0, delta_pct = 0, noise_pct = 0;
  double peer_median = 0, peer_limit_pct = 0;
  int peer_count = 0;        // identical cells compared with (this one included)
  bool peer_fail = false;
  std::string note;          // why unjudged, or what else failed it
};

// A case that did not produce judgeable cells: error, failed, waived or not run.
struct CaseProblem {
  std::string case_name;
  CaseStatus status = CaseStatus::error;
  std::string message;
};

// Every cell of a run, with its link class and link key derived from the
// case's pattern and the run's topology. A cell whose row or column has no
// label is Error(usage) naming `source` (a recorded run's file).
std::vector<CheckCell> extract_cells(const RunResult& run, const std::string& source);
std::vector<CaseProblem> case_problems(const RunResult& run);

struct Baseline {
  std::string file;
  std::map<std::string, CheckCell> cells;  // by key
};

// The cells of a baseline run recorded in `file`. Refuses (Error(usage))
// one recorded on another machine model (GPU names and count) unless `force`.
Baseline load_baseline(const RunResult& run, const std::string& file, const System& now, bool force);

// Built-in minimum, percent of the theoretical peak, per link class.
double builtin_min_pct(LinkClass link) noexcept;
inline constexpr double kPeerBandwidthMinPct = 85.0;
inline constexpr double kPeerLatencyMaxPct = 115.0;

struct JudgeOptions {
  const CheckSpec* spec = nullptr;
  const Baseline* baseline = nullptr;
  CompareOptions compare;
};

void judge_cells(std::vector<CheckCell>& cells, const JudgeOptions& opts);

struct LinkVerdict {
  std::string link_key, link_label;
  CellVerdict verdict = CellVerdict::unjudged;
  int cells = 0, failed = 0, unjudged = 0;
  std::size_t worst = 0;  // index into the cells: the first failure, else the smallest margin
};

// One verdict per link, in the order links first appear.
std::vector<LinkVerdict> link_verdicts(const std::vector<CheckCell>& cells);

// How far a judged cell is above its limit: value / threshold for a
// bandwidth, threshold / value for a latency (below 1: failed).
double margin(const CheckCell& c) noexcept;

}  // namespace xb::check
