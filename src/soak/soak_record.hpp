// A soak run's records (xferbench soak, check --soak): one JSON Lines file,
// appended line by line as the soak measures, so a killed soak loses at most
// the line in flight. Line kinds (field "type"):
//   "header"  first line: schema, command line, start time, the node, the cases
//   "sample"  one measured value of one cell, with the telemetry read right after it
//   "resume"  a --resume continued the file here (t_s keeps counting from the last sample)
//   "end"     the soak ended (completed, or why not); the summary is recomputed from the samples
// Pure data and its codec; no CUDA, no NVML.
//
// Field names are the struct members' names below; an empty optional is
// written as null, an empty error and an empty xids list are left out:
//   {"type":"header","schema":"xferbench.soak","schema_version":1,"command_line":[...],
//    "start_time_utc":"...","host":"...","gpus":["gpu0 NVIDIA H200 GPU-..."],"cases":[...],"duration_s":300}
//   {"type":"sample","t_s":12.5,"time_utc":"...","round":1,"cell":"host_to_device_memcpy_ce[0,0]",
//    "unit":"gbps","value":55.1,"peak_gbps":63.02,"idle_ns":null,"load_gbps":null,"load_pct":null,
//    "verified":true,"telemetry":[{"gpu":0,"temperature_c":41,"power_w":130.5,"sm_clock_mhz":1980,
//    "mem_clock_mhz":3201,"clock_reasons":0,"ecc_corrected":0,"ecc_uncorrected":0,
//    "rows_remapped_correctable":0,"rows_remapped_uncorrectable":0,"row_remap_pending":false,
//    "row_remap_failure":false,"pcie_replays":0,"xids":[79]}]}
//   {"type":"resume","t_s":300.2,"time_utc":"..."}
//   {"type":"end","time_utc":"...","t_s":300.2,"status":"completed","reason":""}
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "base/input_file.hpp"

namespace xb::soak {

inline constexpr const char* kSoakSchema = "xferbench.soak";
inline constexpr int kSoakSchemaVersion = 1;

// NVML telemetry of one GPU, read right after a sample; a field NVML does
// not report stays empty (written as null).
struct GpuTelemetry {
  int gpu = 0;
  std::optional<double> temperature_c, power_w;
  std::optional<unsigned> sm_clock_mhz, mem_clock_mhz;
  std::optional<std::uint64_t> clock_reasons;  // nvml.hpp clock_reason bits
  std::optional<std::uint64_t> ecc_corrected, ecc_uncorrected;  // volatile totals since driver load
  std::optional<std::uint64_t> rows_remapped_correctable, rows_remapped_uncorrectable;
  std::optional<bool> row_remap_pending, row_remap_failure;
  std::optional<std::uint64_t> pcie_replays;  // nvmlDeviceGetPcieReplayCounter
  std::vector<std::uint64_t> xids;            // XID events NVML delivered since the previous sample
};

struct Sample {
  double t_s = 0;          // seconds since the soak started; a resumed soak keeps counting
  std::string time_utc;    // "2026-11-25T12:03:04.123Z"
  int round = 0;           // 1-based
  // "CASE[ROW,COL]" for the first matrix, "CASE/MATRIX[ROW,COL]" for a named one
  std::string cell;
  std::string unit;        // "gbps" or "ns"
  double value = 0;        // the cell's reported value (median of its samples) in this round
  std::optional<double> peak_gbps;       // the link's peak, bandwidth cells
  // Loaded-latency cells: the idle latency and the load's bandwidth and
  // share of its link's peak in this round.
  std::optional<double> idle_ns, load_gbps, load_pct;
  bool verified = true;    // data verification passed (or was not asked)
  std::string error;       // non-empty: the cell failed this round; value is not meaningful
  std::vector<GpuTelemetry> telemetry;  // the GPUs the cell used
};

struct Header {
  std::vector<std::string> command_line;
  std::string start_time_utc;
  std::string host;
  std::vector<std::string> gpus;        // "gpu0 NVIDIA H200 GPU-xxxx", in index order
  std::vector<std::string> cases;
  double duration_s = 0;                // asked
};

struct End {
  std::string time_utc;
  double t_s = 0;
  std::string status;                   // "completed", "interrupted", "error"
  std::string reason;                   // why, when not completed
};

// One soak file read back whole: lines in order; a last line cut short by a
// kill is dropped and counted, any other bad line is Error(usage) naming
// file:line. Every sample is kept: for small files and tests; the commands
// read files of any size through read_soak_lines (soak_data.hpp).
struct SoakFile {
  Header header;
  std::vector<Sample> samples;
  std::vector<double> resumed_at_s;     // t_s of every "resume" line
  std::optional<End> end;               // the last "end" line, if any
  int torn_lines = 0;                   // 0 or 1: the last line was cut short
};

// One JSON object per line, no newline inside, '\n' at the end.
std::string header_line(const Header& h);
// Whether `text` starts with a soak file's header line (what compare asks of
// a file it is handed before choosing how to read it).
bool is_soak_text(const std::string& text);
std::string sample_line(const Sample& s);
std::string resume_line(double t_s, const std::string& time_utc);
std::string end_line(const End& e);

// A soak file's records, handed over one at a time in file order.
class SoakSink {
 public:
  virtual ~SoakSink() = default;
  virtual void header(Header h) = 0;
  virtual void sample(Sample s) = 0;
  virtual void resume(double t_s) = 0;
  virtual void end(End e) = 0;
};

// The longest line a soak file may hold: a sample with the telemetry of
// every GPU is a few kB, a header with every case name some tens.
inline constexpr std::size_t kMaxSoakLineBytes = std::size_t{1} << 20;
// The largest GPU index and the most GPUs a sample's telemetry may name.
inline constexpr int kMaxSoakGpu = 1023;
inline constexpr std::size_t kMaxSoakTelemetry = 64;

// Reads the soak file at `path` line by line into `sink`, holding one line
// at a time (a file of any size). Returns the number of torn last lines
// (0 or 1). A line that is not JSON, nested deeper than kMaxInputDepth,
// longer than kMaxSoakLineBytes or not a soak line is Error(usage)
// "PATH:LINE: ...". A number the record would wrap or truncate (a negative
// counter, a fractional round) is refused too.
int read_soak_lines(const std::string& path, SoakSink& sink);
// The same from a file already opened (compare peeks at its first line).
int read_soak_lines(InputFile& in, SoakSink& sink);
// The same over `text` (a file already read), named `label` in messages.
int parse_soak_lines(const std::string& text, const std::string& label, SoakSink& sink);

SoakFile parse_soak(const std::string& text, const std::string& label);
// Reads and parses a file (Error(usage) naming it when unreadable).
SoakFile read_soak_file(const std::string& path);

}  // namespace xb::soak
