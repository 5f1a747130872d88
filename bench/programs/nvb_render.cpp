// Prints a recorded run (a `run -o RUN.json` file) in nvbandwidth's text, as
// `xferbench run --format nvbandwidth [--nvbandwidth-version V]` printed it
// while measuring: no GPU needed, so a parser written for nvbandwidth can be
// tried on a real run's figures from any machine
// (bench/results/2026-11-25-azure-nvbandwidth-parser/).
//
// usage: nvb_render RUN.json 0.8|0.10 [CASE ...]
//   CASE: the cases to print, in this order (default: every case of the run).
// Exit 0; 2 for a bad argument or a file that is not a run result.
// Built as the nvb_render target (tests/CMakeLists.txt).
#include <fstream>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/error.hpp"
#include "records/run_json.hpp"
#include "report/nvbandwidth.hpp"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: nvb_render RUN.json 0.8|0.10 [CASE ...]\n";
    return 2;
  }
  try {
    std::ifstream f(argv[1]);
    if (!f) xb::fail(xb::ErrorKind::usage, fmt::format("cannot read '{}'", argv[1]));
    nlohmann::json doc;
    try {
      doc = nlohmann::json::parse(f);
    } catch (const nlohmann::json::exception& e) {
      xb::fail(xb::ErrorKind::usage, fmt::format("'{}' is not JSON: {}", argv[1], e.what()));
    }
    const xb::RunResult run = xb::records::decode_run(doc, argv[1]);
    xb::report::NvbOptions o;
    o.layout = xb::report::parse_nvb_layout(argv[2]);
    std::vector<const xb::CaseResult*> cases;
    for (int i = 3; i < argc; ++i) {
      const xb::CaseResult* found = nullptr;
      for (const auto& c : run.cases)
        if (c.name == argv[i]) found = &c;
      if (!found) xb::fail(xb::ErrorKind::usage, fmt::format("no case '{}' in '{}'", argv[i], argv[1]));
      cases.push_back(found);
    }
    if (argc == 3)
      for (const auto& c : run.cases) cases.push_back(&c);
    xb::report::NvbTextPrinter printer(std::cout, o);
    printer.header(run.system, run.settings.buffer_bytes);
    for (const xb::CaseResult* c : cases) printer.test_case(*c);
    printer.footer();
    return 0;
  } catch (const xb::Error& e) {
    std::cerr << "nvb_render: error: " << e.what() << "\n";
    return 2;
  }
}
