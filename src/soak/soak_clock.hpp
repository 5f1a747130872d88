// A soak's time: where it comes from (tests plant hours without waiting),
// how it is typed on the command line and how it is shown.
#pragma once

#include <functional>
#include <string>

namespace xb::soak {

// Where a soak's time comes from: tests plant hours without waiting.
struct SoakClock {
  std::function<double()> steady_s;  // monotonic seconds (any origin)
  std::function<double()> utc_s;     // seconds since the Unix epoch
};
SoakClock real_soak_clock();
// "2026-11-25T12:03:04.123Z"
std::string utc_text(double epoch_s);

// "90s", "30m", "8h", "1h30m", "2h15m30s", plain seconds ("600", "1.5").
// Throws Error(usage) naming `option` and the text for anything else or 0.
double parse_duration(const std::string& text, const std::string& option);
// "1h02m", "5m07s", "42s": how the status line and summary show a span.
std::string duration_text(double seconds);

}  // namespace xb::soak
