// Latency under load: the *_under_* cases plan a chase and its
// load, report the loaded and idle latency, their ratio and the load's
// bandwidth, flag a weak load, keep it all in the JSON, and check judges
// the ratio (max_ratio) and fails a weak load. All on the fake source.
#include <gtest/gtest.h>

#include "base/error.hpp"
#include "cases/case_plan.hpp"
#include "cases/cases.hpp"
#include "cases/runner.hpp"
#include "check/judge.hpp"
#include "check/node.hpp"
#include "check/spec.hpp"
#include "fake_source.hpp"
#include "fake_system.hpp"
#include "measure/latency.hpp"
#include "records/run_json.hpp"

namespace {

using xb::LatencyLoad;

// The message of the usage error `f` throws; "" when it throws none.
template <class F>
std::string usage_error(F f) {
  try {
    f();
  } catch (const xb::Error& e) {
    EXPECT_EQ(e.kind(), xb::ErrorKind::usage);
    return e.what();
  }
  return "";
}
using xb::select_cases;

const xb::CaseDef& named(const std::string& name) { return *select_cases({name}, {}).at(0); }

xb::RunResult run_loaded(FakeSource& src, const std::vector<std::string>& names) {
  xb::RunRequest req;
  for (const auto& n : names) req.cases.push_back(&named(n));
  req.buffer_bytes = 64 << 20;
  return xb::run_cases(src, req, {}, xb::RunControls{});
}

const xb::Cell& cell_at(const xb::CaseResult& c, std::size_t matrix, int row, int col) {
  const xb::Cell* cell = xb::find_cell(c.matrices.at(matrix), row, col);
  if (!cell) throw std::runtime_error("no cell");
  return *cell;
}

TEST(LoadedLatency, CatalogueAndSuite) {
  const auto& c = xb::case_catalogue();
  ASSERT_GE(c.size(), 51u);
  EXPECT_EQ(c[45].name, "device_local_latency_sm");
  EXPECT_EQ(c[45].load, LatencyLoad::none);
  EXPECT_EQ(c[46].name, "host_device_latency_sm_under_host_to_device_ce");
  EXPECT_EQ(c[47].name, "host_device_latency_sm_under_device_to_host_ce");
  EXPECT_EQ(c[48].name, "host_device_latency_sm_under_bidirectional_ce");
  EXPECT_EQ(c[49].name, "device_local_latency_sm_under_local_copy_ce");
  EXPECT_EQ(c[50].name, "device_to_device_latency_sm_under_read_ce");
  const auto suite = xb::suite_cases("loaded");
  ASSERT_EQ(suite.size(), 5u);
  for (const auto* d : suite) EXPECT_NE(d->load, LatencyLoad::none) << d->name;
  EXPECT_NE(usage_error([] { xb::suite_cases("heavy"); }).find("quick, full, loaded or all"), std::string::npos);
}

TEST(LoadedLatency, PlanHasTheChaseThenItsLoad) {
  const auto sys = fake_system(2);
  const std::uint64_t b = 64 << 20;
  auto plan = xb::plan_case(named("host_device_latency_sm_under_host_to_device_ce"), sys, b);
  ASSERT_EQ(plan.matrices.size(), 3u);
  EXPECT_EQ(plan.matrices[1].name, "idle");
  EXPECT_EQ(plan.matrices[2].name, "load");
  EXPECT_EQ(plan.matrices[0].metric, xb::Metric::latency_ns);
  EXPECT_EQ(plan.matrices[1].metric, xb::Metric::latency_ns);
  EXPECT_EQ(plan.matrices[2].metric, xb::Metric::bandwidth_gbps);
  ASSERT_EQ(plan.cells.size(), 2u);
  const auto& cell = plan.cells[1];
  ASSERT_EQ(cell.scenario.transfers.size(), 2u);
  EXPECT_TRUE(cell.scenario.transfers[0].src.on_host());  // the chase through host memory by gpu1
  EXPECT_EQ(cell.scenario.transfers[0].exec_device, 1);
  const xb::Transfer& load = cell.scenario.transfers[1];
  EXPECT_TRUE(load.src.on_host());
  EXPECT_EQ(load.dst.device, 1);
  EXPECT_EQ(load.engine, xb::Engine::copy_engine);
  EXPECT_EQ(load.bytes, b);
  ASSERT_EQ(cell.outputs.size(), 3u);
  EXPECT_DOUBLE_EQ(cell.outputs[2].peak.gbps, sys.gpus[1].host_link.gbps);
  // Ring and load buffers are needed at once.
  const auto req = xb::cell_requests(plan, cell);
  ASSERT_EQ(req.size(), 3u);
  EXPECT_EQ(req[0].bytes, xb::kChaseBytes);

  plan = xb::plan_case(named("host_device_latency_sm_under_bidirectional_ce"), sys, b);
  ASSERT_EQ(plan.cells[0].scenario.transfers.size(), 3u);
  EXPECT_DOUBLE_EQ(plan.cells[0].outputs[2].peak.gbps, 2 * sys.gpus[0].host_link.gbps);

  plan = xb::plan_case(named("device_local_latency_sm_under_local_copy_ce"), sys, b);
  EXPECT_EQ(plan.matrices[0].row_labels, std::vector<std::string>{"local"});
  EXPECT_EQ(xb::cell_requests(plan, plan.cells[0])[0].bytes, xb::kLocalChaseBytes);
  EXPECT_DOUBLE_EQ(plan.cells[0].outputs[2].peak.gbps, sys.link(0, 0).peak.gbps);

  plan = xb::plan_case(named("device_to_device_latency_sm_under_read_ce"), sys, b);
  ASSERT_EQ(plan.cells.size(), 2u);  // gpu0 -> gpu1 and gpu1 -> gpu0
  const xb::Transfer& read = plan.cells[0].scenario.transfers[1];
  EXPECT_EQ(read.src.device, plan.cells[0].col);  // the row GPU reads the column GPU's memory
  EXPECT_EQ(read.dst.device, plan.cells[0].row);
  EXPECT_EQ(read.exec_device, plan.cells[0].row);
  EXPECT_TRUE(xb::waive_reason(named("device_to_device_latency_sm_under_read_ce"), fake_system(1)).has_value());
  EXPECT_FALSE(xb::waive_reason(named("device_local_latency_sm_under_local_copy_ce"), fake_system(1)).has_value());
}

TEST(LoadedLatency, CellsCarryIdleLoadedRatioAndLoad) {
  FakeSource src(2);
  const auto r = run_loaded(src, {"host_device_latency_sm_under_host_to_device_ce",
                                  "device_local_latency_sm_under_local_copy_ce"});
  for (const auto& c : r.cases) {
    ASSERT_EQ(c.status, xb::CaseStatus::passed) << c.name << ": " << c.message;
    const xb::Cell& loaded = cell_at(c, 0, 0, 1);
    const xb::Cell& idle = cell_at(c, 1, 0, 1);
    const xb::Cell& load = cell_at(c, 2, 0, 1);
    ASSERT_TRUE(loaded.loaded.has_value());
    EXPECT_FALSE(idle.loaded.has_value());
    const xb::LoadedLatency& l = *loaded.loaded;
    EXPECT_DOUBLE_EQ(l.idle_ns, idle.value);
    EXPECT_DOUBLE_EQ(l.loaded_ns, loaded.value);
    EXPECT_NEAR(l.ratio, 2.8, 1e-9);
    EXPECT_DOUBLE_EQ(l.load_gbps, load.value);
    EXPECT_NEAR(l.load_pct, load.value / load.peak.gbps * 100, 1e-9);
    EXPECT_FALSE(l.weak);
    EXPECT_EQ(load.verification.status, xb::Verification::Status::passed);
    EXPECT_TRUE(loaded.note.empty());
  }
}

TEST(LoadedLatency, WeakLoadIsFlaggedAndFailsCheck) {
  FakeSource src(2);
  src.load_share = 0.3;  // 15 GB/s of a 63 GB/s link
  auto r = run_loaded(src, {"host_device_latency_sm_under_device_to_host_ce"});
  const xb::Cell& loaded = cell_at(r.cases[0], 0, 0, 0);
  ASSERT_TRUE(loaded.loaded.has_value());
  EXPECT_TRUE(loaded.loaded->weak);
  EXPECT_LT(loaded.loaded->load_pct, 50);
  EXPECT_NE(loaded.note.find("weak load"), std::string::npos);

  xb::check::CheckResult cr;
  cr.run = r;
  xb::check::judge_result(cr, {});
  bool found = false;
  for (const auto& c : cr.cells) {
    if (c.matrix != "" || !c.loaded) continue;
    found = true;
    EXPECT_EQ(c.verdict, xb::check::CellVerdict::fail) << c.key;
    EXPECT_NE(c.note.find("weak load"), std::string::npos) << c.note;
  }
  EXPECT_TRUE(found);

  // A full load is not flagged.
  FakeSource strong(2);
  r = run_loaded(strong, {"host_device_latency_sm_under_device_to_host_ce"});
  EXPECT_FALSE(cell_at(r.cases[0], 0, 0, 0).loaded->weak);
}

TEST(LoadedLatency, JsonKeepsTheLoadedRecord) {
  FakeSource src(2);
  src.load_share = 0.3;
  const auto r = run_loaded(src, {"host_device_latency_sm_under_bidirectional_ce"});
  const nlohmann::json j = xb::records::run_json(r);
  const auto& cell = j["cases"][0]["matrices"][0]["cells"][0];
  ASSERT_TRUE(cell.contains("loaded"));
  EXPECT_NEAR(cell["loaded"]["ratio"].get<double>(), 2.8, 1e-9);
  EXPECT_TRUE(cell["loaded"]["load"]["weak"].get<bool>());
  EXPECT_NEAR(cell["loaded"]["load"]["peak_gbps"].get<double>(), 2 * xb::pcie_peak(5, 16).gbps, 1e-9);
  EXPECT_FALSE(j["cases"][0]["matrices"][1]["cells"][0].contains("loaded"));
  const xb::RunResult back = xb::records::decode_run(j, "run.json");
  const xb::Cell& c = back.cases[0].matrices[0].cells[0];
  ASSERT_TRUE(c.loaded.has_value());
  EXPECT_DOUBLE_EQ(c.loaded->ratio, r.cases[0].matrices[0].cells[0].loaded->ratio);
  EXPECT_DOUBLE_EQ(c.loaded->load_pct, r.cases[0].matrices[0].cells[0].loaded->load_pct);
  EXPECT_TRUE(c.loaded->weak);
  EXPECT_EQ(xb::records::run_json(back).dump(), j.dump());
}

TEST(LoadedLatency, SpecMaxRatio) {
  using xb::check::parse_spec_text;
  const std::string entry = "[[expect]]\ncase = \"host_device_latency_sm_under_host_to_device_ce\"\n";
  auto spec = parse_spec_text(entry + "max_ratio = 3.0\n", "s.toml");
  FakeSource src(2);
  auto judged = [&](const xb::check::CheckSpec& s) {
    xb::check::CheckResult cr;
    cr.run = run_loaded(src, {"host_device_latency_sm_under_host_to_device_ce"});
    xb::check::JudgeOptions jo;
    jo.spec = &s;
    xb::check::judge_result(cr, jo);
    std::vector<xb::check::CheckCell> out;
    for (const auto& c : cr.cells)
      if (c.loaded) out.push_back(c);
    return out;
  };
  auto cells = judged(spec);
  ASSERT_EQ(cells.size(), 2u);
  for (const auto& c : cells) {
    EXPECT_EQ(c.verdict, xb::check::CellVerdict::pass) << c.note;
    EXPECT_NEAR(c.threshold, c.idle_ns * 3.0, 1e-9);
    EXPECT_NE(c.note.find("loaded / idle = 2.80, at most 3.00"), std::string::npos) << c.note;
  }
  spec = parse_spec_text(entry + "max_ratio = 2.5\n", "s.toml");
  for (const auto& c : judged(spec)) EXPECT_EQ(c.verdict, xb::check::CellVerdict::fail) << c.note;

  auto error_of = [](const std::string& text) {
    return usage_error([&] { parse_spec_text(text, "s.toml"); });
  };
  EXPECT_NE(error_of("[[expect]]\ncase = \"host_device_latency_sm\"\nmax_ratio = 3\n").find("is not measured under load"),
            std::string::npos);
  EXPECT_NE(error_of(entry + "max_ratio = 0.5\n").find("'max_ratio' needs a number from 1 to 1000"), std::string::npos);
  EXPECT_NE(error_of(entry + "max_ratio = 3\nmax = \"9 us\"\n").find("exactly one of"), std::string::npos);
  // The load matrix of a loaded case takes a bandwidth minimum.
  EXPECT_NO_THROW(parse_spec_text(entry + "matrix = \"load\"\nmin = \"40 GB/s\"\n", "s.toml"));
}


// A run file whose loaded/idle ratio is negative passed any
// max_ratio. The run's codec refuses it (exit 2 naming the field), and the
// judge fails a ratio of 0 or less however the record was made.
TEST(LoadedLatency, ANegativeRatioIsRefusedAndNeverPasses) {
  FakeSource src(1);
  const xb::RunResult r = run_loaded(src, {"host_device_latency_sm_under_host_to_device_ce"});
  nlohmann::json j = xb::records::run_json(r);
  nlohmann::json& loaded = j["cases"][0]["matrices"][0]["cells"][0]["loaded"];
  ASSERT_TRUE(loaded.is_object()) << j["cases"][0]["matrices"][0]["cells"][0].dump();
  loaded["ratio"] = -2.8;
  const std::string msg = usage_error([&] { xb::records::decode_run(j, "'neg.json'"); });
  EXPECT_NE(msg.find("ratio: -2.8: loaded over idle latency is not negative"), std::string::npos) << msg;

  const auto spec = xb::check::parse_spec_text(
      "[[expect]]\ncase = \"host_device_latency_sm_under_host_to_device_ce\"\nmax_ratio = 3.0\n", "s.toml");
  xb::check::CheckResult cr;
  cr.run = r;
  for (auto& c : cr.run.cases[0].matrices[0].cells) c.loaded->ratio = -2.8;
  xb::check::JudgeOptions jo;
  jo.spec = &spec;
  xb::check::judge_result(cr, jo);
  int judged = 0;
  for (const auto& c : cr.cells)
    if (c.loaded) {
      ++judged;
      EXPECT_EQ(c.verdict, xb::check::CellVerdict::fail) << c.note;
    }
  EXPECT_GT(judged, 0);
}

}  // namespace
