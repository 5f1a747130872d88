// The JSON format: each result's document, indented by two spaces, at the end.
#include "report/reporter.hpp"

#include "base/input_file.hpp"
#include "cases/cases.hpp"
#include "fabric/fabric_json.hpp"
#include "firsttouch/first_touch_json.hpp"
#include "pingpong/pingpong_json.hpp"
#include "report/soak_report.hpp"

namespace xb::report {
namespace {

nlohmann::json cases_json() {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& d : case_catalogue())
    out.push_back({{"index", d.index}, {"name", d.name}, {"engine", to_string(d.engine)}, {"description", d.description},
                   {"name_origin", d.origin}});
  return out;
}

class JsonReporter : public Reporter {
 public:
  using Reporter::Reporter;

  void run(const RunResult& r) override { print(records::run_json(r)); }
  void plan(const RunEstimate& e, const System& sys, const PlanContext& pc) override { print(plan_json(e, sys, pc)); }
  void cases() override { print(cases_json()); }
  void system(const System& sys) override { print(records::system_json(sys)); }
  void sweep(const SweepResult& r) override { print(records::sweep_json(r)); }
  void sm_sweep(const SmSweepResult& r) override { print(records::sm_sweep_json(r)); }
  void scenario(const ScenarioResult& r) override { print(records::scenario_json(r)); }
  void scenario_resumed(const std::string&, const ScenarioResult& r) override { print(records::scenario_json(r)); }
  void pingpong(const pingpong::Result& r, const std::vector<std::string>& argv) override {
    print(records::pingpong_json(r, argv));
  }
  void first_touch(const firsttouch::Result& r, const std::vector<std::string>& argv) override {
    print(records::first_touch_json(r, argv));
  }
  void compare(const CompareResult& r, const std::string& old_name, const std::string& new_name) override {
    print(compare_json(r, old_name, new_name));
  }
  void soak(const soak::SoakSummary& s, const soak::Header&) override { print(soak_summary_json(s)); }
  void check(const check::CheckResult& r) override { print(check_json(r)); }
  void check_fleet(const fleet::Fleet& f) override { print(fleet_json(f)); }
  void fleet(const fleet::Fleet& f) override { print(fleet_json(f)); }
  void fabric_plan(const fabric::Result& r) override {
    nlohmann::json doc = fabric::fabric_json(r);
    doc["dry_run"] = true;
    print(doc);
  }
  void fabric(const fabric::Result& r) override { print(fabric::fabric_json(r)); }

 private:
  // A file name or argument that is not UTF-8 shows as U+FFFD (json_text) instead of failing the dump.
  void print(const nlohmann::json& doc) { out_ << json_text(doc, 2) << "\n"; }
};

}  // namespace

std::unique_ptr<Reporter> json_reporter(std::ostream& out) { return std::make_unique<JsonReporter>(out); }

}  // namespace xb::report
