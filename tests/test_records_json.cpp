// The record codecs (src/records/): for a populated record of each kind,
// encode -> decode -> encode gives the same document, so nothing a writer
// puts in a file is lost when the program reads it back; and a malformed
// document is a usage error (exit 2) naming the field.
#include <gtest/gtest.h>

#include <cmath>

#include "cases/cases.hpp"
#include "base/error.hpp"
#include "cases/runner.hpp"
#include "fake_source.hpp"
#include "firsttouch/first_touch_json.hpp"
#include "pingpong/pingpong_json.hpp"
#include "records/run_json.hpp"
#include "cases/sweep_json.hpp"
#include "records/system_json.hpp"

namespace {

using json = nlohmann::json;

// Every case of the catalogue on 2 fake GPUs with the drift check, then
// what a measured run does not always have: a stop, a resume source, waived
// and failed cells, sampled pairs, memory figures.
xb::RunResult populated_run() {
  FakeSource src(2);
  xb::RunRequest req;
  for (const xb::CaseDef& d : xb::case_catalogue()) req.cases.push_back(&d);
  req.buffer_bytes = 1 << 20;
  req.command_line = {"xferbench", "run", "-b", "1M"};
  xb::RunResult r = xb::run_cases(src, req, {}, xb::RunControls{});
  r.completion.status = xb::RunStatus::interrupted;
  r.completion.stop = xb::StopReason::sigint;
  r.completion.message = "interrupted by SIGINT";
  r.completion.not_run = {"device_local_copy[gpu0,gpu0]"};
  r.resumed_from = "part.json";
  r.completion.time_limit_s = 60;
  r.start_time_utc = "2026-11-24T10:00:00Z";
  r.wall_seconds = 12.5;
  r.settings.measure.host_kind = xb::MemKind::hugepages;
  r.settings.pairs.mode = xb::PairSelection::Mode::sampled;
  r.settings.pairs.pairs = {{0, 1}};
  r.settings.pairs.requested = 1;
  r.settings.pairs.seed = 7;
  r.settings.pairs.note = "1 of 2";
  xb::Cell& cell = r.cases[0].matrices[0].cells[0];
  cell.verification = {xb::Verification::Status::failed, 4096};
  cell.host_page_bytes = 2 << 20;
  cell.invalid = true;
  cell.invalid_reason = "above the link's peak";
  cell.note = "outlier";
  cell.error = "cudaErrorIllegalAddress";
  r.cases[1].status = xb::CaseStatus::waived;
  r.cases[1].waived_cells = {{0, 1, "does not fit"}};
  r.memory.gpus = {{0, 1000, "nvml_process"}, {1, 2000, "cuda_used_rise"}};
  r.memory.host_peak_rss_bytes = 3000;
  r.memory.planned = {{10, 20}, 30, 40, 50};
  r.memory.budget = {{60, 70}, 80, 0, 0};
  r.memory.budget_fixed = true;
  r.memory.pool = {1, 2, 3, 0.5, 0.25, 0.125};
  return r;
}

xb::SweepResult populated_sweep() {
  xb::SweepResult s;
  s.command_line = {"xferbench", "sweep", "--do", "0:HtoD"};
  s.start_time_utc = "2026-11-24T10:00:00Z";
  s.wall_seconds = 3;
  s.source = "spec";
  s.what = "0:HtoD";
  s.stream_mode = "shared";
  s.sizes = {4096, 1 << 20};
  s.system = fake_system(1);
  s.status = xb::SweepStatus::failed;
  s.messages = {"size 4096: verification failed"};
  s.series.resize(1);
  s.series[0].label = "host->gpu0";
  s.series[0].link = "PCIe Gen5 x16";
  s.series[0].peak = xb::pcie_peak(5, 16);
  for (std::uint64_t b : {4096ull, 1ull << 20}) {
    xb::SweepRow row;
    row.bytes = b;
    row.samples_gbps = {20.0, 21.0, 22.0};
    row.stats = xb::summarize(row.samples_gbps);
    row.value_gbps = row.stats.median;
    row.seconds_per_copy = static_cast<double>(b) / 21e9;
    row.copies_per_sample = 4;
    row.efficiency = 0.3;
    row.verification = xb::Verification::Status::passed;
    s.series[0].rows.push_back(row);
  }
  s.series[0].rows[0].invalid = true;
  s.series[0].fit = {true, 2, 2e-6, 55.0, 110000, 0.01};
  s.timeline = {1 << 20, 4, {"host->gpu0"}, {{0.0, 0.1}}, {{0.05, 0.15}}};
  s.completion.status = xb::RunStatus::partial;
  s.completion.stop = xb::StopReason::time_limit;
  s.completion.message = "time limit reached";
  s.completion.not_run = {"1073741824"};
  s.resumed_from = "part.json";
  s.completion.time_limit_s = 10;
  return s;
}

xb::SmSweepResult populated_sm_sweep() {
  xb::SmSweepResult r;
  r.command_line = {"xferbench", "sweep", "--sms"};
  r.case_name = "host_to_device_memcpy_sm";
  r.bytes = 1 << 20;
  r.sms = {1, 2, 0};
  r.system = fake_system(1);
  r.status = xb::SweepStatus::waived;
  r.messages = {"no"};
  r.series.resize(1);
  r.series[0].label = "[host,gpu0]";
  r.series[0].gpu_sms = 132;
  r.series[0].peak = xb::pcie_peak(5, 16);
  for (int sms : {1, 2, 132}) {
    xb::SmPoint p;
    p.sms = sms;
    p.samples_gbps = {1.0 * sms, 1.1 * sms};
    p.stats = xb::summarize(p.samples_gbps);
    p.value_gbps = p.stats.median;
    p.of_all = sms / 132.0;
    r.series[0].points.push_back(p);
  }
  xb::finish_series(r.series[0]);
  return r;
}

xb::pingpong::Result populated_pingpong() {
  xb::pingpong::Result r;
  r.mode = xb::pingpong::Mode::bibw;
  r.buffers = xb::pingpong::Buffers::echo;
  r.loop_count = 10;
  r.warmup = 2;
  r.window = 64;
  r.world_size = 4;
  r.all_pairs = true;
  r.requested_transport = "auto";
  xb::pingpong::PairResult a;
  a.rank_a = 0;
  a.rank_b = 1;
  a.host_a = a.host_b = "n1";
  a.gpu_a = 0;
  a.transport = "ipc";
  a.path = "rank 0: cudaIpc";
  a.sizes.push_back(xb::pingpong::summarize_size(r.mode, 64, r.window, {1e-6, 2e-6, 3e-6}));
  a.sizes[0].verified = true;
  a.sizes.push_back(xb::pingpong::summarize_size(r.mode, 4096, r.window, {4e-6}));
  a.sizes[1].verify_error = "byte 3";
  a.not_run = {1 << 20};
  xb::pingpong::PairResult b;
  b.rank_a = 2;
  b.rank_b = 3;
  b.error = "rank 3: no transport";
  r.pairs = {a, b};
  r.completion.status = xb::RunStatus::interrupted;
  r.completion.stop = xb::StopReason::sigterm;
  r.completion.message = "interrupted by SIGTERM";
  r.completion.not_run = {"r2-r3"};
  r.completion.time_limit_s = 5;
  return r;
}

xb::firsttouch::Result populated_first_touch() {
  xb::firsttouch::Result r;
  r.mode = "sweep";
  r.transport = "ipc";
  r.world_size = 2;
  r.receiver_rank = 1;
  r.sender_host = "a";
  r.receiver_host = "b";
  r.receiver_gpu = 1;
  r.iterations = 2;
  r.sub_iterations = 3;
  r.p2p_bytes = 4096;
  r.warmup_s = 0.5;
  xb::firsttouch::VariantResult v;
  v.label = "+4096 B";
  v.memory = "gpu";
  v.buffer_bytes = 1 << 20;
  v.overalloc_bytes = 4096;
  v.times_s = {{0.3, 0.1, 0.1}, {0.4, 0.1, 0.2}};
  v.phases.resize(2);
  v.phases[0].alloc_sender_s = 0.01;
  v.phases[0].steady_copy_s = {0.1, xb::firsttouch::kNotMeasured};
  v.phases[1].open_s = 0.02;
  v.failed = {"+4096 B/2: cuda error"};
  r.variants = {v};
  r.completion.status = xb::RunStatus::partial;
  r.completion.stop = xb::StopReason::time_limit;
  r.completion.message = "time limit";
  r.completion.not_run = {"+4096 B/3"};
  r.completion.time_limit_s = 1;
  r.completion.error = "rank 1 lost";
  return r;
}

const std::vector<std::string> kArgv = {"xferbench", "pingpong"};

// Error(usage) with a message holding every one of `words`.
template <class F>
void expect_usage_error(F decode, const std::vector<std::string>& words) {
  try {
    decode();
    FAIL() << "no error";
  } catch (const xb::Error& e) {
    EXPECT_EQ(e.kind(), xb::ErrorKind::usage) << e.what();
    for (const auto& w : words) EXPECT_NE(std::string(e.what()).find(w), std::string::npos) << e.what();
  }
}

}  // namespace

