// Reporters for size sweeps: a text table (a row per series and size, in
// the order measured) between `#` header and footer lines, JSON (schema "xferbench-sweep", version 1, units in field
// names) and CSV (one row per series and size, the series' fit repeated on
// each of its rows so every row stands alone).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cases/sm_sweep.hpp"
#include "cases/sweep.hpp"
#include "cases/sweep_json.hpp"

namespace xb::report {

std::string sweep_text(const SweepResult& r);
// sweep_text in three parts, so rows are printed as each size is measured:
// the header (needs only the request's fields), the rows added to `r` since
// the last call (`printed` counts the rows shown per series; start empty),
// and the footer (per series link, peak and fit; status).
std::string sweep_text_header(const SweepResult& r);
std::string sweep_text_new_rows(const SweepResult& r, std::vector<std::size_t>& printed);
std::string sweep_text_footer(const SweepResult& r);
std::string sweep_csv(const SweepResult& r);

// The SM budget sweep (`xferbench sweep --sms`): a table per series (SM
// count, GB/s, % of the link's peak, % of the all-SM figure) and the SM
// counts reaching 90% / 95%; CSV.
std::string sm_sweep_text(const SmSweepResult& r);
std::string sm_sweep_csv(const SmSweepResult& r);

}  // namespace xb::report
