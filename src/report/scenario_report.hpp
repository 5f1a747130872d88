// Reporters for concurrent scenarios (xferbench run --do / CUts flags,
// xferbench cuts): a text table with multi-gpu-bwtest's columns plus memory
// kind, GB/s, % of peak and verification; the scenario figures, each with a
// label that says what it divides by; an ASCII timeline; CUts' own lines;
// JSON (schema "xferbench-scenario") and CSV (one row per transfer).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "cases/concurrent.hpp"

namespace xb::report {

inline constexpr const char* kScenarioSchemaName = "xferbench-scenario";
inline constexpr int kScenarioSchemaVersion = 1;

// `width` characters: '#' for every column whose slice of [0, span_s]
// overlaps [start_s, end_s], '.' elsewhere (times outside the span are
// clipped; an empty interval gives no '#').
std::string timeline_bar(double start_s, double end_s, double span_s, int width);

// "30 us", "659 us", "1.23 ms", "4.45 s": bwtest's "Time elapsed" style.
std::string duration_text(double seconds);

// The full report: header, table, scenario figures, timeline.
void scenario_text(std::ostream& os, const ScenarioResult& r);

// CUts' lines: "Launching Device to Host transfers with Device 0 (Host
// buffer allocated on NUMA node 3)" before the run (from a described,
// unmeasured result) ...
void cuts_launch_text(std::ostream& os, const ScenarioResult& described);
// ... and "Completed." then "Transfer 0 - Direct transfers with device 0
// (Device to Host): 24.146 GB/s  (4.45 seconds)" after it.
void cuts_result_text(std::ostream& os, const ScenarioResult& r);

// A scenario that was stopped before its samples were complete, or whose
// measurement failed: the header, why, and the transfers it would have run.
void scenario_not_measured_text(std::ostream& os, const ScenarioResult& r);

// Status passed / failed, or interrupted / partial with a "stop" section
// (then every measured field is null), or failed with "error".
nlohmann::json scenario_json(const ScenarioResult& r);

// Header row, then one row per transfer; the scenario figures repeat on
// every row so each row stands alone in a spreadsheet.
std::string scenario_csv(const ScenarioResult& r);

}  // namespace xb::report
