// A soak (xferbench soak, check --soak): a preset over the case runner.
// The preset is an ordinary run request (cases, buffer size, sampling);
// every round hands each of its cases to run_cases, the same runner as
// `run`, until the duration is over. Every cell's samples go out as JSON
// Lines (soak/soak_record.hpp) as soon as the cell is measured, with the
// NVML telemetry of the GPUs the cell used read right after it.
//
// Granularity: the runner's cell hook (CellHook) hands over each cell's
// results when the cell ends; its lines are handed to the sink then, one
// call per line (the command appends each with one write(), so a SIGKILL
// loses at most the cell in flight, never a line already written). A
// round runs its cases one at a time so that, when the duration is over,
// the soak ends after the case in flight: the last round may be short.
// A signal (SIGINT / SIGTERM) ends it at the next poll of the runner; the
// cells of the case in flight that were measured are still written.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cases/runner.hpp"
#include "machine/nvml.hpp"
#include "measure/sample_source.hpp"
#include "records/completion.hpp"
#include "soak/soak_analysis.hpp"
#include "soak/soak_clock.hpp"
#include "soak/soak_data.hpp"
#include "soak/soak_record.hpp"

namespace xb::soak {

struct SoakRequest {
  // What every round measures, as `run` would measure it once: the cases,
  // buffer size, sampling and command line. The soak runs it without the
  // drift check (the soak's trend is its own) and with its own cell hook.
  RunRequest preset;
  double duration_s = 0;  // 0 with `resume`: the file's
  // --resume: the file read back (what the analysis keeps of it); the soak
  // continues its rounds and t_s. run_soak takes it over.
  std::optional<SoakData> resume;
};

// Where the soak's lines go, one call per line (with its '\n'), in order.
// Throws what the file throws (Error(io)); the soak stops there.
using LineSink = std::function<void(const std::string& line)>;

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
  Header header;       // the file's (a resumed file's own)
  SoakSummary summary;  // of every sample the file holds now (a resumed file's earlier ones too)
  // How the soak ended: complete (the duration is over); interrupted (a
  // signal or an unusable GPU: its stop and message); or `error` when a
  // whole round measured nothing (every case waived here), which fails the
  // soak as nothing judged fails a check (kind verification, exit 1).
  // The exit code: ending(completion, summary.findings).
  Completion completion;
  // The first round measured here as one run (check --soak judges it with
  // the soak's medians put in); its completion carries the soak's stop.
  RunResult first_round;
  System system;
};

// The header this soak writes (also to check a --resume file against).
Header soak_header(const SoakRequest& req, const System& sys, const SoakClock& clock);

// Runs the soak on `src`, telemetry from `nvml` (null: none), lines to
// `out` (a --resume file's torn last line already cut by the command).
// Errors of a cell become its samples' error; a stop request ends the loop
// with status "interrupted" (signals) or "error" (unusable GPU). Takes
// req.resume over (moved from, not copied: a long soak is large).
SoakOutcome run_soak(SampleSource& src, const NvmlQueries* nvml, SoakRequest& req, const LineSink& out,
                     const SoakClock& clock, const SoakCallbacks& cb = {});

// The soak's cell name of a matrix cell: "CASE[ROW,COL]" for the first
// matrix, "CASE/MATRIX[ROW,COL]" for others.
std::string soak_cell_name(const CaseResult& c, std::size_t matrix, const Cell& cell);
std::string soak_cell_name(const std::string& case_name, const std::vector<Matrix>& matrices, std::size_t matrix,
                           const Cell& cell);

// The first round's results with each cell's value replaced by its median
// over the soak (cells without samples keep theirs), for check's judge.
RunResult with_soak_medians(RunResult run, const SoakSummary& summary);

// GpuTelemetry of one GPU from NVML's reading.
GpuTelemetry to_soak_telemetry(int gpu, const NvmlTelemetry& t);

}  // namespace xb::soak
