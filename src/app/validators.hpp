// Checks for option values that their type alone would let through (an
// empty size, a negative count that happens to equal an internal
// "not given" marker). They run while CLI11 parses and throw Error(usage)
// naming the option as the user knows it and the value, so the message is
// one line and the exit code 2, like every other usage error.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "core/error.hpp"
#include "core/units.hpp"

namespace xb::app {

// The value must not be empty ("--buffer-size ''").
inline CLI::Validator non_empty(const std::string& flag) {
  return CLI::Validator(
      [flag](std::string& v) {
        if (v.empty()) fail(ErrorKind::usage, fmt::format("invalid {} '': the value is empty", flag));
        return std::string();
      },
      "");
}

// The value must be a whole number from `min` to INT_MAX ("-i -1", "-i 0").
inline CLI::Validator int_at_least(const std::string& flag, int min) {
  return CLI::Validator(
      [flag, min](std::string& v) {
        std::int64_t n = -1;
        try {
          n = parse_int(v, flag);
        } catch (const Error&) {
          n = -1;
        }
        if (n < min || n > std::numeric_limits<int>::max())
          fail(ErrorKind::usage, fmt::format("invalid {} '{}': expected a whole number from {} to {}", flag, v, min,
                                             std::numeric_limits<int>::max()));
        return std::string();
      },
      "");
}

}  // namespace xb::app
