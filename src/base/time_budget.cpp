#include "base/time_budget.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/stop.hpp"

namespace xb {

double parse_duration_s(const std::string& text, const std::string& what) {
  const auto bad = [&](const char* why) {
    fail(ErrorKind::usage, fmt::format("invalid {} '{}': {} (expected a duration such as 90s, 5m or 1h)", what, text, why));
  };
  std::size_t i = 0, digits = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) {
    digits += std::isdigit(static_cast<unsigned char>(text[i])) ? 1 : 0;
    ++i;
  }
  const std::string number = text.substr(0, i), unit = text.substr(i);
  if (digits == 0 || std::count(number.begin(), number.end(), '.') > 1 || number.front() == '.' ||
      number.back() == '.')
    bad("not a number");
  double scale = 0;
  if (unit.empty() || unit == "s") scale = 1;
  if (unit == "m") scale = 60;
  if (unit == "h") scale = 3600;
  if (scale == 0) bad("unknown unit (use s, m or h)");
  // strtod, not stod: a number too large for a double ("1" and 309 zeros)
  // reads as infinity and is refused below, where stod would throw.
  const double seconds = std::strtod(number.c_str(), nullptr) * scale;
  if (!(seconds > 0)) bad("must be greater than 0");
  if (seconds > kMaxDurationS) bad("longer than a year");
  return seconds;
}

double measured_cost_model(const std::vector<CellCost>& done, const CellCost& next) {
  const CellCost* last = nullptr;
  const CellCost* before = nullptr;
  for (auto it = done.rbegin(); it != done.rend() && before == nullptr; ++it) {
    if (it->group != next.group) continue;
    if (last == nullptr) {
      last = &*it;
    } else if (it->bytes != last->bytes) {
      before = &*it;
    }
  }
  if (last != nullptr) {
    // Cost grows with the size at the rate of the last two sizes (never
    // below the last cost: fixed per-cell costs dominate small sizes).
    double slope = 0;
    if (before != nullptr) slope = std::max(0.0, (last->seconds - before->seconds) / (last->bytes - before->bytes));
    return last->seconds + slope * std::max(0.0, next.bytes - last->bytes);
  }
  if (done.empty()) return 0;
  double sum = 0;
  for (const CellCost& c : done) sum += c.seconds;
  return sum / static_cast<double>(done.size());
}

namespace {
const std::chrono::steady_clock::time_point g_process_start = std::chrono::steady_clock::now();
}  // namespace

std::chrono::steady_clock::time_point process_start() noexcept { return g_process_start; }

TimeBudget::TimeBudget(double limit_s, CellCostModel model, Clock::time_point start)
    : limit_s_(limit_s > 0 ? limit_s : 0), model_(std::move(model)), start_(start) {}

double TimeBudget::margin_s() const noexcept { return std::min(2.0, 0.1 * limit_s_); }

void TimeBudget::arm() const {
  if (!limited()) return;
  const auto usable = std::chrono::duration<double>(limit_s_ - margin_s());
  set_stop_deadline(start_ + std::chrono::duration_cast<Clock::duration>(usable));
}

double TimeBudget::elapsed_s() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

bool TimeBudget::fits(const CellCost& next) const {
  if (!limited()) return true;
  const double estimate = model_ ? model_(done_, next) : 0.0;
  return elapsed_s() + estimate <= limit_s_ - margin_s();
}

}  // namespace xb
