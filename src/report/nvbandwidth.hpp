// nvbandwidth-compatible reporters: the text and JSON that nvbandwidth
// prints, rendered from xferbench's result records, so that the programs
// which already parse nvbandwidth (superbench, node health checks, DCGM's
// nvbandwidth plugin) read xferbench unchanged. The layout follows
// nvbandwidth v0.8's output.cpp and json_output.cpp plus the line v0.9 added
// (COEFFICIENT_OF_VARIATION, here with v0.10's run-to-run meaning);
// docs/nvbandwidth.md lists every place where the content differs.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "records/result.hpp"
#include "machine/topology.hpp"

namespace xb {
struct CaseDef;
}

namespace xb::report {

struct NvbOptions {
  bool verbose = false;         // -v: per-sample lines and MIN/MAX/AVG after each matrix
  bool perf_formatter = false;  // --perfFormatter: "&&&& PERF key sum +GB/s" instead of "SUM key sum"
};

// nvbandwidth's default buffer (512 MiB); smaller ones get a NOTE line.
inline constexpr std::uint64_t kNvbDefaultBufferBytes = 512ull << 20;
inline constexpr const char* kNvbSmallBufferNote =
    "NOTE: the buffer size is below nvbandwidth's default of 512 MiB, which reaches higher peak bandwidth.";

// Aggregates of one matrix over its measured cells; cells that are "N/A"
// (not measured) are skipped, as v0.9's JSON does. `cov` is the largest
// run-to-run coefficient of variation (stddev / mean over a cell's
// samples) of any cell; has_cov is false when no cell has two samples.
struct NvbMatrixStats {
  double sum = 0, min = 0, max = 0, average = 0;
  int count = 0;
  double cov = 0;
  bool has_cov = false;
};
NvbMatrixStats nvb_matrix_stats(const Matrix& m);

// nvbandwidth's header line of matrix `index` of a case, e.g. "memcpy CE
// CPU(row) -> GPU(column) bandwidth (GB/s)"; the xferbench title for a case
// that nvbandwidth does not have.
std::string nvb_description(const CaseResult& c, std::size_t index);
// The name on the SUM line: the case name, with "_read1", "_total", ... for
// the three matrices of a bidirectional GPU <-> GPU case.
std::string nvb_key(const CaseResult& c, std::size_t index);
// "0000:00:06.0" -> "00000000:00:06", as nvbandwidth prints a PCI address.
std::string nvb_pci_address(const std::string& bus_id);

// --- text ------------------------------------------------------------------
// Version, CUDA and driver lines, the host name and one line per GPU, the
// NOTE line when the buffer is below nvbandwidth's default, and xferbench's
// note on what the numbers are. (nvbandwidth prints its note after the last
// case; there it would join the last case's block, which shell parsers read
// as matrix rows.)
void nvb_text_header(std::ostream& os, const System& sys, std::uint64_t buffer_bytes);
// "Running NAME." and the case's matrices with their SUM lines; nvbandwidth's
// bare "Waived: " line, or "Error: MESSAGE", for a case without numbers.
void nvb_text_case(std::ostream& os, const CaseResult& c, const NvbOptions& o);
// Why a case was waived, for stderr: stdout keeps nvbandwidth's bare
// "Waived: " because text after it would join the previous case's block for
// shell parsers. Empty for a case that was not waived.
std::string nvb_waiver_line(const CaseResult& c);
// --list: "N, name:" and the description of each case (callers pass the
// cases a default run runs, so a client that lists and then expects every
// listed case to have run finds them all).
void nvb_text_list(std::ostream& os, const std::vector<const CaseDef*>& cases);
// -v: "\tSample 0: Host -> Device 0: 42.46 GB/s" for each sample of each
// reported value ("Total Bandwidth" for the all-to-one and one-to-all cases).
void nvb_sample_lines(std::ostream& os, const CaseResult& c);
// "ERROR: Testcase NAME not found!" (or "... index N out of bound!").
std::string nvb_not_found_line(const std::string& name_or_index);

// --- JSON ------------------------------------------------------------------
// The "nvbandwidth" object: versions, device list, one entry per case.
nlohmann::json nvb_json(const RunResult& run);
// The document for a run that stopped before measuring: unknown cases get
// status "Not Found", and `error` (if not empty) the top-level "error".
nlohmann::json nvb_json_not_found(const std::vector<std::string>& names, const std::string& error);
// nvbandwidth indents its JSON by three spaces; the text ends with a newline.
std::string nvb_json_text(const nlohmann::json& doc);

}  // namespace xb::report
