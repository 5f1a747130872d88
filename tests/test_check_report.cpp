// The check reporters: XML escaping, the JUnit document, the JSON section;
// and check under a launch of several simulated nodes (in-process ranks,
// fake GPUs): one fleet document, one table, every node judged.
#include <gtest/gtest.h>

#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <regex>
#include <sstream>

#include "app/cli.hpp"
#include "check/node.hpp"
#include "comm/inproc_comm.hpp"
#include "fake_source.hpp"
#include "render.hpp"
#include "report/reporter.hpp"
#include "records/check_verdict_json.hpp"
#include "records/run_json.hpp"
#include "fleet/node_json.hpp"

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
  r.run = xb::records::decode_run(json::parse(f), "run");
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

// The check verdict both ways: the "check" section check_json writes reads
// back into the record that writes it again, and a fleet decodes check's
// document into the run and that verdict.
TEST(CheckVerdictCodec, RoundTripOfAJudgedRun) {
  CheckResult r = recorded_with_findings();
  r.remeasured_cases = {"device_local_copy"};
  xb::check::CellWindow w;
  w.case_name = "device_local_copy";
  w.gpus_used = {0};
  w.throttled = true;
  w.gpus.push_back({0, {}, {}});
  w.gpus[0].after.sm_clock_mhz = 1980;
  w.gpus[0].after.clock_reasons = 0;
  r.telemetry = {w};
  const json doc = xb::report::check_json(r);
  const json& section = doc[xb::records::kCheckSectionKey];
  const xb::records::CheckVerdict v = xb::records::decode_check_verdict(section, "check.json");
  EXPECT_EQ(xb::records::check_verdict_json(v), section);
  EXPECT_EQ(v.verdict, "fail");
  EXPECT_EQ(xb::records::outcome_of(v), xb::Outcome::failed);
  EXPECT_EQ(v.summary, xb::report::check_summary_line(r));
  EXPECT_EQ(v.cells.size(), r.cells.size());
  EXPECT_EQ(v.findings.size(), 2u);
  ASSERT_EQ(v.telemetry.size(), 1u);
  EXPECT_EQ(v.telemetry[0].gpus[0].after.sm_clock_mhz, 1980u);
  EXPECT_FALSE(v.telemetry[0].gpus[0].before.sm_clock_mhz.has_value());
  const auto checked = xb::fleet::decode_node_result(doc);
  ASSERT_NE(xb::fleet::check_of(checked), nullptr);
  EXPECT_EQ(xb::fleet::check_of(checked)->summary, v.summary);
  ASSERT_NE(xb::fleet::run_of(checked), nullptr);
  EXPECT_EQ(xb::fleet::run_of(checked)->cases.size(), r.run.cases.size());
}

