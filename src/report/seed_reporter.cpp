// The seed tools' own output (report/seed_formats.hpp): multi-gpu-bwtest's
// and CUts' lines for a scenario, gpudirect_p2p_overalloc's for first-touch.
#include "report/reporter.hpp"

namespace xb::report {
namespace {

// bwtest and cuts: the tool's lines alone. A complete result found by
// --resume prints nothing here (the -o file still gets it).
class ScenarioSeed : public Reporter {
 public:
  using Print = void (*)(std::ostream&, const ScenarioResult&);
  ScenarioSeed(std::ostream& out, Print print) : Reporter(out), print_(print) {}

  void scenario_begin(const ScenarioResult& described) override { cuts_launch(described); }
  void scenario(const ScenarioResult& r) override { measured(r) ? print_(out_, r) : scenario_not_measured_text(out_, r); }

 private:
  Print print_;
};

// The reproducer's lines: the text format without its '#' lines.
class FirstTouchSeed : public Reporter {
 public:
  using Reporter::Reporter;

  bool streams() const override { return true; }
  void first_touch_rows(const firsttouch::Result& r, bool last_complete) override {
    out_ << without_annotations(stream_.next(r, last_complete)) << std::flush;
  }
  void first_touch(const firsttouch::Result& r, const std::vector<std::string>&) override {
    out_ << without_annotations(stream_.finish(r));
  }

 private:
  FirstTouchTextStream stream_;
};

}  // namespace

std::unique_ptr<Reporter> seed_reporter(const std::string& format, std::ostream& out) {
  if (format == "bwtest") return std::make_unique<ScenarioSeed>(out, bwtest_text);
  if (format == "cuts") return std::make_unique<ScenarioSeed>(out, cuts_result_text);
  return std::make_unique<FirstTouchSeed>(out);
}

}  // namespace xb::report
