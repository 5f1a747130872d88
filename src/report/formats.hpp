// The result records the reporters render, and the formatting functions
// that one reporter (text_reporter.cpp, json_reporter.cpp, ...) takes from
// the file of another kind. Each kind's .cpp file says what its formats hold;
// commands render through report/reporter.hpp, never through these.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cases/concurrent.hpp"
#include "cases/run_plan.hpp"
#include "cases/sm_sweep.hpp"
#include "cases/sweep.hpp"
#include "cases/sweep_json.hpp"
#include "check/node.hpp"
#include "compare/compare.hpp"
#include "fleet/summary.hpp"
#include "firsttouch/result.hpp"
#include "machine/topology.hpp"
#include "pingpong/result.hpp"
#include "records/check_verdict.hpp"
#include "records/document.hpp"
#include "records/result.hpp"
#include "records/run_json.hpp"
#include "records/scenario_json.hpp"
#include "records/system_json.hpp"

namespace xb::report {

using json = nlohmann::json;

// `xferbench run --dry-run` (plan_report.cpp).
struct PlanContext {
  std::string topology;            // the --topology file, empty: this machine
  std::uint64_t buffer_bytes = 0;
  MeasureOptions measure;
};
std::string plan_text(const RunEstimate& e, const System& sys, const PlanContext& ctx);
nlohmann::json plan_json(const RunEstimate& e, const System& sys, const PlanContext& ctx);
// "all 2 ordered pairs", "given: 0->1", "sampled 8 of 56 (seed 1): 0->3 ...".
std::string pairs_text(const PairSelection& p);

// "INTERRUPTED" for "interrupted": a verdict as summary lines shout it.
std::string upper_case(std::string s);
// "# WHAT STATUS: MESSAGE; N UNITS not run" for a result that is not
// complete ("" for one that is); `resume`: how to measure them.
std::string completion_line(const Completion& c, const char* what, const char* units, bool resume = false);
std::string csv_escape(const std::string& field);

// Size sweeps (sweep_report.cpp). sweep_text in three parts, so rows are
// printed as each size is measured: the header (needs only the request's
// fields), the rows added to `r` since the last call (`printed` counts the
// rows shown per series; start empty), and the footer (per series link,
// peak and fit; status).
std::string sweep_text(const SweepResult& r);
std::string sweep_text_header(const SweepResult& r);
std::string sweep_text_new_rows(const SweepResult& r, std::vector<std::size_t>& printed);
std::string sweep_text_footer(const SweepResult& r);
std::string sweep_csv(const SweepResult& r);
// The SM budget sweep (sweep_report.cpp).
std::string sm_sweep_text(const SmSweepResult& r);
std::string sm_sweep_csv(const SmSweepResult& r);

// Concurrent scenarios (scenario_report.cpp).
// `width` characters: '#' for every column whose slice of [0, span_s]
// overlaps [start_s, end_s], '.' elsewhere (times outside the span are
// clipped; an empty interval gives no '#').
std::string timeline_bar(double start_s, double end_s, double span_s, int width);
// "30 us", "659 us", "1.23 ms", "4.45 s": bwtest's "Time elapsed" style.
std::string duration_text(double seconds);
// The full report: header, table, scenario figures, timeline.
void scenario_text(std::ostream& os, const ScenarioResult& r);
// CUts' lines: "Launching Device to Host transfers with Device 0 (Host
// buffer allocated on NUMA node 3)" before the run (from a described,
// unmeasured result) ...
void cuts_launch_text(std::ostream& os, const ScenarioResult& described);
// ... and "Completed." then "Transfer 0 - Direct transfers with device 0
// (Device to Host): 24.146 GB/s  (4.45 seconds)" after it.
void cuts_result_text(std::ostream& os, const ScenarioResult& r);
// A scenario that was stopped before its samples were complete, or whose
// measurement failed: the header, why, and the transfers it would have run.
void scenario_not_measured_text(std::ostream& os, const ScenarioResult& r);
std::string scenario_csv(const ScenarioResult& r);
// "1.00 KiB", "6.38 MiB": bwtest's transfer sizes (seed_reporter.cpp).
std::string bwtest_size(std::uint64_t bytes);

// Process to process (pingpong_report.cpp). The pieces of a two-rank table
// in the order they are printed, so rows can be printed as soon as they are
// measured: the run header (from the mode, counts and world size), then per
// pair its head (with the path), one row per size and its foot.
// pingpong_text() joins them.
std::string pingpong_text(const pingpong::Result& r);
std::string pingpong_text_header(const pingpong::Result& r);
std::string pingpong_pair_head(const pingpong::PairResult& p);
std::string pingpong_size_row(const pingpong::SizeResult& s);
std::string pingpong_pair_foot(const pingpong::PairResult& p);
std::string pingpong_csv(const pingpong::Result& r);

// First touch (first_touch_report.cpp): the text format piece by piece, so
// a run can be printed as it is measured. next() returns what `so_far` adds
// to what this stream returned before: the head (up to "[-1] time"; a
// sweep's table header), each variant's "Doing" line, each iteration's
// "[i:j] time" lines, and in a sweep a variant's row once it is complete
// (`last_complete`: the last variant of `so_far` has all its iterations;
// earlier ones always do). finish() returns the rest: the last rows,
// summaries, phases and the completion lines, so the streamed text and the
// text printed at the end are the same bytes.
class FirstTouchTextStream {
 public:
  std::string next(const firsttouch::Result& so_far, bool last_complete);
  std::string finish(const firsttouch::Result& r);

