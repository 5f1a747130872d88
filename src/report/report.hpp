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

// 'xferbench list' as CSV: one table with a `record` column, because it
// holds three kinds of rows (GPUs, links with their theoretical peaks, NUMA
// nodes); columns that do not apply to a record are empty.
// record=gpu: id, name, pci_bus_id, compute_capability, sm_count,
//   memory_bytes, numa_node, pcie_current, pcie_max, nvlinks, copy_engines.
// record=link: from, to, kind (pcie|memory|nvlink|none), link, nvlinks,
//   peer_access, peak_gbps, peak_formula, peak_source: host->gpuN over
//   PCIe, gpuN->gpuN device memory, gpuA->gpuB for every pair.
// record=numa: id, cpus, memory_bytes, free_bytes.
std::string system_csv(const System& sys);

// 'xferbench cases' as CSV: index, name, engine, description.
std::string cases_csv();

}  // namespace xb::report
