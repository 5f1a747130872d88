#include "firsttouch/result.hpp"

#include <cmath>

#include "base/stats.hpp"

namespace xb::firsttouch {
namespace {

void take(double& into, double from) {
  if (std::isnan(into)) into = from;
}

double median_or_nan(const std::vector<double>& values) {
  std::vector<double> kept;
  for (double v : values) {
    if (!std::isnan(v)) kept.push_back(v);
  }
  return kept.empty() ? kNotMeasured : median(kept);
}

}  // namespace

void merge(Phases& into, const Phases& from) {
  take(into.alloc_sender_s, from.alloc_sender_s);
  take(into.alloc_receiver_s, from.alloc_receiver_s);
  take(into.export_s, from.export_s);
  take(into.open_s, from.open_s);
  take(into.register_s, from.register_s);
  take(into.first_copy_s, from.first_copy_s);
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
  std::vector<double> a, b, e, o, r, f, steady;
  for (const auto& p : per_iteration) {
    a.push_back(p.alloc_sender_s);
    b.push_back(p.alloc_receiver_s);
    e.push_back(p.export_s);
    o.push_back(p.open_s);
    r.push_back(p.register_s);
    f.push_back(p.first_copy_s);
    steady.insert(steady.end(), p.steady_copy_s.begin(), p.steady_copy_s.end());
  }
  Phases m;
  m.alloc_sender_s = median_or_nan(a);
  m.alloc_receiver_s = median_or_nan(b);
  m.export_s = median_or_nan(e);
  m.open_s = median_or_nan(o);
  m.register_s = median_or_nan(r);
  m.first_copy_s = median_or_nan(f);
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