// A malformed section is one line naming the document and the field.
TEST(CheckVerdictCodec, MalformedSectionNamesTheField) {
  const auto message = [](const json& section) {
    try {
      xb::records::decode_check_verdict(section, "node7's result");
    } catch (const xb::Error& e) {
      EXPECT_EQ(e.kind(), xb::ErrorKind::usage);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const json section = xb::report::check_json(recorded_with_findings())[xb::records::kCheckSectionKey];
  json unknown = section;
  unknown["verdict"] = "maybe";
  EXPECT_EQ(message(unknown), "node7's result is a malformed xferbench-run result: check.verdict: unknown verdict "
                              "'maybe' (pass, fail, partial or interrupted)");
  json no_key = section;
  no_key["cells"][0].erase("key");
  EXPECT_EQ(message(no_key), "node7's result is a malformed xferbench-run result: check.cells[0].key: missing");
  EXPECT_EQ(message(json::array()), "node7's result is a malformed xferbench-run result: check: not an object");
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
  const std::string x = xb::testing::rendered("junit", [&](auto& f) { f.check(r); });
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

// Two simulated nodes under one launch (nodeA: 2 fake GPUs, which pass
// with a spec for their slow fake memory; nodeB: 2 processes, no GPU), each
// rank running the command line as main() does: each node is checked once,
// rank 0 alone prints one table and writes one fleet file (the run/sweep
// schema, nodeA's check record inside) and one JUnit, and every rank exits
// 3: a node that could not check itself fails the acceptance with its own
// code, as one node's check without a GPU exits 3 and as run's fleet does
// (one rule, README "Exit codes"). --timeout is --fleet-timeout's former name.
TEST(CheckFleet, ChecksUnderALaunchMakeOneFleetDocument) {
  const std::string dir = ::testing::TempDir(), file = dir + "check_fleet.json", junit = dir + "check_fleet.xml";
  const std::string spec = dir + "check_fleet.toml";
  std::ofstream(spec) << "[[expect]]\ncase = \"device_local_copy\"\nmin = \"300 GB/s\"\n";
  std::remove(file.c_str());
  xb::comm::InprocOptions w;
  w.hosts = {"nodeA", "nodeB", "nodeB"};
  w.size = 3;
  std::mutex m;
  std::map<std::string, int> checked;
  std::map<int, int> codes;
  std::string errors;
  std::ostringstream printed;
  std::streambuf* old = std::cout.rdbuf(printed.rdbuf());
  xb::comm::run_ranks(w, [&](xb::comm::Communicator& comm) {
    xb::app::Context ctx;
    ctx.argv = {"xferbench"};
    ctx.launch = &comm;
    const std::string host = comm.host_name();
    ctx.open_source = [&, host](const xb::MeasureOptions&) -> std::unique_ptr<xb::SampleSource> {
      {
        std::lock_guard<std::mutex> lock(m);
        ++checked[host];
      }
      if (host == "nodeB") xb::fail(xb::ErrorKind::no_device, "no CUDA GPU found");
      return std::make_unique<FakeSource>(2);
    };
    auto app = xb::app::make_app(ctx);
    std::ostringstream out, err;
    int code = xb::app::parse_args(*app, ctx, {"check", "--budget", "0.01", "--spec", spec, "--timeout", "60", "-o",
                                                    file, "--junit", junit},
                                   out, err);
    if (code < 0) code = xb::app::run_action(ctx, err);
    std::lock_guard<std::mutex> lock(m);
    codes[comm.rank()] = code;
    errors += err.str();
  });
  std::cout.rdbuf(old);
  EXPECT_EQ(checked, (std::map<std::string, int>{{"nodeA", 1}, {"nodeB", 1}}));
  EXPECT_EQ(codes, (std::map<int, int>{{0, 3}, {1, 3}, {2, 3}})) << errors;
  EXPECT_EQ(errors, "");

  std::ifstream f(file);
  ASSERT_TRUE(f) << "no fleet file";
  const json doc = json::parse(f);
  EXPECT_EQ(doc["schema"], "xferbench-fleet");
  EXPECT_EQ(doc["command"], "check");
  EXPECT_EQ(doc["status"], "failed");
  EXPECT_EQ(doc["exit_code"], 3);
  EXPECT_EQ(doc["launch"]["processes"], 3);
  const json& a = doc["nodes"]["nodeA"];
  EXPECT_EQ(a["status"], "passed");
  EXPECT_EQ(a["result"]["schema"], "xferbench-run");
  EXPECT_EQ(a["result"]["check"]["exit_code"], a["exit_code"]);
  EXPECT_GT(a["result"]["check"]["cells"].size(), 10u);
  EXPECT_EQ(a["gpu_group"], "2 x Fake H200");
  const json& b = doc["nodes"]["nodeB"];
  EXPECT_EQ(b["status"], "error");
  EXPECT_EQ(b["exit_code"], 3);
  EXPECT_EQ(b["error"]["message"], "no CUDA GPU found");

  const std::string table = printed.str();
  EXPECT_EQ(occurrences(table, "# xferbench check: 2 nodes"), 1) << table;
  EXPECT_NE(table.find(a["result"]["check"]["summary"].get<std::string>()), std::string::npos) << table;
  EXPECT_TRUE(std::regex_search(table, std::regex("nodeA +PASS +[0-9.]+  xferbench check: PASS"))) << table;
  EXPECT_TRUE(std::regex_search(table, std::regex("nodeB +ERROR +0.0  no CUDA GPU found"))) << table;
  EXPECT_NE(table.find("xferbench check: FAIL 1 of 2 nodes failed\n"), std::string::npos) << table;
  std::ifstream j(junit);
  std::stringstream x;
  x << j.rdbuf();
  EXPECT_NE(x.str().find("<testsuites name=\"xferbench check fleet\" tests=\"2\""), std::string::npos) << x.str();
  EXPECT_NE(x.str().find("<error message=\"no CUDA GPU found\"/>"), std::string::npos) << x.str();
}

xb::fleet::FleetNode node(const std::string& host, const std::string& status, int exit_code) {
  xb::fleet::FleetNode n;
  n.key = host;
  n.record.exit_code = exit_code;
  if (status == "error") {
    n.record.error_kind = "no_device";
    n.record.error = "no CUDA GPU found";
    return n;
  }
  n.status = status;
  xb::fleet::CheckedRun checked;
  checked.check.summary = "xferbench check: " + status;
  checked.check.wall_seconds = 9.5;
  n.result = checked;
  return n;
}

// Every node must pass, by the one rule of single-node and fleet runs
// (README "Exit codes"): a node stopped by a signal gives the job its code;
// else the code the nodes that did not pass share (3 for nodes without a
// GPU, as one node's check without a GPU exits 3; 10 for the time limit
// alone), 1 when they differ.
TEST(CheckFleet, AcceptanceExitCodeForStoppedPartialAndMissingNodes) {
  // check's fleet: the fleet's rule without outliers, every node required.
  const auto acceptance_exit_code = [](const std::vector<xb::fleet::FleetNode>& nodes) {
    return xb::fleet::fleet_exit_code(nodes, {}, false, true);
  };
  const auto pass = node("a", "passed", 0), fail = node("b", "failed", 1), partial = node("c", "partial", 10);
  const auto stopped = node("nodeB", "interrupted", 143), error = node("e", "error", 3);
  const auto cuda = node("f", "error", 8);
  EXPECT_EQ(acceptance_exit_code({pass}), 0);
  EXPECT_EQ(acceptance_exit_code({}), 1);
  EXPECT_EQ(acceptance_exit_code({pass, error}), 3);
  EXPECT_EQ(acceptance_exit_code({error, error}), 3);
  EXPECT_EQ(acceptance_exit_code({error, cuda}), 1);
  EXPECT_EQ(acceptance_exit_code({fail, error}), 1);
  EXPECT_EQ(acceptance_exit_code({pass, stopped}), 143);
  EXPECT_EQ(acceptance_exit_code({fail, stopped}), 143);
  EXPECT_EQ(acceptance_exit_code({pass, partial}), 10);
  EXPECT_EQ(acceptance_exit_code({partial, fail}), 1);
  xb::fleet::Fleet f;
  f.nodes = {pass, stopped};
  f.exit_code = acceptance_exit_code(f.nodes);
  std::ostringstream table;
  xb::report::text_fleet(table, f);
  EXPECT_NE(table.str().find("STOPPED"), std::string::npos) << table.str();
  // The fleet says why it is not a pass: stopped is not failed.
  EXPECT_NE(table.str().find("xferbench check: INTERRUPTED 0 of 2 nodes failed, 1 stopped before the end; not accepted"),
            std::string::npos)
      << table.str();
  EXPECT_EQ(xb::report::fleet_json(f)["status"], "interrupted");
  f.nodes = {pass, partial};
  f.exit_code = acceptance_exit_code(f.nodes);
  EXPECT_EQ(xb::report::fleet_json(f)["status"], "partial");
  f.nodes = {partial, fail};
  f.exit_code = acceptance_exit_code(f.nodes);
  EXPECT_EQ(xb::report::fleet_json(f)["status"], "failed");
  EXPECT_EQ(xb::report::fleet_json(f)["fleet"]["failed_nodes"].size(), 2u);
}

// --timeout is --fleet-timeout's former name; a bad value is named as typed.
TEST(CheckFleet, TimeoutAliasParsesAndNamesItself) {
  for (const char* name : {"--timeout", "--fleet-timeout"}) {
    xb::app::Context ctx;
    ctx.argv = {"xferbench"};
    auto app = xb::app::make_app(ctx);
    std::ostringstream out, err;
    EXPECT_EQ(xb::app::parse_args(*app, ctx, {"check", name, "120"}, out, err), -1) << err.str();
    auto again = xb::app::make_app(ctx);
    EXPECT_EQ(xb::app::parse_args(*again, ctx, {"check", name, "0"}, out, err), 2);
    EXPECT_NE(err.str().find(std::string("invalid ") + name + " '0': must be a number of seconds above 0"),
              std::string::npos) << err.str();
  }
}

}  // namespace

