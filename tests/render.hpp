// What a reporter of --format `format` prints for one call, as a command
// renders it (report/reporter.hpp), for tests of the formats.
#pragma once

#include <sstream>
#include <string>

#include "report/reporter.hpp"

namespace xb::testing {

template <class Render>
std::string rendered(const std::string& format, Render render, const report::ReportOptions& o = {}) {
  std::ostringstream out, err;
  render(*report::make_reporter(format, out, err, o));
  return out.str();
}

}  // namespace xb::testing