 private:
  bool head_ = false;
  std::size_t opened_ = 0;  // variants whose "Doing" line is out
  std::size_t closed_ = 0;  // variants that are complete (a sweep's row is out)
  std::size_t lines_ = 0;   // iterations of variant closed_ whose lines are out
};
// `text` without its '#' lines: gpudirect_p2p_overalloc's own lines
// (--format seed), also for a piece of a stream.
std::string without_annotations(const std::string& text);
std::string first_touch_csv(const firsttouch::Result& r);

// compare_report.cpp
std::string compare_text(const CompareResult& r, const std::string& old_name, const std::string& new_name);
nlohmann::json compare_json(const CompareResult& r, const std::string& old_name, const std::string& new_name);
std::string compare_csv(const CompareResult& r);

// check (check_report.cpp).
// Why a cell passed, failed or was not judged, in one line:
// "26.10 GB/s < 47.26 GB/s (75% of the 63.02 GB/s peak of PCIe Gen5 x16) [built-in]".
std::string check_cell_reason(const check::CheckCell& c);
// "xferbench check: PASS ..." or "xferbench check: FAIL <first failing cell>; lint: <first error>".
std::string check_summary_line(const check::CheckResult& r);
void text_check(std::ostream& os, const check::CheckResult& r);
// The check's verdict as its result document's "check" section states it.
records::CheckVerdict check_verdict_record(const check::CheckResult& r);
// The run JSON with the "check" section added (and, for a soaked check, the
// soak's summary inside it).
nlohmann::json check_json(const check::CheckResult& r);
// The fleet of checks: one row per node (host, verdict, wall time, the
// summary line of its result's "check" section, or its error) and the
// fleet's verdict, from f.exit_code (fleet::fleet_exit_code, every node
// required).
void text_fleet(std::ostream& os, const fleet::Fleet& f);
// Text escaped for XML 1.0 content and attribute values; characters XML 1.0
// cannot hold (control characters but tab, newline, return) become U+FFFD
// (junit_reporter.cpp).
std::string xml_escape(const std::string& text);

// A fleet (fleet_report.cpp).
// Nodes that failed, and nodes stopped before the end (interrupted or partial).
std::pair<int, int> failed_and_stopped(const fleet::Fleet& f);
std::string fleet_text(const fleet::Fleet& f);
nlohmann::json fleet_json(const fleet::Fleet& f);
std::string fleet_csv(const fleet::Fleet& f);

// A Prometheus label value escaped as the text format wants it: backslash,
// double quote and newline as \\, \" and \n (prometheus_series.cpp).
std::string prometheus_escape(const std::string& value);

// A run or check that ended before it had a result (no GPU, a CUDA error
// before the first cell, ...), as --format prometheus gives it: the host
// down with the reason, its exit code, check's verdict 0, and the last
// success carried over from `previous`, the metrics file being replaced.
struct Unmeasured {
  std::string host, command;      // command: "run" or "check"
  double start_unix = 0, wall_seconds = 0;
  int exit_code = 0;
  std::string reason;             // the error's kind (to_string(ErrorKind))
};
std::string prometheus_unmeasured(const Unmeasured& u, const std::string& previous);

}  // namespace xb::report
