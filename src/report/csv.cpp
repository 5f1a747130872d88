#include <fmt/format.h>

#include "report/report.hpp"

namespace xb::report {

std::string csv_escape(const std::string& field) {
  if (field.find_first_of(",\"\n") == std::string::npos) return field;
  std::string out = "\"";
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string run_csv(const RunResult& run) {
  std::string out =
      "case_index,case,status,matrix,metric,row,col,value,median,mean,min,max,stddev,cov,samples,"
      "bytes_per_copy,copies_per_sample,link,peak_gbps,efficiency,verification,outlier,invalid,invalid_reason,error\n";
  for (const auto& c : run.cases) {
    if (c.matrices.empty()) {
      out += fmt::format("{},{},{},,,,,,,,,,,,,,,,,,,,,,{}\n", c.index, c.name, to_string(c.status),
                         csv_escape(c.status == CaseStatus::waived ? std::string() : c.message));
      continue;
    }
    for (const auto& m : c.matrices) {
      for (const auto& cell : m.cells) {
        out += fmt::format("{},{},{},{},{},{},{},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{},{},{},{},{},{},{},{},{},{},{}\n",
                           c.index, c.name, to_string(c.status), csv_escape(m.name), to_string(m.metric),
                           csv_escape(m.row_labels[cell.row]), csv_escape(m.col_labels[cell.col]), cell.value,
                           cell.stats.median, cell.stats.mean, cell.stats.min, cell.stats.max, cell.stats.stddev,
                           cell.stats.cov, cell.stats.count, cell.bytes_per_copy, cell.copies_per_sample,
                           csv_escape(cell.link), cell.peak.known() ? fmt::format("{:.6g}", cell.peak.gbps) : "",
                           cell.peak.known() ? fmt::format("{:.6g}", cell.efficiency) : "",
                           to_string(cell.verification.status), cell.outlier ? "true" : "false",
                           cell.invalid ? "true" : "false", csv_escape(cell.invalid_reason), csv_escape(cell.error));
      }
    }
  }
  return out;
}

}  // namespace xb::report
