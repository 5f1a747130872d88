// The CSV format: a header row, then one row per cell (or transfer, size,
// node), at the end.
#include "base/error.hpp"
#include "report/reporter.hpp"

namespace xb::report {
namespace {

class CsvReporter : public Reporter {
 public:
  using Reporter::Reporter;

  void require(Kind kind) const override {
    if (kind == Kind::plan) fail(ErrorKind::usage, "--dry-run writes its plan as text or JSON, not CSV");
  }
  void run(const RunResult& r) override { out_ << run_csv(r); }
  void cases() override { out_ << cases_csv(); }
  void system(const System& sys) override { out_ << system_csv(sys); }
  void sweep(const SweepResult& r) override { out_ << sweep_csv(r); }
  void sm_sweep(const SmSweepResult& r) override { out_ << sm_sweep_csv(r); }
  void scenario(const ScenarioResult& r) override { out_ << scenario_csv(r); }
  void scenario_resumed(const std::string&, const std::string&) override {
    fail(ErrorKind::usage, "--resume of a complete scenario result writes JSON; use --format json");
  }
  void pingpong(const pingpong::Result& r, const std::vector<std::string>&) override { out_ << pingpong_csv(r); }
  void first_touch(const firsttouch::Result& r, const std::vector<std::string>&) override {
    out_ << first_touch_csv(r);
  }
  void compare(const CompareResult& r, const std::string&, const std::string&) override { out_ << compare_csv(r); }
  void fleet(const fleet::Fleet& f) override { out_ << fleet_csv(f); }
};

}  // namespace

std::unique_ptr<Reporter> csv_reporter(std::ostream& out) { return std::make_unique<CsvReporter>(out); }

}  // namespace xb::report
