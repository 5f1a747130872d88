#include "firsttouch/result.hpp"

#include <cmath>

#include "base/stats.hpp"

namespace xb::firsttouch {
namespace {

// The phases with one value per iteration (all but the steady copies).
constexpr double Phases::*kSingleValued[] = {&Phases::alloc_sender_s, &Phases::alloc_receiver_s, &Phases::export_s,
                                             &Phases::open_s,         &Phases::register_s,       &Phases::first_copy_s};

double median_or_nan(const std::vector<double>& values) {
  std::vector<double> kept;
  for (double v : values) {
    if (!std::isnan(v)) kept.push_back(v);
  }
  return kept.empty() ? kNotMeasured : median(kept);
}

}  // namespace

void merge(Phases& into, const Phases& from) {
  for (const auto m : kSingleValued)
    if (std::isnan(into.*m)) into.*m = from.*m;
  if (into.steady_copy_s.empty()) into.steady_copy_s = from.steady_copy_s;
}

FirstSteady summarize(const std::vector<std::vector<double>>& times_s) {
  std::vector<double> first, later;
  for (const auto& iteration : times_s) {
    if (iteration.empty()) continue;
    first.push_back(iteration[0]);
    later.insert(later.end(), iteration.begin() + 1, iteration.end());
  }
  FirstSteady s;
  if (!first.empty()) s.first_s = median(first);
  if (!later.empty()) s.steady_s = median(later);
  if (!first.empty() && !later.empty() && s.steady_s > 0) s.ratio = s.first_s / s.steady_s;
  return s;
}

Phases median_phases(const std::vector<Phases>& per_iteration) {
  Phases m;
  for (const auto member : kSingleValued) {
    std::vector<double> values;
    for (const auto& p : per_iteration) values.push_back(p.*member);
    m.*member = median_or_nan(values);
  }
  std::vector<double> steady;
  for (const auto& p : per_iteration) steady.insert(steady.end(), p.steady_copy_s.begin(), p.steady_copy_s.end());
  const double s = median_or_nan(steady);
  if (!std::isnan(s)) m.steady_copy_s = {s};
  return m;
}

bool any_failed(const Result& r) {
  for (const auto& v : r.variants)
    if (!v.failed.empty()) return true;
  return false;
}

}  // namespace xb::firsttouch
