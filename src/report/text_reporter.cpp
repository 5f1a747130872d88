// The text format: tables for people, rows printed as they are measured.
#include "report/reporter.hpp"

namespace xb::report {
namespace {

class TextReporter : public Reporter {
 public:
  TextReporter(std::ostream& out, const ReportOptions& o) : Reporter(out), verbose_(o.verbose) {}

  bool streams() const override { return true; }
  void run_begin(const RunResult& header) override {
    text_run_header(out_, header);
    out_.flush();
  }
  void run_stability(const Stability& s) override {
    text_stability_start(out_, s);
    out_.flush();
  }
  void run_case(const CaseResult& c) override {
    text_case(out_, c);
    if (verbose_) nvb_sample_lines(out_, c);
    out_.flush();
  }
  void run(const RunResult& r) override { text_run_footer(out_, r); }
  void plan(const RunEstimate& e, const System& sys, const PlanContext& pc) override { out_ << plan_text(e, sys, pc); }
  void cases() override { text_cases(out_); }
  void system(const System& sys) override { text_list(out_, sys); }
  void sweep_rows(const SweepResult& r) override {
    out_ << (sweep_started_ ? sweep_text_new_rows(r, sweep_printed_) : sweep_text_header(r)) << std::flush;
    sweep_started_ = true;
  }
  void sweep(const SweepResult& r) override { out_ << (sweep_started_ ? sweep_text_footer(r) : sweep_text(r)); }
  void sm_sweep(const SmSweepResult& r) override { out_ << sm_sweep_text(r); }
  void scenario_begin(const ScenarioResult& described) override { cuts_launch(described); }
  void scenario(const ScenarioResult& r) override {
    if (!measured(r)) return scenario_not_measured_text(out_, r);
    if (r.front_end == "cuts") {
      cuts_result_text(out_, r);
      out_ << "\n";
    }
    scenario_text(out_, r);
  }
  void scenario_resumed(const std::string& path, const std::string&) override {
    out_ << "# " << path << " holds the complete result: nothing to measure\n";
  }
  void pingpong_pair(const pingpong::Result& header, const pingpong::PairResult& p) override {
    out_ << pingpong_text_header(header) << pingpong_pair_head(p) << std::flush;
    pingpong_streamed_ = true;
  }
  void pingpong_size(const pingpong::SizeResult& s) override { out_ << pingpong_size_row(s) << std::flush; }
  void pingpong(const pingpong::Result& r, const std::vector<std::string>&) override {
    if (!pingpong_streamed_) {
      out_ << pingpong_text(r);
      return;
    }
    for (const auto& p : r.pairs) out_ << pingpong_pair_foot(p);
    out_ << pingpong_completion_line(r);
  }
  void first_touch_rows(const firsttouch::Result& r, bool last_complete) override {
    out_ << first_touch_stream_.next(r, last_complete) << std::flush;
  }
  void first_touch(const firsttouch::Result& r, const std::vector<std::string>&) override {
    out_ << first_touch_stream_.finish(r);
  }
  void compare(const CompareResult& r, const std::string& old_name, const std::string& new_name) override {
    out_ << compare_text(r, old_name, new_name);
  }
  void check(const check::CheckResult& r) override { text_check(out_, r); }
  void check_fleet(const fleet::Fleet& f) override { text_fleet(out_, f); }
  void fleet(const fleet::Fleet& f) override { out_ << fleet_text(f); }

 private:
  bool verbose_;
  bool sweep_started_ = false;
  std::vector<std::size_t> sweep_printed_;
  bool pingpong_streamed_ = false;
  FirstTouchTextStream first_touch_stream_;
};

// check --summary: the node's one line; a fleet of nodes as the format underneath prints it.
class SummaryReporter : public Reporter {
 public:
  SummaryReporter(std::ostream& out, std::unique_ptr<Reporter> inner) : Reporter(out), inner_(std::move(inner)) {}
  void check(const check::CheckResult& r) override { out_ << check_summary_line(r) << "\n"; }
  void check_fleet(const fleet::Fleet& f) override { inner_->check_fleet(f); }

 private:
  std::unique_ptr<Reporter> inner_;
};

}  // namespace

std::unique_ptr<Reporter> text_reporter(std::ostream& out, const ReportOptions& o) {
  return std::make_unique<TextReporter>(out, o);
}

std::unique_ptr<Reporter> summary_reporter(std::ostream& out, std::unique_ptr<Reporter> inner) {
  return std::make_unique<SummaryReporter>(out, std::move(inner));
}

}  // namespace xb::report
