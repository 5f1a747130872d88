// Small pure statistics over samples; exact unit tests in tests/test_stats.cpp.
#pragma once

#include <vector>

namespace xb {

struct Summary {
  int count = 0;
  // median is also the p50 the records write (for an even count the mean
  // of the two middle values, not a nearest rank).
  double median = 0, mean = 0, min = 0, max = 0;
  double p95 = 0, p99 = 0;  // percentile() of the values: nearest rank
  double stddev = 0;  // sample standard deviation (n - 1)
  double cov = 0;     // stddev / mean, 0 when mean is 0
};

// Which statistic of its samples a cell reports (-m/--mean: the mean).
enum class Statistic { median, mean };
const char* to_string(Statistic s) noexcept;  // "median", "mean"
inline double value_of(const Summary& s, Statistic st) noexcept { return st == Statistic::mean ? s.mean : s.median; }

double median(std::vector<double> values);
// The p-quantile (0 < p <= 1) by the nearest-rank method: the smallest value
// with at least p of the values at or below it; with fewer than 1 / (1 - p)
// values that is the maximum. 0 for no values.
double percentile(std::vector<double> values, double p);
Summary summarize(const std::vector<double>& values);

// Relative standard error of the median, estimated as
// sqrt(pi/2) * stddev / sqrt(n) / median. Used by adaptive sampling to
// decide when the reported median is stable enough. Infinity for n < 2.
double median_relative_error(const Summary& s);

}  // namespace xb
