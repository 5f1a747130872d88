// Parsing of sizes and counts typed by users. Suffixes are binary:
// K = KiB = 1024, M = MiB = 1024^2, G, T likewise (case-insensitive,
// an optional trailing "B" or "iB" is accepted). Errors name the text.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace xb {

// "512", "64K", "1MiB", "2g" -> bytes. Throws Error(usage) naming `what`.
std::uint64_t parse_size(const std::string& text, const std::string& what = "size");
// Non-negative decimal integer that fits in int64; throws Error(usage).
std::int64_t parse_int(const std::string& text, const std::string& what);
// Comma-separated list of non-negative integers: "1,0" -> {1, 0}.
std::vector<int> parse_int_list(const std::string& text, const std::string& what);
// Ascending integers as ranges, joined by `sep`: {0, 1, 2, 5} -> "0-2,5".
std::string int_ranges(const std::vector<int>& values, const char* sep = ",");

// "1.00 KiB", "512 MiB": for labels in error messages and case names only;
// reporters format numbers themselves.
std::string bytes_label(std::uint64_t bytes);

}  // namespace xb
