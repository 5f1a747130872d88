#include "base/units.hpp"

#include <algorithm>
#include <cctype>
#include <limits>

#include <fmt/format.h>

#include "base/error.hpp"

namespace xb {
namespace {

std::uint64_t suffix_multiplier(std::string suffix, const std::string& text,
                                const std::string& what) {
  for (auto& c : suffix) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (suffix.empty() || suffix == "b") return 1;
  static const char* const names[] = {"k", "m", "g", "t"};
  std::uint64_t mult = 1;
  for (const char* name : names) {
    mult *= 1024;
    const std::string n(name);
    if (suffix == n || suffix == n + "b" || suffix == n + "ib") return mult;
  }
  fail(ErrorKind::usage, fmt::format("invalid {} '{}': unknown suffix '{}' (use K, M, G or T; binary)",
                                     what, text, suffix));
}

}  // namespace

std::uint64_t parse_size(const std::string& text, const std::string& what) {
  std::size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  if (i == 0) {
    fail(ErrorKind::usage, fmt::format("invalid {} '{}': expected a number of bytes such as 4096, 64K or 1G",
                                       what, text));
  }
  std::uint64_t value = 0;
  for (std::size_t k = 0; k < i; ++k) {
    const std::uint64_t digit = static_cast<std::uint64_t>(text[k] - '0');
    if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) {
      fail(ErrorKind::usage, fmt::format("invalid {} '{}': too large", what, text));
    }
    value = value * 10 + digit;
  }
  const std::uint64_t mult = suffix_multiplier(text.substr(i), text, what);
  if (value != 0 && mult > std::numeric_limits<std::uint64_t>::max() / value) {
    fail(ErrorKind::usage, fmt::format("invalid {} '{}': too large", what, text));
  }
  return value * mult;
}

std::int64_t parse_int(const std::string& text, const std::string& what) {
  // 18 digits at most: the value cannot overflow.
  if (text.empty() || text.size() > 18 ||
      !std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); }))
    fail(ErrorKind::usage, fmt::format("invalid {} '{}': expected a whole number", what, text));
  std::int64_t value = 0;
  for (char c : text) value = value * 10 + (c - '0');
  return value;
}

std::vector<int> parse_int_list(const std::string& text, const std::string& what) {
  std::vector<int> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const std::int64_t v = parse_int(item, what);
    if (v > std::numeric_limits<int>::max()) {
      fail(ErrorKind::usage, fmt::format("invalid {} '{}': too large", what, item));
    }
    out.push_back(static_cast<int>(v));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::string int_ranges(const std::vector<int>& values, const char* sep) {
  std::string out;
  for (std::size_t i = 0; i < values.size();) {
    std::size_t j = i;
    while (j + 1 < values.size() && values[j + 1] == values[j] + 1) ++j;
    if (!out.empty()) out += sep;
    out += j == i ? fmt::format("{}", values[i]) : fmt::format("{}-{}", values[i], values[j]);
    i = j + 1;
  }
  return out;
}

std::string bytes_label(std::uint64_t bytes) {
  static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (u < 4 && bytes >= 1024 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++u;
  }
  return fmt::format("{} {}", bytes, units[u]);
}

}  // namespace xb
