// Reporters for size sweeps: a text table (a row per series and size, in
// the order measured) between `#` header and footer lines, JSON (schema
// "xferbench-sweep", version 1, units in field names) and CSV (one row per
// series and size, the series' fit repeated on each of its rows so every
// row stands alone). The SM budget sweep (`xferbench sweep --sms`): a table
// per series (SM count, GB/s, % of the link's peak, % of the all-SM figure)
// and the SM counts reaching 90% / 95%; CSV.
#include <fmt/format.h>

#include "base/units.hpp"
#include "report/formats.hpp"

namespace xb::report {
namespace {

std::string fit_line(const SweepSeries& s) {
  const LinearFit& f = s.fit;
  if (!f.valid) return fmt::format("# fit {}: not available ({} usable sizes)\n", s.label, f.points);
  std::string half = f.n_half_bytes > 0 ? fmt::format("{:.0f} B", f.n_half_bytes) : "n/a (startup <= 0)";
  return fmt::format("# fit {}: startup {:.3f} us, asymptotic {:.2f} GB/s, n_half {}, {} sizes, rms residual {:.1f}%\n",
                     s.label, f.startup_s * 1e6, f.asymptotic_gbps, half, f.points, f.rms_relative_residual * 100);
}

std::string row_line(const SweepSeries& s, const SweepRow& r) {
  return fmt::format("{:>16} {:>16.3f} {:>14.3f} {:>8} {:>8} {:>8.2f}  {:<7} {}\n", r.bytes, r.seconds_per_copy * 1e6,
                     r.value_gbps, r.invalid ? "INVALID" : s.peak.known() ? fmt::format("{:.1f}", r.efficiency * 100) : "-",
                     r.stats.count, r.stats.cov * 100, to_string(r.verification), s.label);
}

}  // namespace

std::string sweep_text_header(const SweepResult& r) {
  const System& sys = r.system;
  std::string out = fmt::format("# xferbench {} sweep on {} ({} GPU{}), driver {}\n", XFERBENCH_VERSION, sys.hostname,
                                sys.gpu_count(), sys.gpu_count() == 1 ? "" : "s", sys.driver_version);
  out += r.source == "case" ? fmt::format("# case {}", r.what)
                            : fmt::format("# spec '{}', streams {}", r.what, r.stream_mode);
  if (!r.sizes.empty())
    out += fmt::format(", {} sizes from {} to {} bytes, {} of samples", r.sizes.size(), r.sizes.front(), r.sizes.back(),
                       r.statistic);
  out += "\n# GB/s = 1e9 bytes/s; fit: time = startup + bytes / asymptotic bandwidth; n_half reaches half of it\n";
  out += fmt::format("#{:>15} {:>16} {:>14} {:>8} {:>8} {:>8}  {:<7} {}\n", "bytes", "time/copy (us)", "GB/s", "% peak",
                     "samples", "CoV %", "check", "series");
  return out;
}

std::string sweep_text_new_rows(const SweepResult& r, std::vector<std::size_t>& printed) {
  printed.resize(r.series.size(), 0);
  std::string out;
  // Size by size, so the rows of one size stay together: each measured size
  // added one row to every series.
  for (bool more = true; more;) {
    more = false;
    for (std::size_t i = 0; i < r.series.size(); ++i) {
      if (printed[i] >= r.series[i].rows.size()) continue;
      out += row_line(r.series[i], r.series[i].rows[printed[i]++]);
      more = true;
    }
  }
  return out;
}

std::string sweep_text_footer(const SweepResult& r) {
  std::string out;
  for (const auto& s : r.series) {
    out += fmt::format("# series {} over {}", s.label, s.link.empty() ? "unknown link" : s.link);
    out += s.peak.known() ? fmt::format(", peak {:.2f} GB/s = {}\n", s.peak.gbps, s.peak.formula) : ", peak unknown\n";
    out += fit_line(s);
  }
  for (const auto& m : r.messages) out += fmt::format("# {}: {}\n", r.status == SweepStatus::waived ? "WAIVED" : "ERROR", m);
  out += fmt::format("# {}: {} series, wall time {:.1f} s\n", records::sweep_status_text(r), r.series.size(),
                     r.wall_seconds);
  if (!r.resumed_from.empty()) out += fmt::format("# resumed from {}: its sizes are kept, the others measured now\n", r.resumed_from);
  return out + completion_line(r.completion, "sweep", "size(s)", is_signal(r.completion.stop));
}

std::string sweep_text(const SweepResult& r) {
  std::vector<std::size_t> printed;
  return sweep_text_header(r) + sweep_text_new_rows(r, printed) + sweep_text_footer(r);
}

std::string sweep_csv(const SweepResult& r) {
  std::string out =
      "series,link,bytes,time_per_copy_s,value_gbps,median_gbps,mean_gbps,min_gbps,max_gbps,stddev_gbps,cov,samples,"
      "copies_per_sample,peak_gbps,efficiency,verification,fit_startup_s,fit_asymptotic_gbps,fit_n_half_bytes,invalid,"
      "p50_gbps,p95_gbps,p99_gbps\n";
  for (const auto& s : r.series) {
    const std::string fit = s.fit.valid ? fmt::format("{:.9g},{:.9g},{:.9g}", s.fit.startup_s, s.fit.asymptotic_gbps,
                                                      s.fit.n_half_bytes)
                                        : ",,";
    for (const auto& row : s.rows) {
      out += fmt::format("{},{},{},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{},{},{},{},{},{},{},{:.9g},{:.9g},{:.9g}\n",
                         csv_escape(s.label), csv_escape(s.link), row.bytes, row.seconds_per_copy, row.value_gbps,
                         row.stats.median, row.stats.mean, row.stats.min, row.stats.max, row.stats.stddev, row.stats.cov,
                         row.stats.count, row.copies_per_sample,
                         s.peak.known() ? fmt::format("{:.9g}", s.peak.gbps) : "",
                         s.peak.known() ? fmt::format("{:.9g}", row.efficiency) : "", to_string(row.verification), fit,
                         row.invalid ? "true" : "false", row.stats.median, row.stats.p95, row.stats.p99);
    }
  }
  return out;
}

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
  out += fmt::format("# {}: {:.2f} GB/s with all {} SMs, {:.2f} GB/s per SM at the fewest; 90% of it from {}, 95% "
                     "from {}\n",
                     s.label, s.all_sm_gbps, s.gpu_sms, s.per_sm_gbps, threshold(s.sms_for_90), threshold(s.sms_for_95));
  if (s.named_gbps > 0)
    out += fmt::format("# {}: the named case measured again: {:.2f} GB/s{}\n", s.label, s.named_gbps,
                       s.disagrees ? ", DISAGREES with the all-SM point" : ", the all-SM point agrees within 2%");
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
  out += fmt::format("# case {}, {} per copy, {} of samples; SM counts: {} (pinned, spread over the SM ids)\n", r.case_name,
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
                    "copies_per_sample,peak_gbps,efficiency,of_all_sms,verification,sms_for_90pct,sms_for_95pct,per_sm_gbps,"
                    "named_case_gbps,p50_gbps,p95_gbps,p99_gbps\n";
  for (const SmSeries& s : r.series)
    for (const SmPoint& p : s.points)
      out += fmt::format("{},{},{},{},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{},{},{},{},{:.9g},{},{},{},{:.9g},{},{:.9g},{:.9g},{:.9g}\n",
                         csv_escape(s.label), csv_escape(s.link), s.gpu_sms, p.sms, p.value_gbps, p.stats.median,
                         p.stats.mean, p.stats.min, p.stats.max, p.stats.stddev, p.stats.cov, p.stats.count,
                         p.copies_per_sample, s.peak.known() ? fmt::format("{:.9g}", s.peak.gbps) : "",
                         s.peak.known() ? fmt::format("{:.9g}", p.efficiency) : "", p.of_all, to_string(p.verification),
                         s.sms_for_90 > 0 ? std::to_string(s.sms_for_90) : "",
                         s.sms_for_95 > 0 ? std::to_string(s.sms_for_95) : "", s.per_sm_gbps,
                         s.named_gbps > 0 ? fmt::format("{:.9g}", s.named_gbps) : "", p.stats.median, p.stats.p95,
                         p.stats.p99);
  return out;
}

}  // namespace xb::report
