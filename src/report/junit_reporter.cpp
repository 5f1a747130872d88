// JUnit XML, for CI: check's verdicts (check --junit FILE).
#include "report/reporter.hpp"

namespace xb::report {
namespace {

class JunitReporter : public Reporter {
 public:
  using Reporter::Reporter;

  void check(const check::CheckResult& r) override { out_ << check_junit(r); }
  void check_fleet(const fleet::Fleet& f) override { out_ << fleet_junit(f); }
};

}  // namespace

std::unique_ptr<Reporter> junit_reporter(std::ostream& out) { return std::make_unique<JunitReporter>(out); }

}  // namespace xb::report
