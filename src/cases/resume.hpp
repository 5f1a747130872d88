// --resume FILE: an interrupted or partial run JSON is read back, checked to
// come from this machine, this build and the same settings, and its cells
// are kept: the new run measures only the missing ones and writes one
// merged result.
//
// The file is decoded by its record's codec (records/); a merged result
// keeps its cells and case verdicts (environment and settings are those of
// the new run, checked equal through the identity). Every problem is
// Error(usage) with one line naming the file and the reason.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "records/result.hpp"
#include "records/system_json.hpp"

namespace xb {

// Options that do not change what is measured, left out of the command-line
// comparison: --resume, --time-limit, -o/--output, --format, -j/--json, -q/--quiet.
std::vector<std::string> comparable_args(const std::vector<std::string>& argv);

// The identity of this process for a run on `sys`, and the one recorded in
// a run, sweep or scenario document (Error(usage) "cannot resume NAME: ..."
// when it lacks one); their args are comparable_args of the command lines.
records::RunIdentity identity_of(const System& sys, const std::vector<std::string>& argv);
records::RunIdentity identity_of(const nlohmann::json& doc, const std::string& name);

// Throws Error(usage) "cannot resume NAME: ..." naming the first difference.
void check_same_identity(const records::RunIdentity& then, const records::RunIdentity& now, const std::string& name);

// Reads --resume FILE as JSON of the given schema ("xferbench-run" or
// "xferbench-sweep"); nothing when `path` is empty (no --resume).
// Error(usage) naming the file when it cannot be read, is not JSON or is
// another kind of result. Commands call it before looking for GPUs: a file
// that cannot be read is a mistake on any machine (exit 2, not 3).
std::optional<nlohmann::json> read_resume_file(const std::string& path, const std::string& schema);

// True when `r` holds the cell "CASE[ROW,COL]" (measured, or failed with an error).
bool has_cell(const RunResult& r, const std::string& key);

// Adds to `fresh` (a run that skipped the cells `old` has) the cells and
// case verdicts of `old`: one result, as if measured in one go.
void merge_resumed(RunResult& fresh, const RunResult& old);

}  // namespace xb
