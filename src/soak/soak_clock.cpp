#include "soak/soak_clock.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/time_budget.hpp"

namespace xb::soak {

SoakClock real_soak_clock() {
  return {[] { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); },
          [] { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); }};
}

std::string utc_text(double epoch_s) {
  const double whole = std::floor(epoch_s);
  const std::time_t t = static_cast<std::time_t>(whole);
  int ms = static_cast<int>(std::lround((epoch_s - whole) * 1000));
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
  return fmt::format("{}.{:03d}Z", buf, std::min(ms, 999));
}

double parse_duration(const std::string& text, const std::string& option) {
  // One unit (or none): the --time-limit rule. Several ("1h30m"): each
  // number with its unit, h before m before s.
  const auto units = std::count_if(text.begin(), text.end(), [](char ch) { return std::isalpha(static_cast<unsigned char>(ch)); });
  if (units <= 1) return parse_duration_s(text, option);
  double total = 0;
  std::size_t i = 0;
  std::string order = "hms";
  while (i < text.size()) {
    std::size_t j = i;
    while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
    const std::size_t unit = j < text.size() ? order.find(text[j]) : std::string::npos;
    if (j == i || unit == std::string::npos)
      fail(ErrorKind::usage, fmt::format("invalid {} '{}': expected a duration such as 90s, 30m, 8h or 1h30m", option, text));
    // strtod: digits too many for a double read as infinity (refused below), never throw.
    total += std::strtod(text.substr(i, j - i).c_str(), nullptr) * (text[j] == 'h' ? 3600 : text[j] == 'm' ? 60 : 1);
    order = order.substr(unit + 1);
    i = j + 1;
  }
  if (!(total > 0)) fail(ErrorKind::usage, fmt::format("invalid {} '{}': must be greater than 0", option, text));
  if (total > kMaxDurationS)  // the bound parse_duration_s sets
    fail(ErrorKind::usage, fmt::format("invalid {} '{}': longer than a year", option, text));
  return total;
}

std::string duration_text(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  if (s >= 3600) return fmt::format("{}h{:02d}m", s / 3600, (s % 3600) / 60);
  if (s >= 60) return fmt::format("{}m{:02d}s", s / 60, s % 60);
  return fmt::format("{}s", s);
}

}  // namespace xb::soak
