// Enum <-> text through one table of {value, name} pairs, so a to_string()
// and its parser read the same spellings and cannot drift apart.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "base/error.hpp"

namespace xb {

template <typename E>
using Named = std::pair<E, const char*>;

// The name of `value`, or `unknown` when the table lacks it.
template <typename E, std::size_t N>
constexpr const char* lookup_name(const Named<E> (&table)[N], E value, const char* unknown = "?") noexcept {
  for (const auto& [v, name] : table)
    if (v == value) return name;
  return unknown;
}

template <typename E, std::size_t N>
std::optional<E> lookup_value(const Named<E> (&table)[N], const std::string& text) {
  for (const auto& [v, name] : table)
    if (text == name) return v;
  return std::nullopt;
}

// lookup_value() or Error(usage) "invalid WHAT 'TEXT': use CHOICES".
template <typename E, std::size_t N>
E parse_named(const Named<E> (&table)[N], const std::string& text, const char* what, const char* choices) {
  if (const auto v = lookup_value(table, text)) return *v;
  fail(ErrorKind::usage, fmt::format("invalid {} '{}': use {}", what, text, choices));
}

}  // namespace xb
