#include <cstdio>
#include <fstream>

#include <fmt/format.h>

#include "core/error.hpp"
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
      "bytes_per_copy,copies_per_sample,link,peak_gbps,efficiency,verification,outlier,error\n";
  for (const auto& c : run.cases) {
    if (c.matrices.empty()) {
      out += fmt::format("{},{},{},,,,,,,,,,,,,,,,,,,,{}\n", c.index, c.name, to_string(c.status),
                         csv_escape(c.status == CaseStatus::waived ? std::string() : c.message));
      continue;
    }
    for (const auto& m : c.matrices) {
      for (const auto& cell : m.cells) {
        out += fmt::format("{},{},{},{},{},{},{},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{},{},{},{},{},{},{},{},{}\n",
                           c.index, c.name, to_string(c.status), csv_escape(m.name), to_string(m.metric),
                           csv_escape(m.row_labels[cell.row]), csv_escape(m.col_labels[cell.col]), cell.value,
                           cell.stats.median, cell.stats.mean, cell.stats.min, cell.stats.max, cell.stats.stddev,
                           cell.stats.cov, cell.stats.count, cell.bytes_per_copy, cell.copies_per_sample,
                           csv_escape(cell.link), cell.peak.known() ? fmt::format("{:.6g}", cell.peak.gbps) : "",
                           cell.peak.known() ? fmt::format("{:.6g}", cell.efficiency) : "",
                           to_string(cell.verification.status), cell.outlier ? "true" : "false",
                           csv_escape(cell.error));
      }
    }
  }
  return out;
}

void write_file_atomic(const std::string& path, const std::string& content) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) fail(ErrorKind::io, fmt::format("cannot write '{}': cannot create '{}'", path, tmp));
    f << content;
    f.flush();
    if (!f) {
      std::remove(tmp.c_str());
      fail(ErrorKind::io, fmt::format("cannot write '{}': write failed", path));
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    fail(ErrorKind::io, fmt::format("cannot write '{}': rename failed", path));
  }
}

}  // namespace xb::report
