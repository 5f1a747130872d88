// compare of two soak files: medians under the noise rule, a drift or a
// step the bad way in NEW only is a regression, so are more episodes or
// failed samples; files with different cells are usage errors.
#include <gtest/gtest.h>

#include "base/error.hpp"
#include "compare/compare.hpp"
#include "soak/soak_analysis.hpp"
#include "soak/soak_record.hpp"

namespace {

using namespace xb;

soak::SoakFile data(const char* name) { return soak::read_soak_file(std::string(XB_SOAK_DATA "/") + name); }

// compare_soaks works on the two files' analyses.
CompareResult compare_soaks(const soak::SoakFile& a, const soak::SoakFile& b, const CompareOptions& opts,
                            const std::string& old_name = "OLD", const std::string& new_name = "NEW") {
  return xb::compare_soaks(soak::analyze(a), soak::analyze(b), opts, old_name, new_name);
}

const CompareEntry& entry(const CompareResult& r, const std::string& key) {
  for (const auto& e : r.entries)
    if (e.key == key) return e;
  throw std::runtime_error("no entry " + key);
}

TEST(SoakCompare, DetectsSoakText) {
  EXPECT_TRUE(soak::is_soak_text(soak::header_line({})));
  EXPECT_TRUE(soak::is_soak_text(soak::header_line({}) + "{broken"));
  EXPECT_FALSE(soak::is_soak_text(R"({"schema":"xferbench-run","schema_version":1})"));
  EXPECT_FALSE(soak::is_soak_text(R"({"type":"header","schema":"xferbench.other"})"));
  EXPECT_FALSE(soak::is_soak_text("not json\n"));
  EXPECT_FALSE(soak::is_soak_text(""));
}

TEST(SoakCompare, SteadyAgainstItselfIsSame) {
  const CompareResult r = compare_soaks(data("steady.jsonl"), data("steady.jsonl"), {});
  EXPECT_EQ(r.schema, "xferbench.soak");
  ASSERT_EQ(r.entries.size(), 2u);
  for (const auto& e : r.entries) {
    EXPECT_EQ(e.verdict, Verdict::same) << e.key << ": " << e.note;
    EXPECT_EQ(e.delta_pct, 0);
    ASSERT_TRUE(e.soak);
    EXPECT_FALSE(e.soak->new_drift);
  }
  EXPECT_FALSE(r.regression());
}

TEST(SoakCompare, DriftAndThrottleInNewAreRegressions) {
  const CompareResult r = compare_soaks(data("steady.jsonl"), data("drift.jsonl"), {}, "'steady'", "'drift'");
  const CompareEntry& bw = entry(r, "host_to_device_memcpy_ce[0,0]");
  EXPECT_EQ(bw.verdict, Verdict::slower) << bw.note;
  EXPECT_EQ(bw.unit, "gbps");
  EXPECT_LT(bw.delta_pct, -0.5);  // the median moved by about half the drift
  EXPECT_GT(bw.delta_pct, -1.5);
  ASSERT_TRUE(bw.soak);
  EXPECT_TRUE(bw.soak->new_drift);
  EXPECT_FALSE(bw.soak->old_drift);
  EXPECT_LT(bw.soak->new_slope_pct_per_hour, -1.5);
  EXPECT_NE(bw.note.find("drifts in 'drift' only"), std::string::npos) << bw.note;
  EXPECT_EQ(entry(r, "device_local_copy_latency[0,0]").verdict, Verdict::slower);
  const CompareEntry& throttle = entry(r, "episodes: throttle");
  EXPECT_EQ(throttle.verdict, Verdict::failed);
  EXPECT_EQ(throttle.note, "0 in 'steady', 1 in 'drift'");
  EXPECT_TRUE(r.regression());
  // The other way round: getting better is no regression.
  const CompareResult back = compare_soaks(data("drift.jsonl"), data("steady.jsonl"), {});
  for (const auto& e : back.entries) EXPECT_NE(e.verdict, Verdict::slower) << e.key << ": " << e.note;
  EXPECT_FALSE(back.regression());
}

TEST(SoakCompare, MedianDropBeyondToleranceAndFailedSamples) {
  soak::SoakFile slow = data("steady.jsonl");
  for (auto& s : slow.samples)
    if (s.unit == "gbps") s.value *= 0.9;
  const CompareResult r = compare_soaks(data("steady.jsonl"), slow, {});
  EXPECT_EQ(entry(r, "host_to_device_memcpy_ce[0,0]").verdict, Verdict::slower);
  EXPECT_NEAR(entry(r, "host_to_device_memcpy_ce[0,0]").delta_pct, -10, 0.01);
  EXPECT_EQ(entry(r, "device_local_copy_latency[0,0]").verdict, Verdict::same);
  soak::SoakFile failed = data("steady.jsonl");
  failed.samples[4].error = "cudaErrorLaunchFailure";
  const CompareEntry& e = entry(compare_soaks(data("steady.jsonl"), failed, {}), failed.samples[4].cell);
  EXPECT_EQ(e.verdict, Verdict::failed);
  EXPECT_NE(e.note.find("failed samples 0 -> 1"), std::string::npos) << e.note;
}

TEST(SoakCompare, DifferentCellsAreUsageErrors) {
  soak::SoakFile other = data("steady.jsonl");
  for (auto& s : other.samples)
    if (s.unit == "ns") s.cell = "device_local_copy_latency[0,1]";
  try {
    compare_soaks(data("steady.jsonl"), other, {}, "'a'", "'b'");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_STREQ(e.what(),
                 "the soak files hold different cells: only in 'a': device_local_copy_latency[0,0]; only in 'b': "
                 "device_local_copy_latency[0,1]");
  }
}

}  // namespace
