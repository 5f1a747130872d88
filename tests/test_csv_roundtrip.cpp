// Every CSV table parses back (RFC 4180 quoting, one field count per file)
// and its values equal the records it came from, to the printed precision.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "compare/compare.hpp"
#include "cases/concurrent.hpp"
#include "cases/sm_sweep.hpp"
#include "cases/sweep.hpp"
#include "fake_system.hpp"
#include "pingpong/result.hpp"
#include "render.hpp"
#include "report/reporter.hpp"

namespace {

using Row = std::map<std::string, std::string>;

// A small RFC 4180 reader: quoted fields may hold commas, quotes ("") and newlines.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1);
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rows.back().push_back(field);
      field.clear();
    } else if (c == '\n') {
      rows.back().push_back(field);
      field.clear();
      rows.emplace_back();
    } else {
      field += c;
    }
  }
  EXPECT_FALSE(quoted) << "unterminated quote";
  EXPECT_TRUE(rows.back().empty() && field.empty()) << "no newline after the last row";
  rows.pop_back();
  return rows;
}

// Rows as header -> value maps; every row must have the header's field count.
std::vector<Row> read_table(const std::string& text) {
  const auto rows = parse_csv(text);
  EXPECT_FALSE(rows.empty());
  std::vector<Row> out;
  for (std::size_t r = 1; r < rows.size(); ++r) {
    EXPECT_EQ(rows[r].size(), rows[0].size()) << "row " << r;
    Row row;
    for (std::size_t c = 0; c < rows[0].size() && c < rows[r].size(); ++c) row[rows[0][c]] = rows[r][c];
    out.push_back(row);
  }
  return out;
}

double num(const Row& r, const std::string& key) { return std::stod(r.at(key)); }

// Values printed with N significant digits come back within that precision.
void expect_close(double parsed, double value, double rel) {
  EXPECT_NEAR(parsed, value, rel * std::fabs(value) + 1e-12) << "value " << value;
}

xb::Cell cell(int row, int col, std::vector<double> samples) {
  xb::Cell c;
  c.row = row;
  c.col = col;
  c.samples = std::move(samples);
  c.stats = xb::summarize(c.samples);
  c.value = c.stats.median;
  c.bytes_per_copy = 536870912;
  c.copies_per_sample = 3;
  c.link = "NVLink x18";
  c.peak.gbps = 478.125;
  c.efficiency = c.value / c.peak.gbps;
  c.verification.status = xb::Verification::Status::passed;
  return c;
}

}  // namespace

TEST(CsvRoundTrip, RunCellsComeBackWithTheirValues) {
  xb::RunResult run;
  xb::CaseResult c;
  c.index = 7;
  c.name = "device_to_device_bidirectional_memcpy_write_ce";
  xb::Matrix m;
  m.name = "write1";
  m.row_labels = {"gpu0", "gpu1"};
  m.col_labels = {"gpu0", "gpu1"};
  m.cells = {cell(0, 1, {391.2, 392.01, 393.4}), cell(1, 0, {390.1, 390.7, 391.9, 392.3})};
  m.cells[1].link = "odd, \"quoted\" link";
  m.cells[1].outlier = true;
  c.matrices.push_back(m);
  run.cases.push_back(c);
  const auto rows = read_table(xb::testing::rendered("csv", [&](auto& f) { f.run(run); }));
  ASSERT_EQ(rows.size(), 2u);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const xb::Cell& src = m.cells[i];
    EXPECT_EQ(rows[i].at("case"), c.name);
    EXPECT_EQ(rows[i].at("matrix"), "write1");
    EXPECT_EQ(rows[i].at("row"), m.row_labels[static_cast<std::size_t>(src.row)]);
    EXPECT_EQ(rows[i].at("col"), m.col_labels[static_cast<std::size_t>(src.col)]);
    EXPECT_EQ(rows[i].at("link"), src.link);
    expect_close(num(rows[i], "value"), src.value, 1e-5);
    expect_close(num(rows[i], "stddev"), src.stats.stddev, 1e-5);
    expect_close(num(rows[i], "efficiency"), src.efficiency, 1e-5);
    EXPECT_EQ(std::stoi(rows[i].at("samples")), src.stats.count);
    EXPECT_EQ(rows[i].at("outlier"), src.outlier ? "true" : "false");
    expect_close(num(rows[i], "p50"), src.stats.median, 1e-5);
    expect_close(num(rows[i], "p95"), src.stats.p95, 1e-5);
    expect_close(num(rows[i], "p99"), src.stats.p99, 1e-5);
    expect_close(num(rows[i], "min"), src.stats.min, 1e-5);
    expect_close(num(rows[i], "max"), src.stats.max, 1e-5);
  }
}

