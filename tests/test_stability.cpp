// The guards against numbers that mislead, without a GPU: the drift
// check (reference cells at the start and the end of a run, measured here by
// a fake source), invalid cells above the link's peak, and compare treating
// a change within the measured drift as no change.
#include <gtest/gtest.h>

#include <sstream>

#include "compare/compare_json.hpp"
#include "cases/runner.hpp"
#include "records/stability.hpp"
#include "fake_system.hpp"
#include "render.hpp"
#include "report/reporter.hpp"

namespace {

using json = nlohmann::json;

// A fake measurement source: each call returns the next planted value for
// the reference it is asked about.
struct PlantedSource {
  std::map<std::string, std::vector<double>> values;
  std::map<std::string, std::size_t> next;
  double operator()(const xb::ReferenceCell& r) { return values.at(r.label).at(next[r.label]++); }
};

xb::Stability run_check(PlantedSource& src, double tolerance = 2.0) {
  xb::StabilityCheck check(xb::reference_cells(fake_system(2)), std::ref(src), tolerance);
  check.start();
  return check.finish();
}

}  // namespace

TEST(Stability, ReferenceCellsAreTheFirstHostAndPeerCells) {
  const auto refs = xb::reference_cells(fake_system(2));
  ASSERT_EQ(refs.size(), 2u);
  EXPECT_EQ(refs[0].case_name, "host_to_device_memcpy_ce");
  EXPECT_EQ(refs[0].label, "host->gpu0");
  EXPECT_EQ(refs[0].link, "PCIe Gen5 x16");
  EXPECT_EQ(refs[1].case_name, "device_to_device_memcpy_write_ce");
  EXPECT_EQ(refs[1].col, 1);
  EXPECT_EQ(xb::reference_cells(fake_system(1)).size(), 1u);
  EXPECT_EQ(xb::reference_cells(fake_system(2, false)).size(), 1u);  // no peer access: host only
}

TEST(Stability, FlagsAPlantedDrift) {
  PlantedSource src;
  src.values["host->gpu0"] = {55.40, 51.20};  // the host side changed level mid-run
  src.values["gpu0->gpu1"] = {396.3, 396.2};
  const xb::Stability s = run_check(src);
  ASSERT_TRUE(s.checked);
  EXPECT_FALSE(s.stable);
  EXPECT_NEAR(s.entries[0].drift_pct, (51.2 - 55.4) / 55.4 * 100, 1e-9);
  EXPECT_NEAR(s.max_abs_drift_pct, 7.581, 1e-3);
  EXPECT_NEAR(xb::drift_for_link(s, "PCIe Gen5 x16"), 7.581, 1e-3);
  EXPECT_NEAR(xb::drift_for_link(s, "NVLink x18"), 0.0252, 1e-3);
  xb::RunResult run;
  run.stability = s;
  std::ostringstream text;
  xb::report::make_reporter("text", text)->run(run);
  EXPECT_NE(text.str().find("# UNSTABLE: the reference cells moved 7.58%"), std::string::npos) << text.str();
  const json j = xb::records::run_json(run);
  EXPECT_EQ(j["stability"]["stable"], false);
  EXPECT_EQ(j["stability"]["references"][0]["label"], "host->gpu0");
}