TEST(RecordsJson, RunRoundTrips) {
  const json doc = xb::records::run_json(populated_run());
  ASSERT_GT(doc["cases"].size(), 30u);
  EXPECT_EQ(xb::records::run_json(xb::records::decode_run(doc, "r.json")), doc);
}

TEST(RecordsJson, SystemRoundTrips) {
  const json doc = xb::records::system_json(fake_system(3));
  EXPECT_EQ(xb::records::system_json(xb::records::decode_system(doc)), doc);
}

TEST(RecordsJson, SweepsRoundTrip) {
  const json sweep = xb::records::sweep_json(populated_sweep());
  EXPECT_EQ(xb::records::sweep_json(xb::records::decode_sweep(sweep, "s.json")), sweep);
  xb::SweepResult by_case = populated_sweep();
  by_case.source = "case";
  by_case.what = "host_to_device_memcpy_ce";
  const json case_doc = xb::records::sweep_json(by_case);
  EXPECT_EQ(xb::records::sweep_json(xb::records::decode_sweep(case_doc, "s.json")), case_doc);
  const json sms = xb::records::sm_sweep_json(populated_sm_sweep());
  EXPECT_EQ(xb::records::sm_sweep_json(xb::records::decode_sm_sweep(sms, "m.json")), sms);
}

