// The check reporters: XML escaping, the JUnit document, the JSON section,
// and the multi-node adapter on the in-process communicator.
#include <gtest/gtest.h>

#include <fstream>
#include <mutex>
#include <regex>
#include <sstream>

#include "check/fleet.hpp"
#include "check/node.hpp"
#include "comm/inproc_comm.hpp"
#include "report/check_report.hpp"

namespace {

using namespace xb::check;
using json = nlohmann::json;

int occurrences(const std::string& text, const std::string& what) {
  int n = 0;
  for (auto pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++n;
  return n;
}

CheckResult recorded_with_findings() {
  CheckResult r;
  std::ifstream f(XFERBENCH_SOURCE_DIR "/bench/results/2026-11-22-h200x2-sm-bulk/full1.json");
  r.run = json::parse(f);
  r.lint.rules = {{"pcie_link", "PCIe", RuleStatus::findings, ""},
                  {"persistence_mode", "persistence", RuleStatus::findings, ""},
                  {"pcie_acs", "ACS", RuleStatus::skipped, "needs root & more"}};
  r.lint.findings = {{"pcie_link", Severity::error, "gpu1", "PCIe trained Gen5 x8 < x16", "reseat <it>", 1, false},
                     {"persistence_mode", Severity::warn, "gpu0", "persistence mode off", "nvidia-smi -pm 1", 0, false}};
  CheckSpec spec = parse_spec_text("[[expect]]\ncase = \"device_local_copy\"\nmin = \"3000 GB/s\"\n", "s&p.toml");
  JudgeOptions jo;
  jo.spec = &spec;
  judge_result(r, jo);
  return r;
}

TEST(CheckReport, XmlEscape) {
  EXPECT_EQ(xb::report::xml_escape("a<b & \"c\" 'd'>"), "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;");
  EXPECT_EQ(xb::report::xml_escape("line1\nline2\ttab\r"), "line1&#10;line2&#9;tab&#13;");
  EXPECT_EQ(xb::report::xml_escape(std::string("bell\x07") + "esc\x1b"), "bell\xEF\xBF\xBD" "esc\xEF\xBF\xBD");
  EXPECT_EQ(xb::report::xml_escape("GB/s \xC2\xB5s"), "GB/s \xC2\xB5s");  // UTF-8 passes through
  EXPECT_EQ(xb::report::xml_escape(""), "");
}

TEST(CheckReport, JunitCountsAndEscapes) {
  const CheckResult r = recorded_with_findings();
  ASSERT_FALSE(r.pass);
  const std::string x = xb::report::check_junit(r);
  EXPECT_EQ(x.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"xferbench check vm\"", 0), 0u) << x;
  // 3 lint rules + 7 links + 36 cells; failures: pcie_link, the two memory
  // links and their two cells; skipped: pcie_acs.
  EXPECT_NE(x.find("tests=\"46\" failures=\"5\" errors=\"0\" skipped=\"1\""), std::string::npos) << x.substr(0, 300);
  EXPECT_EQ(occurrences(x, "<testcase "), 46);
  EXPECT_EQ(occurrences(x, "<testsuite "), 3);
  EXPECT_EQ(occurrences(x, "</testsuite>"), 3);
  EXPECT_NE(x.find("message=\"error gpu1: PCIe trained Gen5 x8 &lt; x16 (fix: reseat &lt;it&gt;)\""), std::string::npos);
  EXPECT_NE(x.find("<skipped message=\"needs root &amp; more\"/>"), std::string::npos);
  EXPECT_NE(x.find("[s&amp;p.toml:1]"), std::string::npos);
  EXPECT_EQ(x.find("s&p"), std::string::npos);  // never a raw ampersand
  // Well-formed enough for a line-oriented reader: every element closed.
  EXPECT_EQ(occurrences(x, "<testcase ") , occurrences(x, "/>\n") - occurrences(x, "<failure") -
                                               occurrences(x, "<skipped") - occurrences(x, "<error") +
                                               occurrences(x, "</testcase>"));
}

TEST(CheckReport, SummaryLineNamesCellAndLint) {
  const CheckResult r = recorded_with_findings();
  const std::string line = xb::report::check_summary_line(r);
  EXPECT_EQ(line.rfind("xferbench check: FAIL gpu0 memory device_local_copy 2092.43 GB/s < 3000.00 GB/s [s&p.toml:1] "
                       "(+1 more cells); lint: gpu1 PCIe trained Gen5 x8 < x16",
                       0),
            0u)
      << line;
  EXPECT_EQ(line.find('\n'), std::string::npos);
}

TEST(CheckReport, JsonSection) {
  const CheckResult r = recorded_with_findings();
  const json doc = xb::report::check_json(r);
  EXPECT_EQ(doc["schema"], "xferbench-run");
  EXPECT_EQ(doc["status"], "failed");
  const json& c = doc["check"];
  EXPECT_EQ(c["verdict"], "fail");
  EXPECT_EQ(c["lint"]["findings"].size(), 2u);
  EXPECT_EQ(c["lint"]["findings"][0]["severity"], "error");
  EXPECT_EQ(c["cells"].size(), 36u);
  EXPECT_EQ(c["links"].size(), 7u);
  EXPECT_EQ(c["expectations"]["spec"], "s&p.toml");
  const json& cell = c["cells"][0];
  EXPECT_TRUE(cell.contains("value_gbps"));
  EXPECT_TRUE(cell.contains("threshold_gbps"));
  EXPECT_TRUE(cell.contains("reason"));
  std::ostringstream text;
  xb::report::text_check(text, r);
  EXPECT_NE(text.str().find("  FAIL  gpu0 memory"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("fix: reseat <it>"), std::string::npos);
}

TEST(CheckReport, FleetGathersOneRecordPerNode) {
  std::mutex m;
  std::vector<std::vector<json>> seen(4);
  xb::comm::InprocOptions o;
  o.size = 4;
  o.hosts = {"nodeA", "nodeA", "nodeB", "nodeB"};
  int work_calls = 0;
  xb::comm::run_ranks(o, [&](xb::comm::Communicator& comm) {
    auto nodes = gather_node_records(
        comm,
        [&]() -> json {
          {
            std::lock_guard<std::mutex> lock(m);
            ++work_calls;
          }
          if (comm.host_name() == "nodeB") throw xb::Error(xb::ErrorKind::no_device, "no CUDA GPU found");
          return {{"verdict", "pass"}, {"summary", "xferbench check: PASS"}, {"wall_seconds", 9.5}};
        },
        xb::comm::Seconds(10));
    std::lock_guard<std::mutex> lock(m);
    seen[static_cast<std::size_t>(comm.rank())] = nodes;
  });
  EXPECT_EQ(work_calls, 2);  // one process per node did the work
  for (const auto& nodes : seen) {
    ASSERT_EQ(nodes.size(), 2u);  // every rank learns every node
    EXPECT_EQ(nodes[0]["hostname"], "nodeA");
    EXPECT_EQ(nodes[1]["verdict"], "error");
    EXPECT_EQ(nodes[1]["exit_code"], 3);
    EXPECT_EQ(fleet_exit_code(nodes), 1);
  }
  std::ostringstream table;
  xb::report::text_fleet(table, seen[0]);
  EXPECT_NE(table.str().find("nodeA"), std::string::npos);
  EXPECT_NE(table.str().find("no CUDA GPU found"), std::string::npos);
  EXPECT_NE(table.str().find("xferbench check: FAIL 1 of 2 nodes failed"), std::string::npos) << table.str();
  const std::string junit = xb::report::fleet_junit(seen[0]);
  EXPECT_NE(junit.find("tests=\"2\" failures=\"0\" errors=\"1\""), std::string::npos) << junit;
  EXPECT_EQ(fleet_exit_code({json{{"verdict", "pass"}}}), 0);
  EXPECT_EQ(fleet_exit_code({}), 1);
}

// A node stopped by a signal gives the job its code; the time limit alone
// gives 10; a failed node outranks a partial one.
TEST(CheckReport, FleetExitCodeForStoppedAndPartialNodes) {
  const json pass = {{"verdict", "pass"}}, fail = {{"verdict", "fail"}}, partial = {{"verdict", "partial"}, {"exit_code", 10}};
  const json stopped = {{"verdict", "interrupted"}, {"exit_code", 143}, {"hostname", "nodeB"}};
  EXPECT_EQ(fleet_exit_code({pass, stopped}), 143);
  EXPECT_EQ(fleet_exit_code({fail, stopped}), 143);
  EXPECT_EQ(fleet_exit_code({pass, partial}), 10);
  EXPECT_EQ(fleet_exit_code({partial, fail}), 1);
  std::ostringstream table;
  xb::report::text_fleet(table, {pass, stopped});
  EXPECT_NE(table.str().find("STOPPED"), std::string::npos) << table.str();
  // The fleet says why it is not a pass: stopped is not failed.
  EXPECT_NE(table.str().find("xferbench check: INTERRUPTED 0 of 2 nodes failed, 1 stopped before the end; not accepted"),
            std::string::npos)
      << table.str();
  EXPECT_EQ(xb::report::fleet_json({pass, stopped})["verdict"], "interrupted");
  EXPECT_EQ(xb::report::fleet_json({pass, stopped})["nodes_failed"], 0);
  EXPECT_EQ(xb::report::fleet_json({pass, partial})["verdict"], "partial");
  EXPECT_EQ(xb::report::fleet_json({partial, fail})["verdict"], "fail");
}

}  // namespace

