// Reporters: one class per output format (text, JSON, CSV, JUnit,
// nvbandwidth's text and JSON, the seed tools' formats), made once per
// command from --format and the -o file's name, so commands hand over
// results and never name a format. A reporter has one method per kind of
// result; where a command prints as it measures, the kind has row hooks
// before its last method, which a command calls only when streams() says
// the format prints rows. A format with no view of a kind prints nothing
// for it (nvbandwidth's of a fleet); one that a command has always refused
// says so through require().
#pragma once

#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "fabric/result.hpp"
#include "report/formats.hpp"
#include "report/nvbandwidth.hpp"
#include "soak/soak_analysis.hpp"
#include "soak/soak_record.hpp"

namespace xb::report {

// -v (also the text format's) and --perfFormatter, then:
struct ReportOptions : NvbOptions {
  bool summary = false;  // check --summary: the one-line summary in place of the node's report
  bool csv_file = true;  // -o FILE is CSV when it ends in .csv (false: always JSON)
  // --format prometheus: "summary" (per node, link and GPU) or "cells" (also
  // every cell), and the text of the metrics file being replaced, whose
  // last-success times are carried over (docs/prometheus.md).
  std::string metrics_detail = "summary";
  std::string previous_metrics = "";
};

// Kinds a format may refuse (require()).
enum class Kind { plan, scenario };

class Reporter {
 public:
  explicit Reporter(std::ostream& out) : out_(out) {}
  virtual ~Reporter() = default;

  // Throws Error(usage), with the message the command has always given,
  // when this format cannot render `kind`.
  virtual void require(Kind) const {}
  // Whether the row hooks print (and flush) rows as they are measured.
  virtual bool streams() const { return false; }
  // nvbandwidth's output: the run follows nvbandwidth's rules too (waived
  // cases and cells keep exit 0; --list lists as nvbandwidth, app/cmd_run.cpp).
  virtual bool nvbandwidth_run() const { return false; }

  // Named cases: the header before the first case (the run's system and
  // settings), the drift check's start, each case as it ends, the run.
  virtual void run_begin(const RunResult&) {}
  virtual void run_stability(const Stability&) {}
  virtual void run_case(const CaseResult&) {}
  virtual void run(const RunResult&) {}
  virtual void run_failed(const std::string&) {}  // before any case: the error
  virtual void plan(const RunEstimate&, const System&, const PlanContext&) {}
  virtual void cases() {}
  virtual void system(const System&) {}
  // A size sweep: the first call prints the header, later ones new rows.
  virtual void sweep_rows(const SweepResult&) {}
  virtual void sweep(const SweepResult&) {}
  virtual void sm_sweep(const SmSweepResult&) {}
  // A concurrent scenario: described before it runs, then measured; or
  // `r`, the complete result read from the --resume file at `path`.
  virtual void scenario_begin(const ScenarioResult&) {}
  virtual void scenario(const ScenarioResult&) {}
  virtual void scenario_resumed(const std::string&, const ScenarioResult&) {}
  virtual void pingpong_pair(const pingpong::Result&, const pingpong::PairResult&) {}
  virtual void pingpong_size(const pingpong::SizeResult&) {}
  virtual void pingpong(const pingpong::Result&, const std::vector<std::string>&) {}
  // First-touch so far; `last_complete`: its last variant has all its iterations.
  virtual void first_touch_rows(const firsttouch::Result&, bool) {}
  virtual void first_touch(const firsttouch::Result&, const std::vector<std::string>&) {}
  virtual void compare(const CompareResult&, const std::string&, const std::string&) {}
  // What a soak found (soak, soak --summary): per cell and episode, the verdict.
  virtual void soak(const soak::SoakSummary&, const soak::Header&) {}
  virtual void check(const check::CheckResult&) {}
  virtual void check_fleet(const fleet::Fleet&) {}  // check under a launcher: one row per node
  virtual void fleet(const fleet::Fleet&) {}
  // The fabric between nodes (fabric/result.hpp): its plan (--dry-run), its result.
  virtual void fabric_plan(const fabric::Result&) {}
  virtual void fabric(const fabric::Result&) {}

 protected:
  // A scenario stopped, or failed, before its samples were complete: no
  // text format prints a figure for it.
  static bool measured(const ScenarioResult& r) {
    return r.completion.status == RunStatus::complete && r.completion.error.empty();
  }
  // CUts' "Launching ..." lines (flushed) for a scenario given by CUts' flags.
  void cuts_launch(const ScenarioResult& described);

  std::ostream& out_;
};

// The reporter for --format `format` (text, json, csv, junit, prometheus,
// nvbandwidth, nvbandwidth-json, bwtest, cuts, seed) on `out`; nvbandwidth's waiver
// lines go to `err`.
std::unique_ptr<Reporter> make_reporter(const std::string& format, std::ostream& out, std::ostream& err = std::cerr,
                                        const ReportOptions& o = {});

// What a command may ask of --format `format`, so it never compares the
// name itself: the terminal's text (lines a person reads, and a command
// may add its own, like check's verdict), or Prometheus metrics (a file
// that a collector reads).
bool is_text(const std::string& format);
bool is_metrics(const std::string& format);

// One command's outputs: --format on stdout, one reporter for the whole
// command (it remembers the rows it printed), and the files, each written
// whole by a reporter made for it. --format prometheus with a file writes
// the metrics to the file alone, and text on stdout.
class Outputs {
 public:
  Outputs(const std::string& format, const std::string& file, const ReportOptions& o = {},
          std::ostream& out = std::cout, std::ostream& err = std::cerr);
  // Also writes `format` to `path` (check's --junit); nothing when `path` is empty.
  void add_file(const std::string& path, const std::string& format);
  Reporter& screen() { return *screen_; }
  void require(Kind kind) const;
  // Renders on stdout (flushed), then each file. A file in stdout's format
  // gets stdout's text, rendered once.
  void emit(const std::function<void(Reporter&)>& render);

 private:
  std::string format_;
  ReportOptions options_;
  std::ostream& out_;
  std::unique_ptr<Reporter> screen_;
  std::vector<std::pair<std::string, std::string>> files_;  // path, format
};

// One constructor per format, for make_reporter.
std::unique_ptr<Reporter> text_reporter(std::ostream& out, const ReportOptions& o);
std::unique_ptr<Reporter> json_reporter(std::ostream& out);
std::unique_ptr<Reporter> csv_reporter(std::ostream& out);
std::unique_ptr<Reporter> junit_reporter(std::ostream& out);
std::unique_ptr<Reporter> prometheus_reporter(std::ostream& out, const ReportOptions& o);
std::unique_ptr<Reporter> nvbandwidth_reporter(const std::string& format, std::ostream& out, std::ostream& err,
                                               const ReportOptions& o);
std::unique_ptr<Reporter> seed_reporter(const std::string& format, std::ostream& out);

}  // namespace xb::report
