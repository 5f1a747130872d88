// nvbandwidth-compatible reporters: the text and JSON that nvbandwidth
// prints, rendered from xferbench's result records, so that the programs
// which already parse nvbandwidth (superbench, node health checks, DCGM's
// nvbandwidth plugin) read xferbench unchanged. The text comes in two
// layouts: v0.10's (the default: its case headers, a
// COEFFICIENT_OF_VARIATION line per matrix, the note inside the first case)
// and v0.8's (output.cpp and its matrix printer, no CoV line). The JSON
// follows v0.8's json_output.cpp with v0.9's aggregates.
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

// Which nvbandwidth release's text layout to print (--nvbandwidth-version).
enum class NvbLayout { v0_8, v0_10 };
// "0.8" or "0.10" (a leading 'v' allowed); throws Error(usage) naming any other value.
NvbLayout parse_nvb_layout(const std::string& version);

struct NvbOptions {
  bool verbose = false;         // -v: per-sample lines and MIN/MAX/AVG after each matrix
  bool perf_formatter = false;  // --perfFormatter: "&&&& PERF key sum +GB/s" instead of "SUM key sum"
  NvbLayout layout = NvbLayout::v0_10;
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
// CPU(row) -> GPU(column) bandwidth (GB/s)", as `layout` words it (v0.10
// names a device-to-host matrix "GPU(row) -> CPU(column)" and points a
// GPU <-> GPU arrow the way the data moves); the xferbench title for a case
// that nvbandwidth does not have.
std::string nvb_description(const CaseResult& c, std::size_t index, NvbLayout layout = NvbLayout::v0_10);
// The name on the SUM line: the case name, with "_read1", "_total", ... for
// the three matrices of a bidirectional GPU <-> GPU case.
std::string nvb_key(const CaseResult& c, std::size_t index);
// "0000:00:06.0" -> "00000000:00:06", as nvbandwidth prints a PCI address.
std::string nvb_pci_address(const std::string& bus_id);

// --- text ------------------------------------------------------------------
// A run's text, printed as it is measured: the header, then each case.
// Header: version, CUDA and driver lines, the host name and one line per
// GPU, the NOTE line when the buffer is below nvbandwidth's default. Then
// xferbench's two-line note on what the numbers are: in the v0.8 layout
// after the device list (nvbandwidth v0.8 prints its note after the last
// case, where shell parsers would read it as matrix rows); in the v0.10
// layout where v0.10 prints its note, after the first matrix's SUM and
// COEFFICIENT_OF_VARIATION lines.
class NvbTextPrinter {
 public:
  NvbTextPrinter(std::ostream& os, const NvbOptions& o) : os_(os), options_(o) {}
  void header(const System& sys, std::uint64_t buffer_bytes);
  // "Running NAME." and the case's matrices with their SUM (and CoV) lines;
  // nvbandwidth's bare "Waived: " line, or "Error: MESSAGE", for a case
  // without numbers.
  void test_case(const CaseResult& c);

 private:
  std::ostream& os_;
  NvbOptions options_;
  bool note_due_ = false;  // v0.10: the note follows the first matrix printed
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
// The "nvbandwidth" object: versions, device list, one entry per case.
nlohmann::json nvb_json(const RunResult& run);
// The document for a run that stopped before measuring: unknown cases get
// status "Not Found", and `error` (if not empty) the top-level "error".
nlohmann::json nvb_json_not_found(const std::vector<std::string>& names, const std::string& error);
// nvbandwidth indents its JSON by three spaces; the text ends with a newline.
std::string nvb_json_text(const nlohmann::json& doc);

}  // namespace xb::report
