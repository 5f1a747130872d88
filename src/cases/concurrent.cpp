#include "cases/concurrent.hpp"

#include <algorithm>
#include <numeric>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "base/error.hpp"
#include "cases/runner.hpp"
#include "measure/sample_source.hpp"

namespace xb {
namespace {

// The GPU a location belongs to, or -1 for host memory (managed memory
// standing on the host side has device -1 too).
int gpu_of(const Location& loc) {
  return loc.kind == MemKind::device || loc.kind == MemKind::managed ? loc.device : -1;
}

// "HtoD", "DtoH", "DtoD" (two GPUs) or "local" (one GPU's own memory),
// from where the source and destination live.
std::string transfer_direction(const Transfer& t) {
  const int src = gpu_of(t.src), dst = gpu_of(t.dst);
  if (src >= 0 && dst >= 0) return src == dst ? "local" : "DtoD";
  if (dst >= 0) return "HtoD";
  if (src >= 0) return "DtoH";
  return "HtoH";
}

void check_device(const System& sys, const Transfer& t, int id) {
  if (id >= 0 && id < sys.gpu_count()) return;
  fail(ErrorKind::usage, fmt::format("{}: gpu{} does not exist ({} GPU{})", t.label, id, sys.gpu_count(),
                                     sys.gpu_count() == 1 ? "" : "s"));
}

// Starts (+1) and ends (-1) of the non-empty intervals, sorted by time; at
// equal times an end comes before a start, so intervals that only touch
// never count as running together.
std::vector<std::pair<double, int>> sorted_events(const std::vector<Interval>& intervals) {
  std::vector<std::pair<double, int>> events;
  for (const Interval& iv : intervals) {
    if (!(iv.end_s > iv.start_s)) continue;
    events.emplace_back(iv.start_s, +1);
    events.emplace_back(iv.end_s, -1);
  }
  std::sort(events.begin(), events.end());
  return events;
}

}  // namespace

double overlapped_seconds(const std::vector<Interval>& intervals) {
  const auto events = sorted_events(intervals);
  double overlapped = 0;
  int running = 0;
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (running >= 2 && i > 0) overlapped += events[i].first - events[i - 1].first;
    running += events[i].second;
  }
  return overlapped;
}

int max_concurrency(const std::vector<Interval>& intervals) {
  int running = 0, most = 0;
  for (const auto& e : sorted_events(intervals)) {
    running += e.second;
    most = std::max(most, running);
  }
  return most;
}

double overlap_fraction(const std::vector<Interval>& intervals, double span_s) {
  if (!(span_s > 0)) return 0.0;
  return std::clamp(overlapped_seconds(intervals) / span_s, 0.0, 1.0);
}

