// nvbandwidth-compatible reporters: the text and JSON that nvbandwidth
// prints, rendered from xferbench's result records, so that the programs
// which already parse nvbandwidth (superbench, node health checks, DCGM's
// nvbandwidth plugin) read xferbench unchanged. The text comes in two
// layouts, each line for line as that release prints it (numbers and
// version strings aside): v0.10.0's (the default) and v0.8's. The golden
// files are real output of both (tests/data/nvbandwidth-v0.10.0-public/,
// bench/results/2026-11-23-h200/nvbandwidth-v0.8.txt). The JSON follows
// v0.8's json_output.cpp with v0.9's aggregates and the newer "Not Found"
// status. docs/nvbandwidth.md shows both layouts and lists every place
// where the content differs.
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

// Which nvbandwidth release's text layout to print (--nvbandwidth-version).
enum class NvbLayout { v0_8, v0_10 };
// "0.8" or "0.10" (a leading 'v' allowed); throws Error(usage) naming any other value.
NvbLayout parse_nvb_layout(const std::string& version);

// A -t name or index that names no case. nvbandwidth reports it where it
// comes in the list of cases and measures the others: here before the
// `before`-th case of the run (the run's case count or more: after the last).
struct NvbNotFound {
  std::string name;
  std::size_t before = 0;
};

struct NvbOptions {
  bool verbose = false;         // -v: per-sample lines and MIN/MAX/AVG after each matrix
  bool perf_formatter = false;  // --perfFormatter: "&&&& PERF key sum +GB/s" instead of "SUM key sum"
  NvbLayout layout = NvbLayout::v0_10;
  std::vector<NvbNotFound> not_found;  // reported in the text and the JSON, in place
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
// CPU(row) -> GPU(column) bandwidth (GB/s)" (v0.8 and v0.10.0 word them
// alike); the xferbench title for a case that nvbandwidth does not have.
std::string nvb_description(const CaseResult& c, std::size_t index);
// The name on the SUM line: the case name, with "_read1", "_total", ... for
// the three matrices of a bidirectional GPU <-> GPU case.
std::string nvb_key(const CaseResult& c, std::size_t index);
// "0000:00:06.0" -> "00000000:00:06", as nvbandwidth prints a PCI address.
std::string nvb_pci_address(const std::string& bus_id);

// --- text ------------------------------------------------------------------
// A run's text, printed as it is measured: the preamble, each case, then
// nvbandwidth's note. Preamble: the version lines, a NOTE line when the
// buffer is below nvbandwidth's default, the CUDA and driver lines (v0.10:
// "CUDA Runtime Version: 13.0 (13000)", "CUDA Driver Version (API): ...";
// v0.8: the bare numbers), and in v0.8 only the host name and one line per
// GPU. A case: "Running NAME." and its matrices, each with its SUM line;
// v0.10 adds COEFFICIENT_OF_VARIATION after the SUM of a case's last matrix
// (none for device_to_device_latency_sm). The "ERROR: Testcase ..." line of
// each unknown name (NvbOptions::not_found) comes where that name was listed.
class NvbTextPrinter {
 public:
  NvbTextPrinter(std::ostream& os, const NvbOptions& o) : os_(os), options_(o) {}
  void header(const System& sys, std::uint64_t buffer_bytes);
  // "Running NAME." and the case's matrices with their SUM (and CoV) lines;
  // nvbandwidth's bare "Waived: " line, or "Error: MESSAGE", for a case
  // without numbers.
  void test_case(const CaseResult& c);
  // After the last case: the unknown names not reported yet, then the note.
  void footer();

 private:
  void not_found_lines(std::size_t before);
  std::ostream& os_;
  NvbOptions options_;
  std::size_t cases_ = 0;  // test_case calls so far
  std::size_t reported_ = 0;  // options_.not_found entries printed so far
};
// One case as NvbTextPrinter prints it, without the note.
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
// The "nvbandwidth" object: versions, device list, one entry per case, an
// entry with status "Not Found" for each unknown name, in place.
nlohmann::json nvb_json(const RunResult& run, const std::vector<NvbNotFound>& not_found = {});
// The document for a run that measured nothing: an entry "Not Found" for
// each unknown name, and `error` (if not empty) as the top-level "error".
// The top-level keys that nvbandwidth always writes come from `sys`; a
// System not read from the machine (bad input is reported before any GPU is
// touched) gives "CUDA Runtime Version" 0 and "Driver Version" "unknown".
nlohmann::json nvb_json_unmeasured(const System& sys, const std::vector<NvbNotFound>& not_found,
                                   const std::string& error);
// nvbandwidth indents its JSON by three spaces; the text ends with a newline.
std::string nvb_json_text(const nlohmann::json& doc);

}  // namespace xb::report
