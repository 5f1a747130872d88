// Reporters for 'xferbench compare': a text table of every compared value
// between `#` header and footer lines (the footer holds the summary and the
// verdict), JSON (schema "xferbench-compare", version 1) and CSV.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "compare/compare.hpp"

namespace xb::report {

std::string compare_text(const CompareResult& r, const std::string& old_name, const std::string& new_name);
nlohmann::json compare_json(const CompareResult& r, const std::string& old_name, const std::string& new_name);
std::string compare_csv(const CompareResult& r);

}  // namespace xb::report
