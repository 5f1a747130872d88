#include <gtest/gtest.h>

#include <cmath>

#include "base/stats.hpp"

TEST(Stats, MedianOddEven) {
  EXPECT_DOUBLE_EQ(xb::median({3, 1, 2}), 2.0);
  EXPECT_DOUBLE_EQ(xb::median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(xb::median({}), 0.0);
}

TEST(Stats, PercentileIsTheNearestRank) {
  std::vector<double> hundred;
  for (int i = 100; i >= 1; --i) hundred.push_back(i);
  EXPECT_DOUBLE_EQ(xb::percentile(hundred, 0.99), 99.0);
  EXPECT_DOUBLE_EQ(xb::percentile(hundred, 0.5), 50.0);
  EXPECT_DOUBLE_EQ(xb::percentile(hundred, 1.0), 100.0);
  // With fewer than 100 values the 99th percentile is the maximum.
  EXPECT_DOUBLE_EQ(xb::percentile({3, 1, 2}, 0.99), 3.0);
  EXPECT_DOUBLE_EQ(xb::percentile({5}, 0.99), 5.0);
  EXPECT_DOUBLE_EQ(xb::percentile({}, 0.99), 0.0);
}

TEST(Stats, SummaryExact) {
  const xb::Summary s = xb::summarize({2, 4, 4, 4, 5, 5, 7, 9});
  EXPECT_EQ(s.count, 8);
  EXPECT_DOUBLE_EQ(s.mean, 5.0);
  EXPECT_DOUBLE_EQ(s.median, 4.5);
  EXPECT_DOUBLE_EQ(s.min, 2.0);
  EXPECT_DOUBLE_EQ(s.max, 9.0);
  EXPECT_NEAR(s.stddev, std::sqrt(32.0 / 7.0), 1e-12);  // sample (n-1) deviation
  EXPECT_NEAR(s.cov, std::sqrt(32.0 / 7.0) / 5.0, 1e-12);
}

TEST(Stats, SingleValueHasNoSpread) {
  const xb::Summary s = xb::summarize({42});
  EXPECT_DOUBLE_EQ(s.stddev, 0.0);
  EXPECT_DOUBLE_EQ(s.cov, 0.0);
  EXPECT_TRUE(std::isinf(xb::median_relative_error(s)));
}

TEST(Stats, MedianRelativeErrorShrinksWithSamples) {
  const xb::Summary few = xb::summarize({99, 100, 101});
  const xb::Summary many = xb::summarize({99, 100, 101, 99, 100, 101, 99, 100, 101, 99, 100, 101});
  EXPECT_NEAR(xb::median_relative_error(few), 1.2533141373155003 * 1.0 / std::sqrt(3.0) / 100.0, 1e-12);
  EXPECT_LT(xb::median_relative_error(many), xb::median_relative_error(few));
}

// Percentiles of a summary: nearest rank over the values as given (p50 is
// the median, also for an even count).
TEST(Stats, SummaryPercentilesExact) {
  std::vector<double> twenty;
  for (int i = 20; i >= 1; --i) twenty.push_back(i);
  const xb::Summary s = xb::summarize(twenty);
  EXPECT_DOUBLE_EQ(s.median, 10.5);
  EXPECT_DOUBLE_EQ(s.p95, 19.0);  // ceil(0.95 * 20) = 19th value
  EXPECT_DOUBLE_EQ(s.p99, 20.0);  // ceil(0.99 * 20) = 20th
  std::vector<double> two_hundred;
  for (int i = 1; i <= 200; ++i) two_hundred.push_back(i);
  const xb::Summary t = xb::summarize(two_hundred);
  EXPECT_DOUBLE_EQ(t.p95, 190.0);
  EXPECT_DOUBLE_EQ(t.p99, 198.0);
  EXPECT_DOUBLE_EQ(t.min, 1.0);
  EXPECT_DOUBLE_EQ(t.max, 200.0);
}

TEST(Stats, SummaryPercentilesOfFewValuesAreTheMaximum) {
  // One value: every percentile is it.
  const xb::Summary one = xb::summarize({7});
  EXPECT_DOUBLE_EQ(one.median, 7.0);
  EXPECT_DOUBLE_EQ(one.p95, 7.0);
  EXPECT_DOUBLE_EQ(one.p99, 7.0);
  // Fewer than 1 / (1 - 0.95) = 20 values: p95 and p99 are the maximum.
  const xb::Summary few = xb::summarize({5, 1, 4, 2, 3});
  EXPECT_DOUBLE_EQ(few.median, 3.0);
  EXPECT_DOUBLE_EQ(few.p95, 5.0);
  EXPECT_DOUBLE_EQ(few.p99, 5.0);
  // 20 values reach p95 below the maximum, p99 not yet (needs 100).
  std::vector<double> nineteen_ones(19, 1.0);
  nineteen_ones.push_back(9.0);
  const xb::Summary tail = xb::summarize(nineteen_ones);
  EXPECT_DOUBLE_EQ(tail.p95, 1.0);
  EXPECT_DOUBLE_EQ(tail.p99, 9.0);
  const xb::Summary none = xb::summarize({});
  EXPECT_DOUBLE_EQ(none.p95, 0.0);
  EXPECT_DOUBLE_EQ(none.p99, 0.0);
}
