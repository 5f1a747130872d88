// Checks for option values that their type alone would let through (an
// empty size, a negative count that happens to equal an internal
// "not given" marker). They run while CLI11 parses and throw Error(usage)
// naming the option as the user knows it and the value, so the message is
// one line and the exit code 2, like every other usage error.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "base/error.hpp"
#include "base/units.hpp"

namespace xb::app {

// A validator that runs `check` on the value as typed; `check` throws.
template <typename Check>
CLI::Validator checked_by(Check check) {
  return CLI::Validator(
      [check](std::string& v) {
        check(v);
        return std::string();
      },
      "");
}

// The value must not be empty ("--buffer-size ''").
inline CLI::Validator non_empty(const std::string& flag) {
  return checked_by([flag](const std::string& v) {
    if (v.empty()) fail(ErrorKind::usage, fmt::format("invalid {} '': the value is empty", flag));
  });
}

// The value must be a whole number from `min` to INT_MAX ("-i -1", "-i 0").
inline CLI::Validator int_at_least(const std::string& flag, int min) {
  return checked_by([flag, min](const std::string& v) {
    std::int64_t n = -1;
    try {
      n = parse_int(v, flag);
    } catch (const Error&) {
      n = -1;
    }
    if (n < min || n > std::numeric_limits<int>::max())
      fail(ErrorKind::usage, fmt::format("invalid {} '{}': expected a whole number from {} to {}", flag, v, min,
                                         std::numeric_limits<int>::max()));
  });
}

// A size (K/M/G binary suffixes) above 0 ("--step 0").
inline std::uint64_t positive_size(const std::string& v, const std::string& flag) {
  const std::uint64_t bytes = parse_size(v, flag);
  if (bytes == 0) fail(ErrorKind::usage, fmt::format("invalid {} '{}': must be greater than 0", flag, v));
  return bytes;
}

// Digits only, fitting in 64 bits ("--seed -1": CLI11 alone would take it
// as 2^64 - 1, and "--seed ''" as 0).
inline std::uint64_t parse_unsigned(const std::string& v, const std::string& flag) {
  bool ok = !v.empty() && v.size() <= 20 && v.find_first_not_of("0123456789") == std::string::npos;
  if (ok && v.size() == 20) ok = v <= "18446744073709551615";  // the largest 20-digit value that fits
  if (!ok)
    fail(ErrorKind::usage, fmt::format("invalid {} '{}': expected a whole number from 0 to {}", flag, v,
                                       std::numeric_limits<std::uint64_t>::max()));
  return std::stoull(v);
}

inline CLI::Validator unsigned_number(const std::string& flag) {
  return checked_by([flag](const std::string& v) { (void)parse_unsigned(v, flag); });
}

// How a message names an option: every spelling, "-i/--samples".
inline std::string option_label(const CLI::Option& opt) {
  std::string out;
  for (const auto& s : opt.get_snames()) out += (out.empty() ? "-" : "/-") + s;
  for (const auto& l : opt.get_lnames()) out += (out.empty() ? "--" : "/--") + l;
  return out;
}

// Every named option of `cmd` that takes a value refuses an empty one: ""
// would otherwise read as "not given" and fall back to the default without
// a word ("check --spec ''" judging against the built-ins). Call it after
// the command's options are added. Options whose value is optional (--sms
// [LIST]) and positional arguments (their command names the field) are
// left alone.
inline void reject_empty_values(CLI::App& cmd) {
  for (CLI::Option* opt : cmd.get_options()) {
    if (opt->get_type_size() == 0 || opt->get_expected_min() == 0) continue;
    if (opt->get_snames().empty() && opt->get_lnames().empty()) continue;
    opt->check(non_empty(option_label(*opt)));
  }
}

// Every option of `cmd` that takes a floating-point number refuses one a
// double cannot hold: CLI11 alone reads "1e400" as infinity, which a check
// such as "at least 0" lets through ("--tolerance 1e400"), and "inf" or
// "nan" the same. Call it after the command's options are added.
inline void reject_non_finite_numbers(CLI::App& cmd) {
  for (CLI::Option* opt : cmd.get_options()) {
    if (opt->get_type_name() != "FLOAT") continue;
    const std::string label = option_label(*opt);
    opt->check(checked_by([label](const std::string& v) {
      char* end = nullptr;
      const double x = std::strtod(v.c_str(), &end);  // an overflow reads as infinity, an underflow as ~0 (fine)
      if (!v.empty() && end == v.c_str() + v.size() && std::isfinite(x)) return;
      fail(ErrorKind::usage, fmt::format("invalid {} '{}': not a finite number a double can hold", label, v));
    }));
  }
}

// Options whose value is optional (--sms [LIST], --sweep-overalloc [LIST])
// cannot tell "--sms" from "--sms=" once parsed: both leave an empty
// result. The command line can: "--NAME=" or "--NAME ''" gives a value and
// it is empty. Returns that option's label for the first command of `root`
// (or `root` itself) that has it, "" when no such spelling is in `args`.
inline std::string optional_value_given_empty(const CLI::App& root, const std::vector<std::string>& args) {
  std::vector<const CLI::App*> apps = {&root};
  for (const CLI::App* sub : root.get_subcommands({})) apps.push_back(sub);
  for (const CLI::App* app : apps)
    for (const CLI::Option* opt : app->get_options()) {
      if (opt->get_type_size() == 0 || opt->get_expected_min() != 0) continue;
      for (const std::string& name : opt->get_lnames())
        for (std::size_t i = 0; i < args.size(); ++i)
          if (args[i] == "--" + name + "=" || (args[i] == "--" + name && i + 1 < args.size() && args[i + 1].empty()))
            return option_label(*opt);
    }
  return "";
}

// The seed tools' own parsers report errors in their own way, so they ask
// after parsing: the first named option given an empty value, as
// option_label names it; "" when none was.
inline std::string option_given_empty(const CLI::App& app) {
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->get_type_size() == 0 || opt->get_expected_min() == 0) continue;
    for (const std::string& v : opt->results())
      if (v.empty()) return option_label(*opt);
  }
  return "";
}

}  // namespace xb::app
