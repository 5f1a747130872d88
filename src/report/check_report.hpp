// Reporters for 'xferbench check': text for the terminal (lint findings,
// one verdict line per link, the failing cells, the verdict), the run JSON
// with a "check" section, JUnit XML, a one-line summary for node-health
// scripts, and the fleet table and JUnit that rank 0 writes under a
// launcher (the fleet's JSON is fleet_report.hpp's, as for run and sweep).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "check/node.hpp"
#include "fleet/summary.hpp"

namespace xb::report {

// Why a cell passed, failed or was not judged, in one line:
// "26.10 GB/s < 47.26 GB/s (75% of the 63.02 GB/s peak of PCIe Gen5 x16) [built-in]".
std::string check_cell_reason(const check::CheckCell& c);

// "xferbench check: PASS ..." or "xferbench check: FAIL <first failing cell>; lint: <first error>".
std::string check_summary_line(const check::CheckResult& r);

void text_check(std::ostream& os, const check::CheckResult& r);

// The run JSON with a "check" section added.
nlohmann::json check_json(const check::CheckResult& r);

// JUnit XML: suites "lint" (one test per rule), "links" (one per link) and
// "cells" (one per cell); failures carry the reason, unjudged cells and
// skipped rules are <skipped/>.
std::string check_junit(const check::CheckResult& r);
// Text escaped for XML 1.0 content and attribute values; characters XML 1.0
// cannot hold (control characters but tab, newline, return) become U+FFFD.
std::string xml_escape(const std::string& text);

// The fleet of checks: one row per node (host, verdict, wall time, the
// summary line of its result's "check" section, or its error) and the
// fleet's verdict, from f.exit_code (fleet::acceptance_exit_code).
void text_fleet(std::ostream& os, const fleet::Fleet& f);
// JUnit for a fleet: one test per node, failed with its summary line.
std::string fleet_junit(const fleet::Fleet& f);

}  // namespace xb::report