TEST(Stability, QuietOnASteadyRun) {
  PlantedSource src;
  src.values["host->gpu0"] = {55.41, 55.38};
  src.values["gpu0->gpu1"] = {396.3, 396.4};
  const xb::Stability s = run_check(src);
  EXPECT_TRUE(s.stable);
  EXPECT_LT(s.max_abs_drift_pct, 0.1);
  xb::RunResult run;
  run.stability = s;
  std::ostringstream text;
  xb::report::make_reporter("text", text)->run(run);
  EXPECT_EQ(text.str().find("UNSTABLE"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("# stable:"), std::string::npos) << text.str();
  // The tolerance decides: the same 0.05% drift is unstable under 0.01%.
  PlantedSource again = src;
  again.next.clear();
  EXPECT_FALSE(run_check(again, 0.01).stable);
}

TEST(Invalid, ACellAboveItsLinksPeakIsInvalidAndFailsTheRun) {
  xb::CaseResult c;
  c.name = "host_to_device_memcpy_ce";
  xb::Matrix m;
  m.row_labels = {"host"};
  m.col_labels = {"gpu0", "gpu1"};
  m.cells.push_back(pcie_cell(0, {55.3, 55.4, 55.5}));
  m.cells.push_back(pcie_cell(1, {1491.0, 1491.8, 1492.0}));  // a device-local copy, timed as host->GPU
  c.matrices.push_back(m);
  xb::mark_impossible_cells(c);
  EXPECT_FALSE(c.matrices[0].cells[0].invalid);
  EXPECT_TRUE(c.matrices[0].cells[1].invalid);
  EXPECT_NE(c.matrices[0].cells[1].invalid_reason.find("1491.80 GB/s"), std::string::npos);
  EXPECT_EQ(c.status, xb::CaseStatus::failed);
  EXPECT_NE(c.message.find("[host,gpu1]"), std::string::npos) << c.message;
  for (auto& mm : c.matrices) xb::flag_outliers(mm);
  EXPECT_FALSE(c.matrices[0].cells[0].outlier);  // the invalid cell is no reference for the others

  xb::RunResult run;
  run.system = fake_system(2);
  run.cases.push_back(c);
  EXPECT_FALSE(xb::all_passed(run));  // exit code 1 (cmd_run maps all_passed to 0 / 1)
  std::ostringstream text;
  xb::report::make_reporter("text", text)->run_case(c);
  EXPECT_NE(text.str().find("INVALID"), std::string::npos);
  EXPECT_EQ(text.str().find("1491.80 ("), std::string::npos) << "an invalid value must not print as a plain cell";
  const json j = xb::records::run_json(run);
  EXPECT_EQ(j["cases"][0]["matrices"][0]["cells"][1]["invalid"], true);
  EXPECT_EQ(j["status"], "failed");
  const std::string csv = xb::testing::rendered("csv", [&](auto& f) { f.run(run); });
  EXPECT_NE(csv.find(",true,\"1491.80 GB/s"), std::string::npos) << csv;
  // Peak unknown: nothing to judge against.
  EXPECT_EQ(xb::impossible_reason(1e6, xb::Peak{}), "");
  EXPECT_EQ(xb::impossible_reason(55.0, xb::pcie_peak(5, 16)), "");
}

namespace {

xb::RunResult h2d_run(double gbps, double start, double end) {
  xb::RunResult run;
  run.system = fake_system(1);
  xb::CaseResult c;
  c.name = "host_to_device_memcpy_ce";
  xb::Matrix m;
  m.row_labels = {"host"};
  m.col_labels = {"gpu0"};
  m.cells.push_back(pcie_cell(0, {gbps * 0.999, gbps, gbps * 1.001}));
  c.matrices.push_back(m);
  run.cases.push_back(c);
  xb::StabilityEntry e;
  e.ref = xb::reference_cells(run.system)[0];
  e.start_gbps = start;
  e.end_gbps = end;
  run.stability = xb::assess_stability({e}, 2.0);
  return run;
}

}  // namespace

TEST(CompareDrift, AChangeWithinTheMeasuredDriftIsNoChange) {
  xb::CompareOptions strict;
  strict.tolerance_pct = 0;
  // New is 3% lower; the new run's own host reference moved 4%: same.
  auto r = xb::compare_documents(xb::records::run_json(h2d_run(55.0, 55.0, 55.0)),
                                 xb::records::run_json(h2d_run(53.35, 55.0, 52.8)), strict);
  ASSERT_EQ(r.entries.size(), 1u);
  EXPECT_EQ(r.entries[0].verdict, xb::Verdict::same);
  EXPECT_NEAR(r.entries[0].noise_pct, 4.0, 1e-9);
  EXPECT_NE(r.entries[0].note.find("drift"), std::string::npos);
  // The same 3% drop between two steady runs is a regression.
  r = xb::compare_documents(xb::records::run_json(h2d_run(55.0, 55.0, 55.0)),
                            xb::records::run_json(h2d_run(53.35, 53.3, 53.31)), strict);
  EXPECT_EQ(r.entries[0].verdict, xb::Verdict::slower);
  // An invalid cell in NEW fails whatever its value.
  auto bad = h2d_run(55.0, 55.0, 55.0);
  bad.cases[0].matrices[0].cells[0].invalid = true;
  bad.cases[0].matrices[0].cells[0].invalid_reason = "planted";
  r = xb::compare_documents(xb::records::run_json(h2d_run(55.0, 55.0, 55.0)), xb::records::run_json(bad), {});
  EXPECT_EQ(r.entries[0].verdict, xb::Verdict::failed);
}
