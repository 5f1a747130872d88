// The fabric's formats (fabric_report.cpp): the plan, the text report
// (culprits, worst pairs, a node x node matrix per rail), one CSV row per
// pair, Prometheus metrics, and check's verdict on a fabric file. JSON is
// the record's codec (fabric/fabric_json.hpp).
#pragma once

#include <string>

#include "fabric/result.hpp"

namespace xb::report {

std::string fabric_plan_text(const fabric::Result& r);
// `with_plan` false: the plan's lines were printed before the run.
std::string fabric_text(const fabric::Result& r, bool with_plan = true);
std::string fabric_csv(const fabric::Result& r);
std::string fabric_prometheus(const fabric::Result& r);
// "xferbench check: PASS ..." / "xferbench check: FAIL ..." naming the
// culprits, failed pairs and lost ranks; `passed` says which.
std::string fabric_check_text(const fabric::Result& r, bool& passed);

// The exit code of a fabric run: pingpong's rule (the first failed
// pair's kind, a stop's code), and 1 for culprits with --fail-on-culprit.
int fabric_exit_code(const fabric::Result& r);

}  // namespace xb::report
