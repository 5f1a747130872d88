// Sweep sizes, the startup/bandwidth fit (exact on exact data), series built
// from named-case results, the sweep reporters and the command's argument
// checks. No GPU needed.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include <fmt/format.h>

#include "app/cli.hpp"
#include "base/error.hpp"
#include "cases/sweep.hpp"
#include "fake_system.hpp"
#include "report/reporter.hpp"
#include "cli_parse.hpp"

namespace {

using Sizes = std::vector<std::uint64_t>;

xb::SweepRange range(std::uint64_t lo, std::uint64_t hi, double factor = 2, std::uint64_t step = 0) {
  xb::SweepRange r;
  r.min_bytes = lo;
  r.max_bytes = hi;
  r.factor = factor;
  r.step_bytes = step;
  return r;
}

xb::ErrorKind error_kind(const std::function<void()>& f) {
  try {
    f();
  } catch (const xb::Error& e) {
    return e.kind();
  }
  return xb::ErrorKind::internal;
}

// Exact Hockney data: t = startup + n / (gbps * 1e9).
std::vector<double> model_times(const std::vector<double>& n, double startup, double gbps) {
  std::vector<double> t;
  for (double b : n) t.push_back(startup + b / (gbps * 1e9));
  return t;
}

}  // namespace

TEST(SweepSizes, FactorStepAndAlwaysMax) {
  EXPECT_EQ(xb::sweep_sizes(range(1024, 8192)), (Sizes{1024, 2048, 4096, 8192}));
  EXPECT_EQ(xb::sweep_sizes(range(1000, 5000, 2)), (Sizes{1000, 2000, 4000, 5000}));
  EXPECT_EQ(xb::sweep_sizes(range(10, 40, 1.5)), (Sizes{10, 15, 23, 34, 40}));
  EXPECT_EQ(xb::sweep_sizes(range(1, 3, 1.1)), (Sizes{1, 2, 3}));  // rounding duplicates dropped
  EXPECT_EQ(xb::sweep_sizes(range(100, 350, 2, 100)), (Sizes{100, 200, 300, 350}));
  EXPECT_EQ(xb::sweep_sizes(range(64, 64)), (Sizes{64}));
}

TEST(SweepSizes, BadRangesAreUsageErrors) {
  EXPECT_EQ(error_kind([] { xb::sweep_sizes(range(2048, 1024)); }), xb::ErrorKind::usage);
  EXPECT_EQ(error_kind([] { xb::sweep_sizes(range(0, 1024)); }), xb::ErrorKind::usage);
  EXPECT_EQ(error_kind([] { xb::sweep_sizes(range(1, 1024, 1.0)); }), xb::ErrorKind::usage);
  EXPECT_EQ(error_kind([] { xb::sweep_sizes(range(1, 1024, 0.5)); }), xb::ErrorKind::usage);
  EXPECT_EQ(error_kind([] { xb::sweep_sizes(range(1, 1 << 20, 2, 1)); }), xb::ErrorKind::usage);  // > 1000 sizes
}

TEST(SweepFit, RecoversExactModel) {
  const std::vector<double> n = {1024, 4096, 65536, 1 << 20, 1 << 26, 1u << 30};
  const auto fit = xb::fit_startup_bandwidth(n, model_times(n, 2.5e-6, 55.0));
  ASSERT_TRUE(fit.valid);
  EXPECT_EQ(fit.points, 6);
  EXPECT_NEAR(fit.startup_s, 2.5e-6, 1e-15);
  EXPECT_NEAR(fit.asymptotic_gbps, 55.0, 1e-9);
  EXPECT_NEAR(fit.n_half_bytes, 2.5e-6 * 55e9, 1e-3);  // 137500 bytes reach half of 55 GB/s
  EXPECT_NEAR(fit.rms_relative_residual, 0.0, 1e-12);
}

TEST(SweepFit, TwoPointsAndHandComputedCase) {
  // t(1000) = 2 us, t(3000) = 4 us: slope 1 ns/B (1 GB/s), startup 1 us, n_half 1000 B.
  const auto fit = xb::fit_startup_bandwidth({1000, 3000}, {2e-6, 4e-6});
  ASSERT_TRUE(fit.valid);
  EXPECT_NEAR(fit.startup_s, 1e-6, 1e-18);
  EXPECT_NEAR(fit.asymptotic_gbps, 1.0, 1e-12);
  EXPECT_NEAR(fit.n_half_bytes, 1000.0, 1e-9);
}

