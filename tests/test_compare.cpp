// compare: the noise rule on value pairs, and whole run / sweep documents
// built by the real JSON reporters: a planted 10% drop is a regression,
// identical runs pass, noise-level differences are "same", and mismatched
// or foreign documents are usage errors naming the problem.
#include <gtest/gtest.h>

#include <sstream>

#include "app/cli.hpp"
#include "compare/compare_json.hpp"
#include "base/error.hpp"
#include "cases/sweep.hpp"
#include "fake_system.hpp"
#include "report/reporter.hpp"
#include "report/output_file.hpp"

namespace {

using json = nlohmann::json;


// Two host->GPU cells around `gbps` with about 0.2% noise, scaled by `scale` on gpu1.
xb::RunResult run_at(double gbps, double gpu1_scale = 1.0) {
  xb::RunResult run;
  run.system = fake_system(2);
  xb::CaseResult c;
  c.name = "host_to_device_memcpy_ce";
  xb::Matrix m;
  m.row_labels = {"host"};
  m.col_labels = {"gpu0", "gpu1"};
  for (int g = 0; g < 2; ++g) {
    const double v = gbps * (g == 1 ? gpu1_scale : 1.0);
    m.cells.push_back(pcie_cell(g, {v * 0.998, v * 0.999, v, v * 1.001, v * 1.002}));
  }
  c.matrices.push_back(m);
  run.cases.push_back(c);
  xb::CaseResult lat;
  lat.name = "host_device_latency_sm";
  xb::Matrix lm;
  lm.metric = xb::Metric::latency_ns;
  lm.row_labels = {"host"};
  lm.col_labels = {"gpu0"};
  xb::Cell lc = pcie_cell(0, {1170, 1174, 1178});
  lc.peak = xb::Peak{};
  lm.cells.push_back(lc);
  lat.matrices.push_back(lm);
  run.cases.push_back(lat);
  return run;
}

json doc(const xb::RunResult& r) { return xb::records::run_json(r); }

std::string usage_message(const json& a, const json& b) {
  try {
    xb::compare_documents(a, b, {});
  } catch (const xb::Error& e) {
    EXPECT_EQ(e.kind(), xb::ErrorKind::usage);
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(CompareRule, ToleranceAndNoiseMustBothBeExceeded) {
  xb::CompareOptions o;  // 5%, k = 3
  // 10% drop, tight samples: slower.
  EXPECT_EQ(xb::compare_values("c", "gbps", 100, 0.1, 10, 90, 0.1, 10, o).verdict, xb::Verdict::slower);
  // 10% gain: faster.
  EXPECT_EQ(xb::compare_values("c", "gbps", 100, 0.1, 10, 110, 0.1, 10, o).verdict, xb::Verdict::faster);
  // 3% change is inside the tolerance.
  EXPECT_EQ(xb::compare_values("c", "gbps", 100, 0.1, 10, 97, 0.1, 10, o).verdict, xb::Verdict::same);
  // 10% change but very noisy cells: se = 1.2533 * 20 / sqrt(4) = 12.5 each, 3 x 17.7 = 53 > 10.
  const auto noisy = xb::compare_values("c", "gbps", 100, 20, 4, 90, 20, 4, o);
  EXPECT_EQ(noisy.verdict, xb::Verdict::same);
  EXPECT_NEAR(noisy.noise_pct, 3 * std::sqrt(2.0) * 1.2533141373155003 * 10, 1e-9);
  EXPECT_NEAR(noisy.delta_pct, -10, 1e-12);
  // Latency: higher is slower.
  EXPECT_EQ(xb::compare_values("l", "ns", 1000, 1, 10, 1200, 1, 10, o).verdict, xb::Verdict::slower);
  EXPECT_EQ(xb::compare_values("l", "ns", 1000, 1, 10, 800, 1, 10, o).verdict, xb::Verdict::faster);
  EXPECT_DOUBLE_EQ(xb::median_standard_error(2.0, 4), 1.2533141373155003);
  EXPECT_EQ(xb::median_standard_error(2.0, 1), 0.0);
}

TEST(CompareRun, PlantedTenPercentDropIsARegression) {
  const auto r = xb::compare_documents(doc(run_at(55.0)), doc(run_at(55.0, 0.9)), {});
  ASSERT_EQ(r.entries.size(), 3u);
  EXPECT_EQ(r.entries[0].verdict, xb::Verdict::same);
  EXPECT_EQ(r.entries[1].key, "host_to_device_memcpy_ce [host,gpu1]");
  EXPECT_EQ(r.entries[1].verdict, xb::Verdict::slower);
  EXPECT_NEAR(r.entries[1].delta_pct, -10, 1e-9);
  EXPECT_TRUE(r.regression());
  const std::string text = xb::report::compare_text(r, "old.json", "new.json");
  EXPECT_NE(text.find("# 3 compared: 0 faster, 1 slower, 2 same, 0 failed, 0 skipped"), std::string::npos) << text;
  EXPECT_NE(text.find("# REGRESSION"), std::string::npos);
}

TEST(CompareRun, IdenticalRunsPassAndNoiseIsSame) {
  const auto same = xb::compare_documents(doc(run_at(55.0)), doc(run_at(55.0)), {});
  EXPECT_FALSE(same.regression());
  EXPECT_EQ(same.count(xb::Verdict::same), 3);
  // 0.3% lower everywhere: well inside the noise and the tolerance.
  const auto noise = xb::compare_documents(doc(run_at(55.0)), doc(run_at(55.0 * 0.997)), {});
  EXPECT_FALSE(noise.regression());
  EXPECT_EQ(noise.count(xb::Verdict::same), 3);
  // Even with no tolerance, 0.3% is within 3 standard errors of these samples.
  xb::CompareOptions strict;
  strict.tolerance_pct = 0;
  EXPECT_EQ(xb::compare_documents(doc(run_at(55.0)), doc(run_at(55.0 * 0.997)), strict).count(xb::Verdict::same), 3);
}

TEST(CompareRun, FailedVerificationOrErrorInNewFails) {
  auto bad = run_at(55.0);
  bad.cases[0].matrices[0].cells[0].verification.status = xb::Verification::Status::failed;
  auto r = xb::compare_documents(doc(run_at(55.0)), doc(bad), {});
  EXPECT_EQ(r.entries[0].verdict, xb::Verdict::failed);
  EXPECT_TRUE(r.regression());
  auto err = run_at(55.0);
  err.cases[0].status = xb::CaseStatus::error;
  err.cases[0].message = "cudaErrorIllegalAddress";
  err.cases[0].matrices.clear();
  r = xb::compare_documents(doc(run_at(55.0)), doc(err), {});
  EXPECT_EQ(r.entries[0].verdict, xb::Verdict::failed);
  EXPECT_NE(r.entries[0].note.find("cudaErrorIllegalAddress"), std::string::npos);
  // Old errored, new measured: nothing to compare against, not a regression.
  EXPECT_FALSE(xb::compare_documents(doc(err), doc(run_at(55.0)), {}).regression());
}

TEST(CompareRun, MismatchesAndForeignDocumentsAreUsageErrors) {
  auto fewer = run_at(55.0);
  fewer.cases.pop_back();
  EXPECT_NE(usage_message(doc(run_at(55.0)), doc(fewer)).find("only in OLD: host_device_latency_sm"), std::string::npos);
  auto one_gpu = run_at(55.0);
  one_gpu.cases[0].matrices[0].cells.pop_back();
  EXPECT_NE(usage_message(doc(run_at(55.0)), doc(one_gpu)).find("[host,gpu1] is only in OLD"), std::string::npos);
  json v2 = doc(run_at(55.0));
  v2["schema_version"] = 2;
  EXPECT_NE(usage_message(doc(run_at(55.0)), v2).find("schema_version 2"), std::string::npos);
  const json pingpong = {{"schema", "xferbench-pingpong/1"}, {"pairs", json::array()}};
  EXPECT_NE(usage_message(pingpong, doc(run_at(55.0))).find("'xferbench-pingpong/1'"), std::string::npos);
  EXPECT_NE(usage_message(json{{"a", 1}}, doc(run_at(55.0))).find("no \"schema\""), std::string::npos);
  xb::SweepResult s;
  s.system = fake_system(1);
  EXPECT_NE(usage_message(doc(run_at(55.0)), xb::records::sweep_json(s)).find("xferbench-sweep result"), std::string::npos);
}

namespace {

xb::SweepResult sweep_at(double gbps) {
  xb::SweepResult s;
  s.system = fake_system(1);
  s.series.resize(1);
  s.series[0].label = "host->gpu0";
  for (std::uint64_t b : {4096ull, 1ull << 20}) {
    xb::SweepRow row;
    row.bytes = b;
    row.samples_gbps = {gbps * 0.999, gbps, gbps * 1.001};
    row.stats = xb::summarize(row.samples_gbps);
    row.value_gbps = row.stats.median;
    s.series[0].rows.push_back(row);
  }
  return s;
}

}  // namespace

TEST(CompareSweep, RowsBySeriesAndSize) {
  const auto drop = xb::compare_documents(xb::records::sweep_json(sweep_at(20)), xb::records::sweep_json(sweep_at(18)), {});
  ASSERT_EQ(drop.entries.size(), 2u);
  EXPECT_EQ(drop.entries[1].key, "host->gpu0 @ 1048576 B");
  EXPECT_TRUE(drop.regression());
  EXPECT_FALSE(
      xb::compare_documents(xb::records::sweep_json(sweep_at(20)), xb::records::sweep_json(sweep_at(20)), {}).regression());
  auto other_sizes = sweep_at(20);
  other_sizes.series[0].rows.pop_back();
  EXPECT_NE(usage_message(xb::records::sweep_json(sweep_at(20)), xb::records::sweep_json(other_sizes))
                .find("host->gpu0 @ 1048576 B is only in OLD"),
            std::string::npos);
}

TEST(CompareCli, ExitCodesThroughTheCommand) {
  const std::string dir = ::testing::TempDir();
  const std::string a = dir + "/xb_cmp_old.json", b = dir + "/xb_cmp_new.json";
  xb::report::write_output_file(a, doc(run_at(55.0)).dump());
  xb::report::write_output_file(b, doc(run_at(55.0, 0.9)).dump());
  auto run = [](std::vector<std::string> args) {
    xb::app::Context ctx;
    auto app = xb::app::make_app(ctx);
    std::ostringstream out, err;
    int code = xb::app::parse_args(*app, ctx, std::move(args), out, err);
    if (code < 0) code = xb::app::run_action(ctx, err);
    return std::make_pair(code, err.str());
  };
  EXPECT_EQ(run({"compare", a, a, "--format", "csv"}).first, 0);
  EXPECT_EQ(run({"compare", a, b}).first, 1);
  EXPECT_EQ(run({"compare", a, b, "--tolerance", "15"}).first, 0);
  const auto missing = run({"compare", a, dir + "/xb_cmp_missing.json"});
  EXPECT_EQ(missing.first, 2);
  EXPECT_NE(missing.second.find("cannot read '" + dir + "/xb_cmp_missing.json': No such file or directory"),
            std::string::npos) << missing.second;
  // Malformed inputs are exit 2 naming the file, never 70 (internal error).
  const auto directory = run({"compare", a, dir});
  EXPECT_EQ(directory.first, 2);
  EXPECT_NE(directory.second.find("cannot read '" + dir + "': Is a directory"), std::string::npos) << directory.second;
  const std::string huge = dir + "/xb_cmp_huge.json";
  xb::report::write_output_file(huge, "{\"schema\": \"xferbench-run\", \"x\": 1e400}");
  const auto overflow = run({"compare", huge, a});
  EXPECT_EQ(overflow.first, 2);
  EXPECT_NE(overflow.second.find("'" + huge + "' is not JSON: line 1, column "), std::string::npos) << overflow.second;
  EXPECT_NE(overflow.second.find("number overflow parsing '1e400'"), std::string::npos) << overflow.second;
  std::remove(huge.c_str());
  EXPECT_EQ(run({"compare", a, b, "--tolerance", "-1"}).first, 2);
  std::remove(a.c_str());
  std::remove(b.c_str());
}
