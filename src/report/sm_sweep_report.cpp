// The SM budget sweep (`xferbench sweep --sms`): a table per series (SM
// count, GB/s, % of the link's peak, % of the all-SM figure) and the SM
// counts reaching 90% / 95%; CSV.
#include <fmt/format.h>

#include "base/units.hpp"
#include "report/formats.hpp"

namespace xb::report {
namespace {

std::string threshold(int sms) { return sms > 0 ? fmt::format("{} SMs", sms) : "no measured count"; }

std::string series_text(const SmSeries& s) {
  std::string out = fmt::format("# series {} over {}, {} SMs on its GPU", s.label, s.link.empty() ? "unknown link" : s.link,
                                s.gpu_sms);
  out += s.peak.known() ? fmt::format(", peak {:.2f} GB/s = {}\n", s.peak.gbps, s.peak.formula) : ", peak unknown\n";
  out += fmt::format("#{:>7} {:>12} {:>8} {:>9} {:>8} {:>8}  {}\n", "SMs", "GB/s", "% peak", "% all-SM", "samples",
                     "CoV %", "check");
  for (const SmPoint& p : s.points)
    out += fmt::format("{:>8} {:>12.2f} {:>8} {:>9.1f} {:>8} {:>8.2f}  {}\n", p.sms, p.value_gbps,
                       s.peak.known() ? fmt::format("{:.1f}", p.efficiency * 100) : "-", p.of_all * 100,
                       p.stats.count, p.stats.cov * 100, to_string(p.verification));
  out += fmt::format("# {}: {:.2f} GB/s with all {} SMs; 90% of it from {}, 95% from {}\n", s.label, s.all_sm_gbps,
                     s.gpu_sms, threshold(s.sms_for_90), threshold(s.sms_for_95));
  return out;
}

std::string counts_text(const std::vector<int>& sms) {
  std::string out;
  for (int n : sms) out += (out.empty() ? "" : " ") + (n > 0 ? std::to_string(n) : std::string("all"));
  return out;
}

}  // namespace

std::string sm_sweep_text(const SmSweepResult& r) {
  const System& sys = r.system;
  std::string out = fmt::format("# xferbench {} SM budget sweep on {} ({} GPU{}), driver {}\n", XFERBENCH_VERSION,
                                sys.hostname, sys.gpu_count(), sys.gpu_count() == 1 ? "" : "s", sys.driver_version);
  out += fmt::format("# case {}, {} per copy, {} of samples; SM counts: {} (each block alone on its SM)\n", r.case_name,
                     bytes_label(r.bytes), r.statistic, counts_text(r.sms));
  out += "# GB/s = 1e9 bytes/s; % all-SM: of the same kernel on every SM; the marks are the smallest measured counts\n";
  for (const auto& s : r.series) out += series_text(s);
  for (const auto& m : r.messages)
    out += fmt::format("# {}: {}\n", r.status == SweepStatus::waived ? "WAIVED" : "ERROR", m);
  out += fmt::format("# {}: {} series, wall time {:.1f} s\n", to_string(r.status), r.series.size(), r.wall_seconds);
  return out;
}

std::string sm_sweep_csv(const SmSweepResult& r) {
  std::string out = "series,link,gpu_sms,sms,value_gbps,median_gbps,mean_gbps,min_gbps,max_gbps,stddev_gbps,cov,samples,"
                    "copies_per_sample,peak_gbps,efficiency,of_all_sms,verification,sms_for_90pct,sms_for_95pct\n";
  for (const SmSeries& s : r.series)
    for (const SmPoint& p : s.points)
      out += fmt::format("{},{},{},{},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{},{},{},{},{:.9g},{},{},{}\n",
                         csv_escape(s.label), csv_escape(s.link), s.gpu_sms, p.sms, p.value_gbps, p.stats.median,
                         p.stats.mean, p.stats.min, p.stats.max, p.stats.stddev, p.stats.cov, p.stats.count,
                         p.copies_per_sample, s.peak.known() ? fmt::format("{:.9g}", s.peak.gbps) : "",
                         s.peak.known() ? fmt::format("{:.9g}", p.efficiency) : "", p.of_all, to_string(p.verification),
                         s.sms_for_90 > 0 ? std::to_string(s.sms_for_90) : "",
                         s.sms_for_95 > 0 ? std::to_string(s.sms_for_95) : "");
  return out;
}

}  // namespace xb::report