TEST(SweepFit, RelativeResidualsKeepTheStartupOfSmallSizes) {
  // 1% noise on the largest size alone would swamp a 2 us intercept in an
  // absolute fit (1% of 20 ms is 200 us); relative residuals keep it.
  const std::vector<double> n = {1024, 2048, 4096, 8192, 1u << 30};
  auto t = model_times(n, 2e-6, 50.0);
  t.back() *= 1.01;
  const auto fit = xb::fit_startup_bandwidth(n, t);
  ASSERT_TRUE(fit.valid);
  EXPECT_NEAR(fit.startup_s, 2e-6, 0.1e-6);
  EXPECT_NEAR(fit.asymptotic_gbps, 50.0 / 1.01, 0.6);
}

TEST(SweepFit, InvalidWithoutTwoSizesOrWithFallingTime) {
  EXPECT_FALSE(xb::fit_startup_bandwidth({1024}, {1e-6}).valid);
  EXPECT_FALSE(xb::fit_startup_bandwidth({1024, 1024}, {1e-6, 2e-6}).valid);
  EXPECT_FALSE(xb::fit_startup_bandwidth({1024, 2048}, {2e-6, 1e-6}).valid);
  EXPECT_FALSE(xb::fit_startup_bandwidth({1024, 2048}, {0, 0}).valid);
  const auto neg = xb::fit_startup_bandwidth({1000, 3000}, {0.5e-6, 2.5e-6});  // startup -0.5 us
  ASSERT_TRUE(neg.valid);
  EXPECT_LT(neg.startup_s, 0);
  EXPECT_EQ(neg.n_half_bytes, 0);
}

TEST(SweepPeak, PathOfEachTransfer) {
  const xb::System sys = fake_system(2);
  xb::Transfer h2d;
  h2d.src = xb::host_memory();
  h2d.dst = xb::device_memory(1);
  h2d.exec_device = 1;
  std::string link;
  EXPECT_NEAR(xb::transfer_peak(sys, h2d, &link).gbps, 63.015, 1e-3);
  EXPECT_EQ(link, "PCIe Gen5 x16");
  xb::Transfer d2d = h2d;
  d2d.src = xb::device_memory(0);
  EXPECT_DOUBLE_EQ(xb::transfer_peak(sys, d2d, &link).gbps, 18 * 26.5625);
  EXPECT_EQ(link, "NVLink x18");
  d2d.src = xb::device_memory(1);
  EXPECT_DOUBLE_EQ(xb::transfer_peak(sys, d2d, &link).gbps, 2450);
  EXPECT_EQ(link, "device memory");
}

namespace {

// A named-case result at one size, as run_case returns it: host -> gpu0/gpu1.
xb::CaseResult case_at(std::uint64_t bytes, double startup) {
  xb::CaseResult c;
  c.name = "host_to_device_memcpy_ce";
  xb::Matrix m;
  m.row_labels = {"host"};
  m.col_labels = {"gpu0", "gpu1"};
  for (int g = 0; g < 2; ++g) {
    const double t = startup + static_cast<double>(bytes) / ((50.0 + g) * 1e9);
    xb::Cell cell = pcie_cell(g, {static_cast<double>(bytes) / t / 1e9});
    cell.bytes_per_copy = bytes;
    m.cells.push_back(cell);
  }
  c.matrices.push_back(m);
  return c;
}

xb::SweepResult case_sweep() {
  xb::SweepResult r;
  r.system = fake_system(2);
  r.source = "case";
  r.what = "host_to_device_memcpy_ce";
  r.sizes = {4096, 65536, 1 << 20, 1 << 24};
  for (auto b : r.sizes) xb::add_case_rows(case_at(b, 3e-6), r);
  xb::fit_series(r);
  return r;
}

}  // namespace

TEST(SweepCase, OneSeriesPerCellFittedAcrossSizes) {
  const auto r = case_sweep();
  ASSERT_EQ(r.series.size(), 2u);
  EXPECT_EQ(r.series[0].label, "[host,gpu0]");
  EXPECT_EQ(r.series[1].label, "[host,gpu1]");
  ASSERT_EQ(r.series[1].rows.size(), 4u);
  EXPECT_EQ(r.series[1].rows[2].bytes, 1u << 20);
  EXPECT_NEAR(r.series[1].rows[2].seconds_per_copy, 3e-6 + (1 << 20) / 51e9, 1e-15);
  EXPECT_NEAR(r.series[1].fit.startup_s, 3e-6, 1e-12);
  EXPECT_NEAR(r.series[1].fit.asymptotic_gbps, 51.0, 1e-6);
  EXPECT_NEAR(r.series[0].fit.n_half_bytes, 3e-6 * 50e9, 1e-2);
}

