// Reporters for concurrent scenarios (xferbench run --do / CUts flags,
// xferbench cuts): a text table with multi-gpu-bwtest's columns plus memory
// kind, GB/s, % of peak and verification; the scenario figures, each with a
// label that says what it divides by; an ASCII timeline; CUts' own lines;
// CSV (a header row, then one row per transfer; the scenario figures repeat
// on every row so each row stands alone in a spreadsheet). Its JSON is the
// record's own codec, records/scenario_json.hpp.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "report/formats.hpp"

namespace xb::report {
namespace {

constexpr int kTimelineWidth = 60;

// bwtest's "Transfer size" column: "1.00 KiB", "6.38 MiB".
std::string size_text(std::uint64_t bytes) {
  return bytes < 1024 ? fmt::format("{} B", bytes) : bwtest_size(bytes);
}

std::string mib_per_s(double gbps) { return fmt::format("{:.2f} MiB/s", gbps * 1e9 / (1024.0 * 1024.0)); }

std::string percent_of_peak(const TransferResult& t) {
  if (!t.invalid_reason.empty()) return "INVALID";
  return t.peak.known() ? fmt::format("{:.1f}%", t.efficiency * 100) : "-";
}

std::string numa_text(int node) {
  if (node == kNoNumaPlacement) return "not NUMA-placed";
  if (node < 0) return "the GPU's NUMA node";
  return fmt::format("NUMA node {}", node);
}

// Times on the timeline in one unit chosen from the span.
struct TimeUnit {
  double scale;
  const char* name;
};
TimeUnit unit_for(double span_s) {
  if (span_s < 1e-3) return {1e6, "us"};
  if (span_s < 1.0) return {1e3, "ms"};
  return {1.0, "s"};
}

void text_header(std::ostream& os, const ScenarioResult& r) {
  const System& s = r.system;
  fmt::print(os, "# xferbench {} on {} ({} GPU{}), driver {}: {} transfer{} started together ({}), streams {}\n",
             XFERBENCH_VERSION, s.hostname, s.gpu_count(), s.gpu_count() == 1 ? "" : "s", s.driver_version,
             r.transfers.size(), r.transfers.size() == 1 ? "" : "s", r.front_end, to_string(r.streams));
  fmt::print(os, "# {} sample{} x {} cop{} per transfer; {} of samples; {}\n", r.samples, r.samples == 1 ? "" : "s",
             r.copies_per_sample, r.copies_per_sample == 1 ? "y" : "ies", r.statistic,
             r.measure.verify ? "data verified after timing" : "verification skipped");
  fmt::print(os, "# Time elapsed: one copy; Bandwidth in MiB/s (2^20 B/s) as multi-gpu-bwtest, GB/s = 1e9 B/s\n");
}

void text_table(std::ostream& os, const ScenarioResult& r) {
  const std::string rule(132, '=');
  fmt::print(os, "{}\n{:>4} {:>3}  {:<18} {:<17} {:>13} {:>9}  {:<14} {:>6} {:>12} {:>16} {:>9} {:>7} {:>7}\n{}\n", rule,
             "Xfer", "ID", "Device name", "Path", "Transfer size", "Direction", "Memory", "Engine", "Time elapsed",
             "Bandwidth", "GB/s", "% peak", "Verify", std::string(132, '-'));
  for (const TransferResult& t : r.transfers) {
    const std::string name = t.device_name.size() > 18 ? t.device_name.substr(0, 18) : t.device_name;
    fmt::print(os, "{:>4} {:>3}  {:<18} {:<17} {:>13} {:>9}  {:<14} {:>6} {:>12} {:>16} {:>9.2f} {:>7} {:>7}\n", t.id,
               t.device, name, t.label, size_text(t.bytes), t.direction, to_string(t.memory), to_string(t.engine),
               duration_text(t.elapsed_s), mib_per_s(t.bandwidth_gbps), t.bandwidth_gbps, percent_of_peak(t),
               to_string(t.verification.status));
  }
  fmt::print(os, "{}\n", rule);
  for (const TransferResult& t : r.transfers) {
    fmt::print(os, "# {:>3} {}: {}", t.id, t.label, t.link);
    if (t.peak.known()) fmt::print(os, ", peak {:.2f} GB/s = {}", t.peak.gbps, t.peak.formula);
    if (t.direction == "HtoD" || t.direction == "DtoH") fmt::print(os, ", host buffer {}", numa_text(t.host_numa));
    fmt::print(os, ", CoV {:.2f}% over {} sample{}\n", t.stats.cov * 100, t.stats.count, t.stats.count == 1 ? "" : "s");
    if (t.verification.status == Verification::Status::failed)
      fmt::print(os, "# {:>3} VERIFICATION FAILED: first bad byte at offset {}\n", t.id, t.verification.first_bad_offset);
    if (!t.invalid_reason.empty()) fmt::print(os, "# {:>3} INVALID: {}\n", t.id, t.invalid_reason);
  }
}

void text_figures(std::ostream& os, const ScenarioResult& r) {
  fmt::print(os, "\nSpan (gate release -> last transfer end)   : {:>12}   (sample {} of {}: the median span)\n",
             duration_text(r.span_s), r.timeline_sample + 1, r.samples);
  fmt::print(os, "Aggregate bandwidth (all bytes / span)     : {:>12.2f} GB/s  ({} moved in the span)\n",
             r.aggregate_bandwidth_gbps, size_text(r.total_bytes));
  fmt::print(os, "Sum of per-transfer bandwidths             : {:>12.2f} GB/s  (each over its own time; not a "
                 "throughput)\n", r.sum_of_transfer_bandwidths_gbps);
  fmt::print(os, "Overlap (share of span with >1 running)    : {:>11.1f}%   (at most {} at once)\n",
             r.overlap_fraction * 100, r.max_concurrent);
  if (!r.gated)
    fmt::print(os, "# pageable memory: no gate; transfers start as they are queued, so overlap may be understated\n");
}

void text_timeline(std::ostream& os, const ScenarioResult& r) {
  const TimeUnit u = unit_for(r.span_s);
  fmt::print(os, "\nTimeline of sample {} (0 = gate release; one column = {})\n", r.timeline_sample + 1,
             duration_text(r.span_s / kTimelineWidth));
  const std::string end_label = fmt::format("{:.3f} {}", r.span_s * u.scale, u.name);
  fmt::print(os, "{:>4} {:<17} 0{:>{}}\n", "Xfer", "Path", end_label, kTimelineWidth + 1);
  for (const TransferResult& t : r.transfers) {
    fmt::print(os, "{:>4} {:<17} |{}|  {:.3f} - {:.3f} {}\n", t.id, t.label,
               timeline_bar(t.start_s, t.end_s, r.span_s, kTimelineWidth), t.start_s * u.scale, t.end_s * u.scale,
               u.name);
  }
}

}  // namespace

std::string timeline_bar(double start_s, double end_s, double span_s, int width) {
  std::string bar(static_cast<std::size_t>(std::max(width, 0)), '.');
  if (width <= 0 || !(span_s > 0)) return bar;
  const double lo = std::clamp(start_s, 0.0, span_s), hi = std::clamp(end_s, 0.0, span_s);
  if (!(hi > lo)) return bar;
  const int first = static_cast<int>(std::floor(lo / span_s * width));
  const int last = static_cast<int>(std::ceil(hi / span_s * width)) - 1;
  for (int c = std::max(first, 0); c <= std::min(last, width - 1); ++c) bar[static_cast<std::size_t>(c)] = '#';
  return bar;
}

std::string duration_text(double seconds) {
  if (seconds < 1e-6) return fmt::format("{:.0f} ns", seconds * 1e9);
  if (seconds < 1e-3) return fmt::format("{:.0f} us", seconds * 1e6);
  if (seconds < 1.0) return fmt::format("{:.2f} ms", seconds * 1e3);
  return fmt::format("{:.2f} s", seconds);
}

void scenario_text(std::ostream& os, const ScenarioResult& r) {
  text_header(os, r);
  text_table(os, r);
  text_figures(os, r);
  text_timeline(os, r);
  if (!all_valid(r))
    fmt::print(os, "\n# FAILED: data verification failed or a figure is invalid (see the rows marked failed or INVALID)\n");
}

void cuts_launch_text(std::ostream& os, const ScenarioResult& described) {
  for (const TransferResult& t : described.transfers) {
    if (t.direction == "HtoD" || t.direction == "DtoH") {
      fmt::print(os, "Launching {} transfers with Device {} (Host buffer {})\n",
                 t.direction == "HtoD" ? "Host to Device" : "Device to Host", t.device,
                 t.host_numa == kNoNumaPlacement ? "not NUMA-placed" : "allocated on " + numa_text(t.host_numa));
    } else {
      fmt::print(os, "Launching P2P transfers from Device {} to Device {} ({})\n", t.src_gpu, t.dst_gpu, t.link);
    }
  }
}

void cuts_result_text(std::ostream& os, const ScenarioResult& r) {
  fmt::print(os, "Completed.\n");
  for (const TransferResult& t : r.transfers) {
    if (t.direction == "HtoD" || t.direction == "DtoH") {
      fmt::print(os, "Transfer {} - Direct transfers with device {} ({}): {:.3f} GB/s  ({:.2f} seconds)\n", t.id,
                 t.device, t.direction == "HtoD" ? "Host to Device" : "Device to Host", t.bandwidth_gbps,
                 t.sample_elapsed_s);
    } else {
      fmt::print(os, "Transfer {} - P2P transfers from device {} to device {}: {:.3f} GB/s  ({:.2f} seconds)\n", t.id,
                 t.src_gpu, t.dst_gpu, t.bandwidth_gbps, t.sample_elapsed_s);
    }
  }
}

void scenario_not_measured_text(std::ostream& os, const ScenarioResult& r) {
  text_header(os, r);
  if (!r.completion.error.empty()) fmt::print(os, "# ERROR: {}\n", r.completion.error);
  if (r.completion.status != RunStatus::complete)
    fmt::print(os, "# NOT RUN: {} before the scenario's samples were complete; nothing measured{}\n",
               r.completion.message,
               r.completion.stop == StopReason::time_limit ? "" : " (add --resume FILE to the same command to run it)");
  for (const TransferResult& t : r.transfers) fmt::print(os, "#   transfer {}: {}, {} bytes per copy, not measured\n", t.id, t.label, t.bytes);
}

std::string scenario_csv(const ScenarioResult& r) {
  std::string out =
      "id,label,device,device_name,direction,bytes_per_copy,memory_kind,engine,copies_per_sample,samples,elapsed_s,"
      "bandwidth_gbps,median_gbps,mean_gbps,min_gbps,max_gbps,stddev_gbps,cov,link,peak_gbps,efficiency,"
      "verification,first_bad_offset,start_s,end_s,span_s,aggregate_bandwidth_gbps,sum_of_transfer_bandwidths_gbps,"
      "overlap_fraction,invalid,invalid_reason,p50_gbps,p95_gbps,p99_gbps\n";
  const bool measured = r.completion.status == RunStatus::complete && r.completion.error.empty();
  for (const TransferResult& t : r.transfers) {
    if (!measured) {  // described only: the measured columns stay empty
      out += fmt::format("{},{},{},{},{},{},{},{},,,,,,,,,,,{},,,not_run,,,,,,,,,,,,\n", t.id, csv_escape(t.label), t.device,
                         csv_escape(t.device_name), t.direction, t.bytes, to_string(t.memory), to_string(t.engine),
                         csv_escape(t.link));
      continue;
    }
    const bool bad = t.verification.status == Verification::Status::failed;
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{:.9g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{},{},{},{},{},"
                       "{:.9g},{:.9g},{:.9g},{:.6g},{:.6g},{:.6g},{},{},{:.6g},{:.6g},{:.6g}\n",
                       t.id, csv_escape(t.label), t.device, csv_escape(t.device_name), t.direction, t.bytes,
                       to_string(t.memory), to_string(t.engine), r.copies_per_sample, r.samples, t.elapsed_s,
                       t.bandwidth_gbps, t.stats.median, t.stats.mean, t.stats.min, t.stats.max, t.stats.stddev,
                       t.stats.cov, csv_escape(t.link), t.peak.known() ? fmt::format("{:.6g}", t.peak.gbps) : "",
                       t.peak.known() ? fmt::format("{:.6g}", t.efficiency) : "", to_string(t.verification.status),
                       bad ? std::to_string(t.verification.first_bad_offset) : "", t.start_s, t.end_s, r.span_s,
                       r.aggregate_bandwidth_gbps, r.sum_of_transfer_bandwidths_gbps, r.overlap_fraction,
                       t.invalid_reason.empty() ? "false" : "true", csv_escape(t.invalid_reason), t.stats.median,
                       t.stats.p95, t.stats.p99);
  }
  return out;
}

}  // namespace xb::report
