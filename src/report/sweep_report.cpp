#include "report/sweep_report.hpp"

#include <fmt/format.h>

#include "report/report.hpp"

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
  const Completion& c = r.completion;
  if (c.status != RunStatus::complete)
    out += fmt::format("# sweep {}: {}; {} size(s) not run{}\n", to_string(c.status), c.message, c.not_run.size(),
                       is_signal(c.stop)
                           ? " (add --resume FILE to the same command to measure them)"
                           : "");
  return out;
}

std::string sweep_text(const SweepResult& r) {
  std::vector<std::size_t> printed;
  return sweep_text_header(r) + sweep_text_new_rows(r, printed) + sweep_text_footer(r);
}

std::string sweep_csv(const SweepResult& r) {
  std::string out =
      "series,link,bytes,time_per_copy_s,value_gbps,median_gbps,mean_gbps,min_gbps,max_gbps,stddev_gbps,cov,samples,"
      "copies_per_sample,peak_gbps,efficiency,verification,fit_startup_s,fit_asymptotic_gbps,fit_n_half_bytes,invalid\n";
  for (const auto& s : r.series) {
    const std::string fit = s.fit.valid ? fmt::format("{:.9g},{:.9g},{:.9g}", s.fit.startup_s, s.fit.asymptotic_gbps,
                                                      s.fit.n_half_bytes)
                                        : ",,";
    for (const auto& row : s.rows) {
      out += fmt::format("{},{},{},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{},{},{},{},{},{},{}\n",
                         csv_escape(s.label), csv_escape(s.link), row.bytes, row.seconds_per_copy, row.value_gbps,
                         row.stats.median, row.stats.mean, row.stats.min, row.stats.max, row.stats.stddev, row.stats.cov,
                         row.stats.count, row.copies_per_sample,
                         s.peak.known() ? fmt::format("{:.9g}", s.peak.gbps) : "",
                         s.peak.known() ? fmt::format("{:.9g}", row.efficiency) : "", to_string(row.verification), fit,
                         row.invalid ? "true" : "false");
    }
  }
  return out;
}

}  // namespace xb::report
