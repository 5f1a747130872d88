// Reporters for first-touch results: the seed's per-sub-iteration lines
// plus `#` summary tables (text), JSON (schema "xferbench-first-touch",
// version 1, units in field names, one row per variant so `xferbench plot`
// can draw a sweep) and CSV (one row per variant). They read
// firsttouch::Result only and are the only code that formats its numbers.
#pragma once

#include <string>
#include <vector>

#include "firsttouch/result.hpp"

namespace xb::report {

inline constexpr const char* kFirstTouchSchema = "xferbench-first-touch";
inline constexpr int kFirstTouchSchemaVersion = 1;

// seed: the reproducer's own lines only (report/seed_formats.hpp).
enum class FirstTouchFormat { text, json, csv, seed };
FirstTouchFormat parse_first_touch_format(const std::string& text);  // Error(usage)

std::string first_touch_text(const firsttouch::Result& r);
std::string first_touch_json(const firsttouch::Result& r, const std::vector<std::string>& argv);
std::string first_touch_csv(const firsttouch::Result& r);
std::string render_first_touch(const firsttouch::Result& r, FirstTouchFormat f, const std::vector<std::string>& argv);

}  // namespace xb::report