// The percentile columns come last, after every column a script
// may read by position.
TEST(CsvRoundTrip, PercentileColumnsAreAppended) {
  const auto header = [](const std::string& csv) { return csv.substr(0, csv.find('\n')); };
  const auto ends_with = [](const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
  };
  EXPECT_TRUE(ends_with(header(xb::testing::rendered("csv", [](auto& f) { f.run(xb::RunResult{}); })),
                        ",invalid_reason,error,p50,p95,p99"));
  EXPECT_TRUE(ends_with(header(xb::report::sweep_csv(xb::SweepResult{})), ",invalid,p50_gbps,p95_gbps,p99_gbps"));
  EXPECT_TRUE(ends_with(header(xb::report::sm_sweep_csv(xb::SmSweepResult{})),
                        ",named_case_gbps,p50_gbps,p95_gbps,p99_gbps"));
  EXPECT_TRUE(ends_with(header(xb::report::pingpong_csv(xb::pingpong::Result{})),
                        ",one_way_time_p99_s,bandwidth_gbps,bandwidth_min_gbps,bandwidth_max_gbps,verified,"
                        "one_way_time_p50_s,one_way_time_p95_s"));
  EXPECT_TRUE(ends_with(header(xb::report::scenario_csv(xb::ScenarioResult{})),
                        ",invalid,invalid_reason,p50_gbps,p95_gbps,p99_gbps"));
}

TEST(CsvRoundTrip, SweepRowsAndFits) {
  xb::SweepResult r;
  r.series.resize(2);
  r.series[0].label = "host->gpu0";
  r.series[0].link = "PCIe Gen5 x16";
  r.series[0].peak = xb::pcie_peak(5, 16);
  r.series[1].label = "gpu0->gpu1";
  for (auto& s : r.series) {
    for (std::uint64_t b : {4096ull, 1ull << 20, 1ull << 28}) {
      xb::SweepRow row;
      row.bytes = b;
      const double n = static_cast<double>(b), t = 2e-6 + n / 50e9;  // startup + size / bandwidth
      row.samples_gbps = {n / t / 1e9 * 0.99, n / t / 1e9 * 1.01};
      row.stats = xb::summarize(row.samples_gbps);
      row.value_gbps = row.stats.median;
      row.seconds_per_copy = static_cast<double>(b) / (row.value_gbps * 1e9);
      row.efficiency = s.peak.known() ? row.value_gbps / s.peak.gbps : 0;
      s.rows.push_back(row);
    }
  }
  xb::fit_series(r);
  const auto rows = read_table(xb::report::sweep_csv(r));
  ASSERT_EQ(rows.size(), 6u);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& s = r.series[i / 3];
    const auto& src = s.rows[i % 3];
    EXPECT_EQ(rows[i].at("series"), s.label);
    EXPECT_EQ(std::stoull(rows[i].at("bytes")), src.bytes);
    expect_close(num(rows[i], "value_gbps"), src.value_gbps, 1e-8);
    expect_close(num(rows[i], "time_per_copy_s"), src.seconds_per_copy, 1e-8);
    expect_close(num(rows[i], "stddev_gbps"), src.stats.stddev, 1e-8);
    expect_close(num(rows[i], "p50_gbps"), src.stats.median, 1e-8);
    expect_close(num(rows[i], "p95_gbps"), src.stats.p95, 1e-8);
    expect_close(num(rows[i], "p99_gbps"), src.stats.p99, 1e-8);
    EXPECT_EQ(rows[i].at("peak_gbps").empty(), !s.peak.known());
    ASSERT_TRUE(s.fit.valid);
    expect_close(num(rows[i], "fit_startup_s"), s.fit.startup_s, 1e-8);
    expect_close(num(rows[i], "fit_asymptotic_gbps"), s.fit.asymptotic_gbps, 1e-8);
  }
}

