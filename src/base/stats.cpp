#include "base/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace xb {

const char* to_string(Statistic s) noexcept { return s == Statistic::mean ? "mean" : "median"; }

double median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  const std::size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<long>(mid), values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  const double lower = *std::max_element(values.begin(), values.begin() + static_cast<long>(mid));
  return (lower + upper) / 2.0;
}

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0.0;
  const double n = static_cast<double>(values.size());
  // Nearest rank: ceil(p * n), 1-based; the small epsilon keeps 0.99 * 100
  // from rounding up to 100 in floating point.
  auto rank = static_cast<std::size_t>(std::ceil(p * n - 1e-9));
  rank = std::min(std::max<std::size_t>(rank, 1), values.size());
  std::nth_element(values.begin(), values.begin() + static_cast<long>(rank - 1), values.end());
  return values[rank - 1];
}

Summary summarize(const std::vector<double>& values) {
  Summary s;
  s.count = static_cast<int>(values.size());
  if (values.empty()) return s;
  s.median = median(values);
  s.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  s.min = *lo;
  s.max = *hi;
  s.p95 = percentile(values, 0.95);
  s.p99 = percentile(values, 0.99);
  if (values.size() > 1) {
    double sq = 0.0;
    for (double v : values) sq += (v - s.mean) * (v - s.mean);
    s.stddev = std::sqrt(sq / static_cast<double>(values.size() - 1));
  }
  s.cov = s.mean != 0.0 ? s.stddev / std::fabs(s.mean) : 0.0;
  return s;
}

double median_relative_error(const Summary& s) {
  if (s.count < 2 || s.median == 0.0) return std::numeric_limits<double>::infinity();
  const double sqrt_half_pi = 1.2533141373155003;
  return sqrt_half_pi * s.stddev / std::sqrt(static_cast<double>(s.count)) / std::fabs(s.median);
}

}  // namespace xb
