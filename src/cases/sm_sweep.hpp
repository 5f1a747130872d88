// The SM budget curve (`xferbench sweep --sms`): an SM or TMA copy case
// measured with its kernel pinned to 1, 2, 4, ... SMs (kernels.hpp, SM
// pinning: the case's own blocks per SM, on SMs spread over the GPU) up to
// all of them, giving per link the bandwidth against the SMs a copy is
// allowed, the GB/s one SM sustains, and the smallest SM count that reaches
// 90% and 95% of the all-SM figure: how many SMs a communication kernel
// needs, and so how many it can leave to compute. The named case is then
// measured once more, as `run` measures it, and a curve whose all-SM point
// differs from it by more than 2% is flagged.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cases/cases.hpp"
#include "measure/measure.hpp"
#include "measure/sample_source.hpp"
#include "records/result.hpp"
#include "cases/sweep.hpp"
#include "machine/topology.hpp"

namespace xb {

// Cases whose kernel the SM budget applies to: single-direction SM, TMA,
// read-only and write-only copies (host <-> GPU, GPU <-> GPU, local). The
// split-warp kernels of the bidirectional host cases run 16 blocks per SM
// and the fan-out cases several kernels per GPU, so "N SMs" would not mean N
// there. Throws Error(usage) naming the case and the ones that qualify.
const CaseDef* sm_sweep_case(const std::string& name);

// The SM counts to measure, checked against the smallest SM count among
// `gpu_sms`: "" = 1, 2, 4, ... and all; otherwise a comma list of counts
// and "all", sorted, duplicates dropped, "all" (the GPU's count) always
// last. 0 or more than a GPU has is Error(usage) naming the GPU and its
// SM count. 0 in the result means "all".
std::vector<int> sm_counts(const std::string& text, const std::vector<int>& gpu_sms);

struct SmPoint {
  int sms = 0;              // SMs the kernel ran on
  double value_gbps = 0;    // median (or mean) of samples
  Summary stats;
  std::vector<double> samples_gbps;
  int copies_per_sample = 0;
  double efficiency = 0;    // of the link's peak; 0 when unknown
  double of_all = 0;        // of the all-SM figure
  Verification::Status verification = Verification::Status::skipped;
};

struct SmSeries {
  std::string label;        // "[host,gpu0]", "[gpu0,gpu1]"
  std::string link;
  Peak peak;
  int gpu_sms = 0;          // SMs of the GPU whose kernel moved the bytes
  std::vector<SmPoint> points;
  double all_sm_gbps = 0;   // the point at every SM
  int sms_for_90 = 0;       // smallest measured SM count reaching 90% of all_sm_gbps; 0: none measured
  int sms_for_95 = 0;
  double per_sm_gbps = 0;   // GB/s per SM at the fewest SMs measured
  double named_gbps = 0;    // the named case measured again after the curve; 0: not measured
  bool disagrees = false;   // all_sm_gbps and named_gbps differ by more than kNamedTolerance
};

constexpr double kNamedTolerance = 0.02;

// Fills of_all, the 90% / 95% thresholds, the GB/s per SM and the
// disagreement with the named case from the points (pure).
void finish_series(SmSeries& s);

struct SmSweepRequest {
  const CaseDef* def = nullptr;
  std::string sms_text;     // as given to --sms
  std::uint64_t bytes = 512ull << 20;
  MeasureOptions measure;
  std::vector<std::string> command_line;
};

struct SmSweepResult {
  std::vector<std::string> command_line;
  std::string start_time_utc;
  double wall_seconds = 0;
  std::string case_name;
  std::uint64_t bytes = 0;
  std::vector<int> sms;     // measured budgets; 0 = all
  std::string statistic = "median";
  MeasureOptions measure;
  System system;
  SweepStatus status = SweepStatus::passed;
  std::vector<std::string> messages;
  std::vector<SmSeries> series;
};

// Adds one budget's measurement of the case to the result (series per cell).
void add_sm_point(const CaseResult& c, int sms, SmSweepResult& out);

using SmSweepCallback = std::function<void(int sms, std::size_t done, std::size_t total)>;

// Checks the SM counts against the GPUs (Error(usage) before measuring),
// then measures every budget and the named case; an error at one budget
// becomes a message, and a curve that disagrees with its named case makes
// the sweep fail naming it.
SmSweepResult sweep_sms(SampleSource& src, const SmSweepRequest& req, const SmSweepCallback& on_point = {});
// sweep_sms on this machine's GPUs (req.measure's options).
SmSweepResult run_sm_sweep(const System& sys, const SmSweepRequest& req, const SmSweepCallback& on_point = {});

}  // namespace xb