TEST(CsvRoundTrip, ListGpusLinksNumaAndCases) {
  xb::System sys = fake_system(2);
  sys.gpus[1].name = "Fake, \"quoted\" GPU";
  sys.numa.push_back({0, "0-15,32-47", 1ull << 36, 1ull << 35, ""});
  const auto rows = read_table(xb::testing::rendered("csv", [&](auto& f) { f.system(sys); }));
  std::vector<Row> gpus, links, numa;
  for (const auto& r : rows) (r.at("record") == "gpu" ? gpus : r.at("record") == "link" ? links : numa).push_back(r);
  ASSERT_EQ(gpus.size(), 2u);
  ASSERT_EQ(links.size(), 6u);  // 2 host links, 2 memories, 2 peer directions
  ASSERT_EQ(numa.size(), 1u);
  EXPECT_EQ(gpus[1].at("name"), sys.gpus[1].name);
  EXPECT_EQ(gpus[1].at("pci_bus_id"), sys.gpus[1].pci_bus_id);
  EXPECT_EQ(std::stoi(gpus[0].at("sm_count")), 132);
  EXPECT_EQ(std::stoi(gpus[0].at("nvlinks")), 18);
  EXPECT_EQ(links[0].at("from"), "host");
  EXPECT_EQ(links[0].at("link"), "PCIe Gen5 x16");
  expect_close(num(links[0], "peak_gbps"), sys.gpus[0].host_link.gbps, 1e-8);
  EXPECT_EQ(links[0].at("peak_formula"), sys.gpus[0].host_link.formula);
  EXPECT_EQ(links[4].at("from"), "gpu0");
  EXPECT_EQ(links[4].at("to"), "gpu1");
  EXPECT_EQ(links[4].at("kind"), "nvlink");
  expect_close(num(links[4], "peak_gbps"), sys.link(0, 1).peak.gbps, 1e-8);
  EXPECT_EQ(numa[0].at("cpus"), "0-15,32-47");
  EXPECT_EQ(std::stoull(numa[0].at("free_bytes")), 1ull << 35);
  const auto cases = read_table(xb::testing::rendered("csv", [](auto& f) { f.cases(); }));
  ASSERT_EQ(cases.size(), xb::case_catalogue().size());
  EXPECT_EQ(cases[34].at("name"), "device_local_copy");
  EXPECT_EQ(cases[34].at("description"), xb::case_catalogue()[34].description);
}

TEST(CsvRoundTrip, PingpongSizes) {
  xb::pingpong::Result r;
  xb::pingpong::PairResult p;
  p.host_a = p.host_b = "node0";
  p.gpu_a = 1;
  p.transport = "staged";
  for (std::uint64_t b : {8ull, 4096ull, 1ull << 22}) {
    const double n = static_cast<double>(b);
    auto s = xb::pingpong::summarize_size(xb::pingpong::Mode::pingpong, b, 1, {2e-6 + 1e-10 * n, 3e-6 + 1e-10 * n});
    s.verified = true;
    p.sizes.push_back(s);
  }
  r.pairs.push_back(p);
  const auto rows = read_table(xb::report::pingpong_csv(r));
  ASSERT_EQ(rows.size(), 3u);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& s = p.sizes[i];
    EXPECT_EQ(std::stoull(rows[i].at("bytes")), s.bytes);
    EXPECT_EQ(rows[i].at("gpu_a"), "gpu1");
    EXPECT_EQ(rows[i].at("gpu_b"), "host");
    expect_close(num(rows[i], "one_way_time_mean_s"), s.one_way_s.mean, 1e-8);
    expect_close(num(rows[i], "one_way_time_median_s"), s.one_way_s.median, 1e-8);
    expect_close(num(rows[i], "one_way_time_p50_s"), s.one_way_s.median, 1e-8);
    expect_close(num(rows[i], "one_way_time_p95_s"), s.one_way_s.p95, 1e-8);
    expect_close(num(rows[i], "one_way_time_p99_s"), s.one_way_s.p99, 1e-8);
    EXPECT_NEAR(num(rows[i], "bandwidth_gbps"), s.bandwidth_gbps, 1e-9);
    EXPECT_EQ(rows[i].at("verified"), "true");
  }
}

TEST(CsvRoundTrip, CompareEntries) {
  xb::CompareResult r;
  r.entries.push_back(xb::compare_values("case [host,gpu0]", "gbps", 55.5, 0.1, 9, 49.9, 0.1, 9, {}));
  xb::CompareEntry failed;
  failed.key = "other, case";
  failed.verdict = xb::Verdict::failed;
  failed.note = "error: \"boom\"";
  r.entries.push_back(failed);
  const auto rows = read_table(xb::report::compare_csv(r));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].at("key"), "case [host,gpu0]");
  expect_close(num(rows[0], "new"), 49.9, 1e-8);
  expect_close(num(rows[0], "change_pct"), r.entries[0].delta_pct, 1e-8);
  EXPECT_EQ(rows[0].at("verdict"), "slower");
  EXPECT_EQ(rows[1].at("key"), "other, case");
  EXPECT_EQ(rows[1].at("note"), failed.note);
}
