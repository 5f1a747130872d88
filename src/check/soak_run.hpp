// A soak (xferbench soak, check --soak): the chosen cases measured in
// rounds until the duration is over, every sample appended to a JSON Lines
// file (soak/soak_record.hpp) as soon as its cell is measured, with the
// NVML telemetry of the GPUs the cell used read right after it.
//
// Granularity: the runner's cell hook (CellHook) hands over each cell's
// results when the cell ends; its lines are appended then, one write() per
// line, so a SIGKILL loses at most the cell in flight, never a line
// already written. When the duration is over
// the soak ends after the case in flight: the last round may be short.
// A signal (SIGINT / SIGTERM) ends it at the next poll of the runner; the
// cells of the case in flight that were measured are still written.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/stop.hpp"
#include "cases/runner.hpp"
#include "machine/nvml.hpp"
#include "measure/sample_source.hpp"
#include "soak/soak_analysis.hpp"
#include "soak/soak_record.hpp"

namespace xb::check {

// Where a soak's time comes from: tests plant hours without waiting.
struct SoakClock {
  std::function<double()> steady_s;  // monotonic seconds (any origin)
  std::function<double()> utc_s;     // seconds since the Unix epoch
};
SoakClock real_soak_clock();
// "2026-11-25T12:03:04.123Z"
std::string utc_text(double epoch_s);

// "90s", "30m", "8h", "1h30m", "2h15m30s", plain seconds ("600", "1.5").
// Throws Error(usage) naming `option` and the text for anything else or 0.
double parse_duration(const std::string& text, const std::string& option);
// "1h02m", "5m07s", "42s": how the status line and summary show a span.
std::string duration_text(double seconds);

// How a soak opens its file. A soak file holds one soak: appending a new
// soak to an old one would make a file that reads back as neither.
enum class SoakFileMode {
  create_new,  // the default name: the file must not exist (O_EXCL)
  start,       // -o FILE: created, or an empty file or a special file (FIFO, /dev/stdout) written
               // in place; a regular file that holds anything is refused (Error(usage))
  overwrite,   // --overwrite: as start, but a non-empty regular file is emptied first
  append,      // --resume: appended to
};

// Refuses, before any measuring, a `path` that `mode` would refuse to open
// (start: a non-empty regular file), naming `option` and the way out.
// Throws Error(usage).
void check_soak_file_free(const std::string& path, SoakFileMode mode, const std::string& option);

// The sample lines go to an open file, appended one write() per line.
class SoakFileWriter {
 public:
  // Opens `path` as `mode` says, through a symlink or a special file the
  // user names. Throws Error(io) naming the path, or Error(usage) as
  // check_soak_file_free does (a file that filled up since the check).
  SoakFileWriter(const std::string& path, SoakFileMode mode, const std::string& option = "-o");
  ~SoakFileWriter();
  SoakFileWriter(const SoakFileWriter&) = delete;
  SoakFileWriter& operator=(const SoakFileWriter&) = delete;
  // One line (with its '\n') in one write(); throws Error(io).
  void append(const std::string& line);
  // A regular file whose last line was cut short (a killed soak): cut it
  // back to its last full line before appending (--resume).
  void drop_torn_tail();
  const std::string& path() const noexcept { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
};

struct SoakRequest {
  std::vector<const CaseDef*> cases;
  double duration_s = 0;
  std::uint64_t buffer_bytes = 512ull << 20;
  MeasureOptions measure;
  std::vector<std::string> command_line;
  // --resume: the file read back (what the analysis keeps of it); the soak
  // continues its rounds and t_s. run_soak takes it over.
  std::optional<soak::SoakData> resume;
};

// The status line's figures, after every case.
struct SoakStatus {
  double elapsed_s = 0, duration_s = 0;
  int round = 0;
  bool round_done = false;       // the case that just ended was the round's last
  std::string worst_cell;        // furthest the bad way from its first round's value
  double worst_pct = 0;          // its change in % (negative: worse bandwidth, positive: worse latency)
};
std::string soak_status_text(const SoakStatus& s);

struct SoakCallbacks {
  std::function<void(const SoakStatus&)> on_status;
};

struct SoakOutcome {
  soak::Header header;       // the file's (a resumed file's own)
  soak::SoakSummary summary;  // of every sample the file holds now (a resumed file's earlier ones too)
  StopReason stop = StopReason::none;  // a signal or an unusable GPU ended it
  std::string stop_message;
  // Non-empty: a whole round measured nothing (every case waived here);
  // the soak ended there with status "error".
  std::string error;
  // The first round measured here as one run (check --soak judges it with
  // the soak's medians put in); its completion carries the soak's stop.
  RunResult first_round;
  System system;
};

// The header this soak writes (also to check a --resume file against).
soak::Header soak_header(const SoakRequest& req, const System& sys, const SoakClock& clock);

// Runs the soak on `src`, telemetry from `nvml` (null: none), lines to
// `out`. Errors of a cell become its samples' error; a stop request ends
// the loop with status "interrupted" (signals) or "error" (unusable GPU).
// Takes req.resume over (moved from, not copied: a long soak is large).
SoakOutcome run_soak(SampleSource& src, const NvmlQueries* nvml, SoakRequest& req, SoakFileWriter& out,
                     const SoakClock& clock, const SoakCallbacks& cb = {});

// The soak's cell name of a matrix cell: "CASE[ROW,COL]" for the first
// matrix, "CASE/MATRIX[ROW,COL]" for others.
std::string soak_cell_name(const CaseResult& c, std::size_t matrix, const Cell& cell);
std::string soak_cell_name(const std::string& case_name, const std::vector<Matrix>& matrices, std::size_t matrix,
                           const Cell& cell);

// The first round's results with each cell's value replaced by its median
// over the soak (cells without samples keep theirs), for check's judge.
RunResult with_soak_medians(RunResult run, const soak::SoakSummary& summary);

// soak::GpuTelemetry of one GPU from NVML's reading.
soak::GpuTelemetry to_soak_telemetry(int gpu, const NvmlTelemetry& t);

}  // namespace xb::check