TEST(RecordsJson, PingpongAndFirstTouchRoundTrip) {
  const json pp = xb::records::pingpong_json(populated_pingpong(), kArgv);
  EXPECT_EQ(xb::records::pingpong_json(xb::records::decode_pingpong(pp, "p.json"), kArgv), pp);
  const json ft = xb::records::first_touch_json(populated_first_touch(), kArgv);
  EXPECT_EQ(xb::records::first_touch_json(xb::records::decode_first_touch(ft, "f.json"), kArgv), ft);
}

// Percentiles: every stats object carries p50 (the median), p95
// and p99; a file written before them still reads, its p95 and p99 taken
// from the samples it kept, so it writes back as a new file would.
static void erase_percentiles(json& j) {
  if (j.is_object()) {
    for (const char* unit : {"gbps", "ns"})
      for (const char* p : {"p50_", "p95_", "p99_"}) j.erase(std::string(p) + unit);
  }
  if (j.is_structured())
    for (json& x : j) erase_percentiles(x);
}

TEST(RecordsJson, PercentilesAreWrittenAndOldFilesWithoutThemStillRead) {
  xb::RunResult run = populated_run();
  xb::Cell& cell = run.cases[2].matrices[0].cells[0];
  cell.samples.clear();
  for (int i = 40; i >= 1; --i) cell.samples.push_back(i);
  cell.stats = xb::summarize(cell.samples);
  const json doc = xb::records::run_json(run);
  const json& stats = doc["cases"][2]["matrices"][0]["cells"][0]["stats"];
  const std::string unit = doc["cases"][2]["matrices"][0]["metric"] == "latency_ns" ? "ns" : "gbps";
  EXPECT_DOUBLE_EQ(stats["p50_" + unit].get<double>(), 20.5);
  EXPECT_DOUBLE_EQ(stats["p95_" + unit].get<double>(), 38.0);
  EXPECT_DOUBLE_EQ(stats["p99_" + unit].get<double>(), 40.0);
  EXPECT_DOUBLE_EQ(stats["min_" + unit].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(stats["max_" + unit].get<double>(), 40.0);
  json old = doc;
  erase_percentiles(old);
  ASSERT_FALSE(old["cases"][2]["matrices"][0]["cells"][0]["stats"].contains("p95_" + unit));
  EXPECT_EQ(xb::records::run_json(xb::records::decode_run(old, "old.json")), doc);

  const json sweep = xb::records::sweep_json(populated_sweep());
  EXPECT_DOUBLE_EQ(sweep["series"][0]["rows"][0]["stats"]["p95_gbps"].get<double>(), 22.0);
  json old_sweep = sweep;
  erase_percentiles(old_sweep);
  EXPECT_EQ(xb::records::sweep_json(xb::records::decode_sweep(old_sweep, "s.json")), sweep);
  const json sms = xb::records::sm_sweep_json(populated_sm_sweep());
  EXPECT_DOUBLE_EQ(sms["series"][0]["points"][1]["stats"]["p99_gbps"].get<double>(), 2.2);
  json old_sms = sms;
  erase_percentiles(old_sms);
  EXPECT_EQ(xb::records::sm_sweep_json(xb::records::decode_sm_sweep(old_sms, "m.json")), sms);

  // Ping-pong keeps no samples: an old file's p95 reads as 0, the rest as written.
  const json pp = xb::records::pingpong_json(populated_pingpong(), kArgv);
  const json& times = pp["pairs"][0]["sizes"][0]["one_way_time_s"];
  EXPECT_DOUBLE_EQ(times["p50"].get<double>(), times["median"].get<double>());
  EXPECT_DOUBLE_EQ(times["p95"].get<double>(), 3e-6 / 64);
  EXPECT_DOUBLE_EQ(times["p99"].get<double>(), 3e-6 / 64);
  json old_pp = pp;
  old_pp["pairs"][0]["sizes"][0]["one_way_time_s"].erase("p50");
  old_pp["pairs"][0]["sizes"][0]["one_way_time_s"].erase("p95");
  const auto back = xb::records::decode_pingpong(old_pp, "p.json");
  EXPECT_DOUBLE_EQ(back.pairs[0].sizes[0].one_way_s.median, 2e-6 / 64);
  EXPECT_DOUBLE_EQ(back.pairs[0].sizes[0].one_way_s.p99, 3e-6 / 64);
  EXPECT_DOUBLE_EQ(back.pairs[0].sizes[0].one_way_s.p95, 0.0);
}

TEST(RecordsJson, DecodeErrorsNameTheDocumentAndTheField) {
  json run = xb::records::run_json(populated_run());
  run["cases"][2]["matrices"][0]["cells"][1]["row"] = "zero";
  expect_usage_error([&] { xb::records::decode_run(run, "'r.json'"); },
                     {"'r.json' is a malformed xferbench-run result: cases[2].matrices[0].cells[1].row: "});
  run = xb::records::run_json(populated_run());
  run["cases"][0]["matrices"][0]["cells"][0]["row"] = 5;
  expect_usage_error([&] { xb::records::decode_run(run, "r"); }, {"cases[0].matrices[0].cells[0].row: not a row"});
  run = xb::records::run_json(populated_run());
  run["environment"]["gpus"][1]["pcie"] = 5;
  expect_usage_error([&] { xb::records::decode_run(run, "r"); }, {"environment.gpus[1].pcie: not an object"});
  run = xb::records::run_json(populated_run());
  run["cases"][3]["status"] = "great";
  expect_usage_error([&] { xb::records::decode_run(run, "r"); }, {"cases[3].status: unknown value 'great'"});
  json sweep = xb::records::sweep_json(populated_sweep());
  sweep["series"][0]["rows"][1].erase("value_gbps");
  expect_usage_error([&] { xb::records::decode_sweep(sweep, "s"); },
                     {"s is a malformed xferbench-sweep result: series[0].rows[1].value_gbps: missing"});
  json sms = xb::records::sm_sweep_json(populated_sm_sweep());
  sms["series"][0]["points"] = 3;
  expect_usage_error([&] { xb::records::decode_sm_sweep(sms, "m"); }, {"series[0].points: not an array"});
  json pp = xb::records::pingpong_json(populated_pingpong(), kArgv);
  pp["pairs"][1]["sizes"] = json::array({json::array()});
  expect_usage_error([&] { xb::records::decode_pingpong(pp, "p"); }, {"pairs[1].sizes[0]: not an object"});
  json ft = xb::records::first_touch_json(populated_first_touch(), kArgv);
  ft["variants"][0]["phases"][1]["ipc_open_time_s"] = "soon";
  expect_usage_error([&] { xb::records::decode_first_touch(ft, "f"); }, {"variants[0].phases[1].ipc_open_time_s: "});
}
