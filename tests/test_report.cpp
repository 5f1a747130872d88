#include <gtest/gtest.h>

#include <sstream>

#include "fake_system.hpp"
#include "render.hpp"
#include "report/reporter.hpp"

namespace {

xb::RunResult sample_run() {
  xb::RunResult run;
  run.system = fake_system(2);
  run.settings.buffer_bytes = 512ull << 20;
  run.command_line = {"xferbench", "run"};
  xb::CaseResult c;
  c.index = 0;
  c.name = "host_to_device_memcpy_ce";
  xb::Matrix m;
  m.title = "memcpy CE host -> GPU(column) bandwidth (GB/s)";
  m.row_labels = {"host"};
  m.col_labels = {"gpu0", "gpu1"};
  for (int g = 0; g < 2; ++g) {
    m.cells.push_back(pcie_cell(g, {55.0 + g, 55.5 + g, 56.0 + g}));
  }
  c.matrices.push_back(m);
  run.cases.push_back(c);
  xb::CaseResult w;
  w.index = 4;
  w.name = "device_to_device_memcpy_read_ce";
  w.status = xb::CaseStatus::waived;
  w.message = "needs at least 2 GPUs";
  run.cases.push_back(w);
  return run;
}

}  // namespace

TEST(Json, VersionedSchemaWithUnitsInNames) {
  const auto j = xb::records::run_json(sample_run());
  EXPECT_EQ(j["schema"], "xferbench-run");
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["environment"]["gpus"].size(), 2u);
  EXPECT_EQ(j["environment"]["hostname"], "testhost");
  const auto& cell = j["cases"][0]["matrices"][0]["cells"][1];
  EXPECT_DOUBLE_EQ(cell["value_gbps"].get<double>(), 56.5);
  EXPECT_DOUBLE_EQ(cell["stats"]["min_gbps"].get<double>(), 56.0);
  EXPECT_EQ(cell["verification"]["status"], "passed");
  EXPECT_NEAR(cell["peak"]["gbps"].get<double>(), 63.015, 1e-3);
  EXPECT_EQ(j["cases"][1]["status"], "waived");
  EXPECT_EQ(j["status"], "passed");
}

TEST(Text, MatrixWithEfficiencyAndNoSum) {
  std::ostringstream os;
  const auto run = sample_run();
  for (const auto& c : run.cases) xb::report::make_reporter("text", os)->run_case(c);
  const std::string s = os.str();
  EXPECT_NE(s.find("55.50 (88%)"), std::string::npos) << s;
  EXPECT_NE(s.find("WAIVED: needs at least 2 GPUs"), std::string::npos);
  EXPECT_EQ(s.find("SUM"), std::string::npos);
}

TEST(Csv, OneRowPerCellWithHeader) {
  const std::string csv = xb::testing::rendered("csv", [&](auto& f) { f.run(sample_run()); });
  std::istringstream is(csv);
  std::string line;
  int rows = 0;
  std::getline(is, line);
  EXPECT_EQ(line.rfind("case_index,case,status,", 0), 0u);
  const auto columns = std::count(line.begin(), line.end(), ',');
  while (std::getline(is, line)) {
    ++rows;
    EXPECT_EQ(std::count(line.begin(), line.end(), ','), columns) << line;
  }
  EXPECT_EQ(rows, 3);  // two cells + the waived case
  EXPECT_EQ(xb::report::csv_escape("a,b"), "\"a,b\"");
  EXPECT_EQ(xb::report::csv_escape("say \"hi\""), "\"say \"\"hi\"\"\"");
}

TEST(Text, ListNotesMemoryTheNumaNodesDoNotHold) {
  xb::System sys = fake_system(1);
  xb::NumaNode node;
  node.id = 0;
  node.cpus = "0-31";
  node.memory_bytes = 4812272ull << 10;  // as a 251 GiB virtual machine reported its node 0
  node.free_bytes = 3361ull << 20;
  sys.numa = {node};
  sys.host_memory_bytes = 251ull << 30;
  std::ostringstream os;
  xb::report::make_reporter("text", os)->system(sys);
  EXPECT_NE(os.str().find("note: the NUMA nodes hold 4.6 GiB of the host's 251.0 GiB"), std::string::npos) << os.str();
  EXPECT_EQ(xb::records::system_json(sys)["host_memory_bytes"], 251ull << 30);
  // Nodes that hold (nearly) everything, or unknown figures: no note.
  EXPECT_EQ(xb::numa_memory_note({node}, node.memory_bytes + (1ull << 30)), "");
  EXPECT_EQ(xb::numa_memory_note({node}, 0), "");
  EXPECT_EQ(xb::numa_memory_note({}, 251ull << 30), "");
}

// -v: after each matrix a line per cell with the samples' count
// and nearest-rank percentiles in the metric's unit; without -v none.
TEST(Text, VerbosePrintsEachCellsPercentiles) {
  const auto run = sample_run();
  xb::report::ReportOptions verbose;
  verbose.verbose = true;
  const std::string v = xb::testing::rendered("text", [&](auto& f) { f.run_case(run.cases[0]); }, verbose);
  EXPECT_NE(v.find("#   [host,gpu0] n 3, p50 55.50, p95 56.00, p99 56.00, min 55.00, max 56.00 GB/s\n"),
            std::string::npos) << v;
  EXPECT_NE(v.find("#   [host,gpu1] n 3, p50 56.50, p95 57.00, p99 57.00, min 56.00, max 57.00 GB/s\n"),
            std::string::npos) << v;
  const std::string plain = xb::testing::rendered("text", [&](auto& f) { f.run_case(run.cases[0]); });
  EXPECT_EQ(plain.find("p95"), std::string::npos) << plain;
  // Latency cells in ns, one decimal.
  xb::CaseResult lat = run.cases[0];
  lat.matrices[0].metric = xb::Metric::latency_ns;
  lat.matrices[0].cells.resize(1);
  lat.matrices[0].cells[0].stats = xb::summarize({101.0, 99.0, 100.0, 130.0});
  const std::string ns = xb::testing::rendered("text", [&](auto& f) { f.run_case(lat); }, verbose);
  EXPECT_NE(ns.find("#   [host,gpu0] n 4, p50 100.5, p95 130.0, p99 130.0, min 99.0, max 130.0 ns\n"),
            std::string::npos) << ns;
}

TEST(Json, CellsCarryPercentilesNextToMinAndMax) {
  const auto j = xb::records::run_json(sample_run());
  const auto& stats = j["cases"][0]["matrices"][0]["cells"][0]["stats"];
  EXPECT_DOUBLE_EQ(stats["p50_gbps"].get<double>(), 55.5);
  EXPECT_DOUBLE_EQ(stats["p95_gbps"].get<double>(), 56.0);
  EXPECT_DOUBLE_EQ(stats["p99_gbps"].get<double>(), 56.0);
  EXPECT_DOUBLE_EQ(stats["min_gbps"].get<double>(), 55.0);
  EXPECT_DOUBLE_EQ(stats["max_gbps"].get<double>(), 56.0);
}
