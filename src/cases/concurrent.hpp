// Concurrent scenarios (the multi-gpu-bwtest and CUts front-ends): every
// transfer of a Scenario starts behind one gate, and the result says per
// transfer how fast it went and, for the whole scenario, how the transfers
// shared the time: the real span, the aggregate bandwidth over that span,
// the sum of per-transfer bandwidths (a different number: it assumes each
// transfer had the span to itself), a timeline and how much of the span saw
// more than one transfer running.
//
// describe_scenario and summarize_samples are pure, so everything except the
// measurement itself is unit-tested without a GPU.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "measure/measure.hpp"
#include "base/model.hpp"
#include "records/result.hpp"
#include "records/scenario.hpp"
#include "base/stats.hpp"
#include "machine/topology.hpp"

namespace xb {

class SampleSource;

// A time interval on the scenario timeline, in seconds from the gate release.
struct Interval {
  double start_s = 0;
  double end_s = 0;
};

// Seconds during which at least two intervals run at once (touching ends do
// not count). Exact; intervals with end <= start are ignored.
double overlapped_seconds(const std::vector<Interval>& intervals);
// Most intervals running at the same instant.
int max_concurrency(const std::vector<Interval>& intervals);
// overlapped_seconds / span_s, clamped to [0, 1]; 0 for a span <= 0.
double overlap_fraction(const std::vector<Interval>& intervals, double span_s);
// Index of the lower median of `values`: the element at sorted position
// (n - 1) / 2, equal values kept in their order. Throws Error(internal) when
// empty.
std::size_t median_index(const std::vector<double>& values);

// Refuses what the machine cannot run, before any allocation: a device id
// out of range, a copy between two GPUs without peer access ("gpu0 -> gpu1:
// no peer access; xferbench does not stage through host memory"). Throws
// Error(usage).
void check_scenario(const System& sys, const Scenario& scenario);

// Host location with its NUMA node resolved for the executing GPU (the
// measurer's rule); empty: nodes stay as given.
using NumaResolver = std::function<Location(const Location&, int gpu)>;

// Everything known before measuring: ids, labels, devices, links, peaks.
ScenarioResult describe_scenario(const System& sys, const Scenario& scenario, const NumaResolver& resolve = {});

// Fills the measured fields of `r` from samples of the same scenario.
void summarize_samples(ScenarioResult& r, const ScenarioSamples& samples, Statistic statistic);

// Called after every sample with the count so far (progress display).
using SampleCallback = std::function<void(int samples)>;

struct ScenarioRequest {
  Scenario scenario;
  std::string front_end = "bwtest";
  std::vector<std::string> command_line;
};

// check_scenario, peer access for every GPU pair, then the measurement
// through any sample source (GpuSource; tests use a fake one). Adaptive
// sampling watches the aggregate bandwidth. Throws Error for setup
// failures; a failed verification is data.
ScenarioResult run_scenario(SampleSource& src, const ScenarioRequest& req, const SampleCallback& on_sample = {});

}  // namespace xb