TEST(SweepReport, TextJsonCsv) {
  const auto r = case_sweep();
  const std::string text = xb::report::sweep_text(r);
  EXPECT_EQ(text.rfind("# xferbench", 0), 0u);
  EXPECT_NE(text.find("# series [host,gpu1] over PCIe Gen5 x16, peak 63.02 GB/s"), std::string::npos) << text;
  EXPECT_NE(text.find("# fit [host,gpu0]: startup 3.000 us, asymptotic 50.00 GB/s, n_half 150000 B"), std::string::npos)
      << text;
  EXPECT_NE(text.find("# passed: 2 series"), std::string::npos);
  // Data rows are the only lines without '#': 2 series x 4 sizes.
  std::istringstream is(text);
  int rows = 0;
  for (std::string line; std::getline(is, line);) rows += line.rfind('#', 0) != 0;
  EXPECT_EQ(rows, 8);
  const auto j = xb::records::sweep_json(r);
  EXPECT_EQ(j["schema"], "xferbench-sweep");
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["source"]["case"], "host_to_device_memcpy_ce");
  EXPECT_EQ(j["series"][0]["rows"].size(), 4u);
  EXPECT_NEAR(j["series"][1]["fit"]["asymptotic_gbps"].get<double>(), 51.0, 1e-6);
  EXPECT_TRUE(j["timeline"].is_null());
  const std::string csv = xb::report::sweep_csv(r);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 9);
}

// Printed size by size as the sweep measures, the text is the same as
// printed at the end; each size's rows appear when that size is done.
TEST(SweepReport, RowsStreamSizeBySize) {
  const auto whole = case_sweep();
  xb::SweepResult partial;
  partial.system = whole.system;
  partial.source = whole.source;
  partial.what = whole.what;
  partial.sizes = whole.sizes;
  std::vector<std::size_t> printed;
  std::string streamed = xb::report::sweep_text_header(partial);
  for (auto b : whole.sizes) {
    xb::add_case_rows(case_at(b, 3e-6), partial);
    const std::string rows = xb::report::sweep_text_new_rows(partial, printed);
    EXPECT_EQ(std::count(rows.begin(), rows.end(), '\n'), 2) << rows;  // one row per series
    EXPECT_NE(rows.find(fmt::format("{:>16} ", b)), std::string::npos) << rows;
    streamed += rows;
  }
  EXPECT_EQ(xb::report::sweep_text_new_rows(partial, printed), "");
  xb::fit_series(partial);
  streamed += xb::report::sweep_text_footer(partial);
  EXPECT_EQ(streamed, xb::report::sweep_text(whole));
  EXPECT_NE(streamed.find("  passed  [host,gpu1]\n"), std::string::npos) << streamed;
}

TEST(SweepCli, ValidSweepsParseWithoutAGpu) {
  auto p = parse({"sweep", "--do", "0:HtoD", "--min", "1K", "--max", "1G"});
  EXPECT_EQ(p.code, -1) << p.err;
  EXPECT_TRUE(p.has_action);
  EXPECT_EQ(parse({"sweep", "-t", "device_local_copy", "--min", "4K", "--max", "64M", "--factor", "4", "-o", "s.csv"}).code,
            -1);
  EXPECT_EQ(parse({"sweep", "-t", "0", "--min", "1M", "--max", "8M", "--step", "1M", "--format", "csv"}).code, -1);
}

TEST(SweepCli, UsageErrorsNameTheValue) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> bad = {
      {{"sweep", "--do", "0:HtoD", "--min", "2M", "--max", "1M"}, "--min 2097152 is larger than --max 1048576"},
      {{"sweep", "--do", "0:HtoD", "--min", "0", "--max", "1M"}, "greater than 0"},
      {{"sweep", "--do", "0:HtoD", "--min", "1K", "--max", "1M", "--factor", "1"}, "--factor '1'"},
      {{"sweep", "--do", "0:HtoD", "--min", "1K", "--max", "1M", "--step", "0"}, "--step '0'"},
      {{"sweep", "--do", "0:HtoD", "--min", "1K", "--max", "1M", "--step", "1K", "--factor", "2"}, "not both"},
      {{"sweep", "--min", "1K", "--max", "1M"}, "exactly one of --do"},
      {{"sweep", "-t", "host_device_latency_sm", "--min", "1K", "--max", "1M"}, "measures latency"},
      {{"sweep", "-t", "nosuch", "--min", "1K", "--max", "1M"}, "nosuch"},
      {{"sweep", "--do", "0:Sideways", "--min", "1K", "--max", "1M"}, "Sideways"},
      {{"sweep", "--do", "0:HtoD", "--min", "1K", "--max", "1M", "--streams", "many"}, "many"},
      {{"sweep", "--do", "0:HtoD", "--max", "1M"}, "--min"},
  };
  for (const auto& [args, needle] : bad) {
    const auto p = parse(args);
    EXPECT_EQ(p.code, 2) << args[2];
    EXPECT_NE(p.err.find(needle), std::string::npos) << p.err;
    EXPECT_FALSE(p.has_action);
  }
}
