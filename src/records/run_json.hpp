// The run record (RunResult) as JSON, schema "xferbench-run" version 1
// (what 'xferbench run -o' and --format json write), in both directions.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "records/result.hpp"

namespace xb::records {

inline constexpr int kSchemaVersion = 1;
inline constexpr const char* kSchemaName = "xferbench-run";

nlohmann::json run_json(const RunResult& run);
// Bytes per GPU and host: {"gpu_bytes", "host_bytes", "host_page_locked_bytes"}.
nlohmann::json amount_json(const MemoryAmount& a);

// Every section run_json() writes; only "cases" is required (compare reads
// hand-made documents with nothing else). Error(usage) "NAME is a
// malformed xferbench-run result: FIELD: PROBLEM". The schema is the
// caller's to check.
RunResult decode_run(const nlohmann::json& doc, const std::string& name);

}  // namespace xb::records
