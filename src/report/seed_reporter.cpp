// The seed tools' own output, for xferbench run under their names:
// multi-gpu-bwtest's and CUts' lines for a scenario (nvbandwidth's are
// report/nvbandwidth.hpp's), gpudirect_p2p_overalloc's for first-touch.
// Layouts follow the examples in the seeds' READMEs, so scripts that read
// those tools keep working.
#include <cmath>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "report/reporter.hpp"

namespace xb::report {

std::string bwtest_size(std::uint64_t bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024.0 && u < 4) {
    v /= 1024.0;
    ++u;
  }
  return fmt::format("{:.2f} {}", v, units[u]);
}

namespace {

// bwtest's "per microsecond" figures: 1 GB/s is 1000 bytes per microsecond.
double bytes_per_us(double gbps) { return gbps * 1e3; }
long long micros(double seconds) { return std::llround(seconds * 1e6); }

int do_count(const std::vector<std::string>& command_line) {
  int n = 0;
  for (const std::string& a : command_line)
    if (a == "--do" || a.rfind("--do=", 0) == 0) ++n;
  return n > 0 ? n : 1;
}

// "0000:08:00.0" -> "08:00.0": bwtest prints the bus id without its domain.
std::string io_address(const std::string& bus_id) {
  const auto colon = bus_id.find(':');
  return colon == std::string::npos || bus_id.find(':', colon + 1) == std::string::npos ? bus_id
                                                                                       : bus_id.substr(colon + 1);
}

const char* yes_no(bool b) { return b ? "yes" : "no"; }

// multi-gpu-bwtest after a run: one "Allocating buffers......DONE" per
// --do, the per-transfer table (Transfer size in binary units, Time
// elapsed of one copy in µs, Bandwidth) and the four totals. As in
// bwtest, bandwidth is bytes per microsecond (1e6 B/s) under the label
// "MiB/s"; "Aggregated total time" is the sum of the per-transfer times,
// "Estimated elapsed time" the span of all transfers, per copy.
void bwtest_text(std::ostream& os, const ScenarioResult& r) {
  for (int i = 0; i < do_count(r.command_line); ++i) fmt::print(os, "Allocating buffers......DONE\n");
  fmt::print(os, "Executing transfers.....DONE\nSynchronizing streams...DONE\n\n");
  const std::string rule_eq(85, '='), rule_dash(85, '-');
  fmt::print(os, "{}\n {:<5}{:<18}{:<16}{:<12}{:<15}{:<10}\n{}\n", rule_eq, "ID", "Device name", "Transfer size",
             "Direction", "Time elapsed", "Bandwidth", rule_dash);
  double sum_s = 0;
  std::uint64_t bytes = 0;
  for (const TransferResult& t : r.transfers) {
    fmt::print(os, "{:>3}   {:<17}{:>14}{:>12}{:>12} µs{:>14.2f} MiB/s \n", t.device, t.device_name,
               bwtest_size(t.bytes), t.direction, micros(t.elapsed_s), bytes_per_us(t.bandwidth_gbps));
    sum_s += t.elapsed_s;
    bytes += t.bytes;
  }
  const double span_per_copy = r.copies_per_sample > 0 ? r.span_s / r.copies_per_sample : r.span_s;
  fmt::print(os, "{}\n\n", rule_eq);
  fmt::print(os, "{:<27}: {:>12} µs\n", "Aggregated total time", micros(sum_s));
  fmt::print(os, "{:<27}: {:>12.2f} MiB/s\n", "Aggregated total bandwidth",
             sum_s > 0 ? static_cast<double>(bytes) / (sum_s * 1e6) : 0.0);
  fmt::print(os, "{:<27}: {:>12} µs\n", "Estimated elapsed time", micros(span_per_copy));
  fmt::print(os, "{:<27}: {:>12.2f} MiB/s\n", "Timed total bandwidth", bytes_per_us(r.aggregate_bandwidth_gbps));
}

// multi-gpu-bwtest --list: ID, name, IO address (bus:device.function),
// compute capability, managed / unified / mappable memory and the number
// of copy engines ("#").
void bwtest_list(std::ostream& os, const System& sys) {
  fmt::print(os, "\n {:<5}{:<18}{:<8}{:>11}{:>10}{:>10}{:>11}{:>5}\n{}\n", "ID", "Device name", "IO addr", "Compute",
             "Managed", "Unified", "Mappable", "#", std::string(79, '-'));
  for (const GpuInfo& g : sys.gpus)
    fmt::print(os, "{:>3}   {:<18}{:<8}{:>10}{:>11}{:>10}{:>11}{:>5}\n", g.index, g.name, io_address(g.pci_bus_id),
               fmt::format("{}.{}", g.cc_major, g.cc_minor), yes_no(g.managed_memory), yes_no(g.unified_addressing),
               yes_no(g.can_map_host_memory), g.copy_engines);
  fmt::print(os, "\n");
}

// bwtest and cuts: the tool's lines alone; system() is bwtest's --list. A
// complete result found by --resume prints nothing here (the -o file still
// gets it).
class ScenarioSeed : public Reporter {
 public:
  using Print = void (*)(std::ostream&, const ScenarioResult&);
  ScenarioSeed(std::ostream& out, Print print) : Reporter(out), print_(print) {}

  void scenario_begin(const ScenarioResult& described) override { cuts_launch(described); }
  void scenario(const ScenarioResult& r) override { measured(r) ? print_(out_, r) : scenario_not_measured_text(out_, r); }
  void system(const System& sys) override { bwtest_list(out_, sys); }

 private:
  Print print_;
};

// The reproducer's lines: the text format without its '#' lines.
class FirstTouchSeed : public Reporter {
 public:
  using Reporter::Reporter;

  bool streams() const override { return true; }
  void first_touch_rows(const firsttouch::Result& r, bool last_complete) override {
    out_ << without_annotations(stream_.next(r, last_complete)) << std::flush;
  }
  void first_touch(const firsttouch::Result& r, const std::vector<std::string>&) override {
    out_ << without_annotations(stream_.finish(r));
  }

 private:
  FirstTouchTextStream stream_;
};

}  // namespace

std::unique_ptr<Reporter> seed_reporter(const std::string& format, std::ostream& out) {
  if (format == "bwtest") return std::make_unique<ScenarioSeed>(out, bwtest_text);
  if (format == "cuts") return std::make_unique<ScenarioSeed>(out, cuts_result_text);
  return std::make_unique<FirstTouchSeed>(out);
}

}  // namespace xb::report
