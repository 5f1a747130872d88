// The reporters (report/reporter.hpp): the factory, the files' formats, the
// kinds a format refuses, and text rows streamed before the end.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "base/error.hpp"
#include "fake_system.hpp"
#include "render.hpp"
#include "records/scenario_json.hpp"
#include "report/reporter.hpp"

namespace xb::report {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string usage_message(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    return e.what();
  }
  return "";
}

TEST(Reporter, EveryFormatHasOneAndAnUnknownOneIsAnError) {
  std::ostringstream out;
  for (const char* f : {"text", "json", "csv", "junit", "nvbandwidth", "nvbandwidth-json", "bwtest", "cuts", "seed"})
    EXPECT_NE(make_reporter(f, out), nullptr) << f;
  EXPECT_THROW(make_reporter("xml", out), Error);
}

TEST(Reporter, FilesAreCsvByTheirNameElseJson) {
  const std::string dir = ::testing::TempDir();
  std::ostringstream out;
  Outputs text("text", dir + "xb_reporter_cases.csv", {}, out);
  text.add_file(dir + "xb_reporter_cases.json", "json");
  text.emit([](Reporter& r) { r.cases(); });
  std::ostringstream listing;
  make_reporter("text", listing)->cases();
  EXPECT_EQ(out.str(), listing.str());
  EXPECT_EQ(slurp(dir + "xb_reporter_cases.csv"), xb::testing::rendered("csv", [](auto& f) { f.cases(); }));
  EXPECT_EQ(slurp(dir + "xb_reporter_cases.json"), xb::testing::rendered("json", [](auto& f) { f.cases(); }));
  // check writes JSON whatever the name; with --summary, stdout has one line.
  ReportOptions check_options;
  check_options.csv_file = false;
  check_options.summary = true;
  std::ostringstream summary;
  Outputs check("json", dir + "xb_reporter_check.csv", check_options, summary);
  check.add_file(dir + "xb_reporter_check.xml", "junit");
  check::CheckResult verdict;
  check.emit([&](Reporter& r) { r.check(verdict); });
  EXPECT_EQ(summary.str(), check_summary_line(verdict) + "\n");
  EXPECT_EQ(slurp(dir + "xb_reporter_check.csv"), check_json(verdict).dump(2) + "\n");
  EXPECT_EQ(slurp(dir + "xb_reporter_check.xml"), xb::testing::rendered("junit", [&](auto& f) { f.check(verdict); }));
}

TEST(Reporter, FormatsRefuseWhatTheyCannotRenderWithTheCommandsMessages) {
  std::ostringstream out;
  EXPECT_EQ(usage_message([] { Outputs("csv", "").require(Kind::plan); }),
            "--dry-run writes its plan as text or JSON, not CSV");
  EXPECT_EQ(usage_message([] { Outputs("text", "plan.csv").require(Kind::plan); }),
            "--dry-run writes its plan as text or JSON, not CSV");
  EXPECT_EQ(usage_message([] { Outputs("nvbandwidth-json", "").require(Kind::plan); }),
            "--dry-run writes its plan as text or JSON, not --format nvbandwidth-json");
  EXPECT_EQ(usage_message([] { Outputs("nvbandwidth", "").require(Kind::scenario); }),
            "--format nvbandwidth applies to named cases (-t, -p, --suite), not to transfers (--do, --htod, --dtoh, "
            "--dtod)");
  EXPECT_EQ(usage_message([] { Outputs("json", "plan.json").require(Kind::plan); }), "");
  EXPECT_EQ(usage_message([&] { make_reporter("csv", out)->scenario_resumed("r.json", ScenarioResult{}); }),
            "--resume of a complete scenario result writes JSON; use --format json");
}

TEST(Reporter, AResumedCompleteScenarioIsALineInTextItsFileInJsonAndNothingInASeedFormat) {
  std::ostringstream text, json, cuts;
  ScenarioResult r;
  r.front_end = "cuts";
  r.written_by = xb::ToolInfo{"xferbench", "0.0.1", ""};
  make_reporter("text", text)->scenario_resumed("r.json", r);
  make_reporter("json", json)->scenario_resumed("r.json", r);
  make_reporter("cuts", cuts)->scenario_resumed("r.json", r);
  EXPECT_EQ(text.str(), "# r.json holds the complete result: nothing to measure\n");
  EXPECT_EQ(json.str(), xb::json_text(xb::records::scenario_json(r), 2) + "\n");
  EXPECT_NE(json.str().find("\"version\": \"0.0.1\""), std::string::npos) << json.str();
  EXPECT_EQ(cuts.str(), "");
}

TEST(Reporter, ASweepStreamedInTextIsTheWholeTable) {
  SweepResult r;
  r.system = fake_system(2);
  r.sizes = {1024};
  r.what = "host_to_device_memcpy_ce";
  std::ostringstream streamed, whole;
  auto live = make_reporter("text", streamed);
  EXPECT_TRUE(live->streams());
  live->sweep_rows(r);
  live->sweep_rows(r);
  live->sweep(r);
  make_reporter("text", whole)->sweep(r);
  EXPECT_EQ(streamed.str(), sweep_text(r));
  EXPECT_EQ(whole.str(), sweep_text(r));
  EXPECT_FALSE(make_reporter("json", whole)->streams());
}

}  // namespace
}  // namespace xb::report