std::size_t median_index(const std::vector<double>& values) {
  if (values.empty()) fail(ErrorKind::internal, "median_index of no values");
  std::vector<std::size_t> order(values.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
  return order[(values.size() - 1) / 2];
}

void check_scenario(const System& sys, const Scenario& scenario) {
  if (scenario.transfers.empty()) fail(ErrorKind::usage, "no transfer given");
  for (const Transfer& t : scenario.transfers) {
    check_device(sys, t, t.exec_device);
    for (const Location& loc : {t.src, t.dst}) {
      if (loc.kind == MemKind::device || gpu_of(loc) >= 0) check_device(sys, t, loc.device);
    }
  }
  for (const Transfer& t : scenario.transfers) {
    const int src = gpu_of(t.src), dst = gpu_of(t.dst);
    // Managed memory migrates without peer access; device memory cannot.
    const bool needs_peer = t.src.kind == MemKind::device && t.dst.kind == MemKind::device && src != dst;
    if (needs_peer && !sys.link(src, dst).peer_access) {
      fail(ErrorKind::usage, fmt::format("gpu{} -> gpu{}: no peer access; xferbench does not stage through host memory",
                                         src, dst));
    }
  }
}

ScenarioResult describe_scenario(const System& sys, const Scenario& scenario, const NumaResolver& resolve) {
  ScenarioResult r;
  r.streams = scenario.streams;
  r.system = sys;
  for (std::size_t i = 0; i < scenario.transfers.size(); ++i) {
    const Transfer& t = scenario.transfers[i];
    TransferResult tr;
    tr.id = static_cast<int>(i);
    tr.label = t.label;
    tr.device = t.exec_device;
    tr.device_name = sys.gpus.at(static_cast<std::size_t>(t.exec_device)).name;
    tr.src_gpu = gpu_of(t.src);
    tr.dst_gpu = gpu_of(t.dst);
    tr.direction = transfer_direction(t);
    tr.bytes = t.bytes;
    tr.engine = t.engine;
    const Location& host = tr.src_gpu < 0 ? t.src : t.dst;
    tr.memory = tr.src_gpu >= 0 && tr.dst_gpu >= 0 ? t.src.kind : host.kind;
    if (tr.src_gpu < 0 || tr.dst_gpu < 0) tr.host_numa = resolve ? resolve(host, t.exec_device).numa : host.numa;
    tr.peak = transfer_peak(sys, t, &tr.link);
    r.transfers.push_back(std::move(tr));
  }
  return r;
}

void summarize_samples(ScenarioResult& r, const ScenarioSamples& samples, Statistic statistic) {
  const std::size_t n = samples.total_seconds.size();
  if (n == 0 || samples.transfers.size() != r.transfers.size())
    fail(ErrorKind::internal, "samples do not match the scenario");
  const std::size_t m = median_index(samples.total_seconds);
  const double copies = samples.copies_per_sample;
  r.copies_per_sample = samples.copies_per_sample;
  r.samples = static_cast<int>(n);
  r.gated = samples.gated;
  r.timeline_sample = static_cast<int>(m);
  r.statistic = to_string(statistic);
  r.total_bytes = 0;
  r.sum_of_transfer_bandwidths_gbps = 0;
  std::vector<Interval> timeline;
  for (std::size_t i = 0; i < r.transfers.size(); ++i) {
    TransferResult& t = r.transfers[i];
    const TransferSamples& ts = samples.transfers[i];
    const double bytes = static_cast<double>(t.bytes) * copies;
    t.samples_gbps.clear();
    for (const double s : ts.seconds) t.samples_gbps.push_back(gbps(bytes, s));
    t.stats = summarize(t.samples_gbps);
    t.bandwidth_gbps = value_of(t.stats, statistic);
    const Summary time = summarize(ts.seconds);
    t.sample_elapsed_s = value_of(time, statistic);
    t.elapsed_s = copies > 0 ? t.sample_elapsed_s / copies : 0.0;
    t.efficiency = t.peak.known() ? t.bandwidth_gbps / t.peak.gbps : 0.0;
    t.invalid_reason = impossible_reason(t.bandwidth_gbps, t.peak);
    t.verification = ts.verification;
    t.start_s = ts.start_s.at(m);
    t.end_s = ts.end_s.at(m);
    timeline.push_back({t.start_s, t.end_s});
    r.total_bytes += t.bytes * static_cast<std::uint64_t>(samples.copies_per_sample);
    r.sum_of_transfer_bandwidths_gbps += t.bandwidth_gbps;
  }
  std::vector<double> aggregate;
  for (const double s : samples.total_seconds) aggregate.push_back(gbps(static_cast<double>(r.total_bytes), s));
  r.aggregate_stats = summarize(aggregate);
  r.span_s = samples.total_seconds[m];
  r.aggregate_bandwidth_gbps = gbps(static_cast<double>(r.total_bytes), r.span_s);
  r.overlapped_s = overlapped_seconds(timeline);
  r.overlap_fraction = overlap_fraction(timeline, r.span_s);
  r.max_concurrent = max_concurrency(timeline);
  r.wall_s = samples.wall_seconds;
}

ScenarioResult run_scenario(SampleSource& src, const ScenarioRequest& req, const SampleCallback& on_sample) {
  const System& sys = src.system();
  const Scenario& scenario = req.scenario;
  check_scenario(sys, scenario);
  ScenarioResult r = describe_scenario(sys, scenario, [&src](const Location& loc, int gpu) {
    return src.resolve(loc, gpu);
  });
  r.command_line = req.command_line;
  r.front_end = req.front_end;
  r.start_time_utc = utc_now_iso8601();
  r.measure = src.options();
  std::uint64_t bytes_per_round = 0;
  for (const Transfer& t : scenario.transfers) bytes_per_round += t.bytes;
  // Adaptive sampling settles the scenario's own figure: the aggregate.
  const SampleMetric metric = [&](const ScenarioSamples& s, std::size_t i) {
    if (on_sample) on_sample(static_cast<int>(i) + 1);
    return gbps(static_cast<double>(bytes_per_round) * s.copies_per_sample, s.total_seconds[i]);
  };
  const ScenarioSamples samples = src.run(scenario, metric);  // enables peer access for the GPU pairs
  summarize_samples(r, samples, src.options().statistic);
  return r;
}

}  // namespace xb
