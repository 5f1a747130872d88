// Reporters: the only code that formats numbers. Text tables for people,
// JSON (versioned schema, units in field names) and CSV for programs.
#pragma once

#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "records/result.hpp"
#include "machine/topology.hpp"

namespace xb::report {

inline constexpr int kSchemaVersion = 1;
inline constexpr const char* kSchemaName = "xferbench-run";

// --- text ------------------------------------------------------------------
void text_run_header(std::ostream& os, const RunResult& run);
void text_case(std::ostream& os, const CaseResult& c);
void text_run_footer(std::ostream& os, const RunResult& run);
// "# reference cells at the start: ..." (the drift check's first half).
void text_stability_start(std::ostream& os, const Stability& s);
nlohmann::json stability_json(const Stability& s);
// One line: measured peak GPU memory per GPU, peak host RSS, the pool's budget.
void text_memory_line(std::ostream& os, const MemoryCost& m);
void text_list(std::ostream& os, const System& sys);
void text_cases(std::ostream& os);  // the catalogue

// --- JSON ------------------------------------------------------------------
nlohmann::json system_json(const System& sys);
// Bytes per GPU and host: {"gpu_bytes", "host_bytes", "host_page_locked_bytes"}.
nlohmann::json amount_json(const MemoryAmount& a);
nlohmann::json run_json(const RunResult& run);
// {"name", "version", "git"} of this build, in every result.
nlohmann::json tool_json();
// passed / failed for a complete run, else interrupted / partial.
std::string run_status_text(const RunResult& run);
// Time limit, resume source and, for an incomplete run, why and what is missing.
nlohmann::json stop_json(const RunResult& run);
// The same section for any command's result (pingpong, first-touch): the
// time limit, and for an incomplete result its reason, message and not_run.
nlohmann::json stop_section_json(RunStatus status, StopReason stop, const std::string& message,
                                 const std::vector<std::string>& not_run, double time_limit_s);
// {"gbps", "formula", "source"}, or null for an unknown peak.
nlohmann::json peak_json(const Peak& p);
nlohmann::json cases_json();

// "INTERRUPTED" for "interrupted": a verdict as summary lines shout it.
std::string upper_case(std::string s);

// --- CSV -------------------------------------------------------------------
// One row per measured cell, with a header row.
std::string run_csv(const RunResult& run);
std::string csv_escape(const std::string& field);

}  // namespace xb::report
