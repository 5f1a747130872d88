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
