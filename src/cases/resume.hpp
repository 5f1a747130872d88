// --resume FILE: an interrupted or partial run JSON is read back, checked to
// come from this machine, this build and the same settings, and its cells
// are kept: the new run measures only the missing ones and writes one
// merged result.
//
// The reader covers what a merged result needs (cases, matrices, cells;
// environment and settings are those of the new run, checked equal), and
// the identity it is checked against. Every problem is Error(usage) with
// one line naming the file and the reason.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "machine/topology_file.hpp"

#include "records/result.hpp"

namespace xb {

struct GpuIdentity {
  int index = 0;
  std::string name, uuid, bus_id;  // uuid "" when the result predates it
  std::string text() const;        // "gpu0 NVIDIA H200 GPU-1234... 00000000:18:00.0"
};

// What must be equal for a result to be resumed: machine, build, settings.
struct RunIdentity {
  std::string hostname;
  std::vector<GpuIdentity> gpus;
  std::string version;            // xferbench version
  std::string git;                // commit the binary was built from ("" = unknown)
  std::vector<std::string> args;  // command line without the program name and the
                                  // options that may differ (comparable_args)
};

// Options that do not change what is measured, left out of the command-line
// comparison: --resume, --time-limit, -o/--output, --format, -j/--json, -q/--quiet.
std::vector<std::string> comparable_args(const std::vector<std::string>& argv);

// The identity of this process for a run on `sys`.
RunIdentity identity_of(const System& sys, const std::vector<std::string>& argv);
// The identity recorded in a run or sweep JSON document.
RunIdentity identity_of(const nlohmann::json& doc, const std::string& name);

// Throws Error(usage) "cannot resume NAME: ..." naming the first difference.
void check_same_identity(const RunIdentity& then, const RunIdentity& now, const std::string& name);

// Reads a file as JSON of the given schema ("xferbench-run" or
// "xferbench-sweep"); Error(usage) naming the file when it cannot be read,
// is not JSON or is another kind of result.
nlohmann::json read_result_file(const std::string& path, const std::string& schema);
// read_result_file for --resume FILE; nothing when `path` is empty (no
// --resume). Commands call it before looking for GPUs: a file that cannot
// be read is a mistake on any machine (exit 2, not 3).
std::optional<nlohmann::json> read_resume_file(const std::string& path, const std::string& schema);

// The cases of a run JSON document (cells with their samples and checks).
// `resumed_from` is set to `name`.
RunResult run_from_json(const nlohmann::json& doc, const std::string& name);

// The one reader of a run JSON's "cases" array (resume, and
// report::run_from_json for whole runs). Fields added over time may be
// absent; a case without "matrices", or a mistyped field, is an
// Error(usage) naming `name`.
std::vector<CaseResult> cases_from_json(const nlohmann::json& cases, const std::string& name);

// True when `r` holds the cell "CASE[ROW,COL]" (measured, or failed with an error).
bool has_cell(const RunResult& r, const std::string& key);

// Adds to `fresh` (a run that skipped the cells `old` has) the cells and
// case verdicts of `old`: one result, as if measured in one go.
void merge_resumed(RunResult& fresh, const RunResult& old);

// Helper for the other readers (sweep): a Summary from its JSON (Peak:
// peak_from_json, machine/topology_file.hpp).
Summary summary_from_json(const nlohmann::json& stats, const std::string& unit, int count);

}  // namespace xb
