// Reporters: the only code that formats numbers. Text tables for people,
// JSON (versioned schema, units in field names) and CSV for programs.
#pragma once

#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "records/result.hpp"
#include "machine/topology.hpp"
#include "records/document.hpp"
#include "records/run_json.hpp"
#include "records/system_json.hpp"

namespace xb::report {

// The run codec's encoders and schema (records/), under the names the
// reporters and commands call.
using records::amount_json;
using records::kSchemaName;
using records::kSchemaVersion;
using records::run_json;
using records::system_json;
using records::tool_json;

// --- text ------------------------------------------------------------------
void text_run_header(std::ostream& os, const RunResult& run);
void text_case(std::ostream& os, const CaseResult& c);
void text_run_footer(std::ostream& os, const RunResult& run);
// "# reference cells at the start: ..." (the drift check's first half).
void text_stability_start(std::ostream& os, const Stability& s);
// One line: measured peak GPU memory per GPU, peak host RSS, the pool's budget.
void text_memory_line(std::ostream& os, const MemoryCost& m);
void text_list(std::ostream& os, const System& sys);
void text_cases(std::ostream& os);  // the catalogue

// --- JSON ------------------------------------------------------------------
nlohmann::json cases_json();

// "INTERRUPTED" for "interrupted": a verdict as summary lines shout it.
std::string upper_case(std::string s);

// --- CSV -------------------------------------------------------------------
// One row per measured cell, with a header row.
std::string run_csv(const RunResult& run);
std::string csv_escape(const std::string& field);

}  // namespace xb::report
