// Concurrent scenarios without a GPU: overlap over intervals (exact),
// description of transfers (directions, links, peaks), refusal of GPU pairs
// without peer access, the figures computed from hand-made samples, and the
// text/JSON/CSV reporters.
#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cases/concurrent.hpp"
#include "base/error.hpp"
#include "base/input_file.hpp"
#include "fake_system.hpp"
#include "frontends/cuts.hpp"
#include "frontends/spec.hpp"
#include "records/scenario_json.hpp"
#include "report/reporter.hpp"

namespace xb {
namespace {

Scenario scenario_of(const std::string& spec, int gpus) {
  return expand_requests(parse_transfer_spec(spec), gpus, StreamMode::per_transfer);
}

// Two transfers of 1 MB and 3 MB, 2 copies per sample, 3 samples. Sample 1
// has the median span (2 ms): transfer 0 runs [0, 1] ms, transfer 1
// [0.5, 2] ms, so they overlap for 0.5 ms = 25% of the span.
ScenarioSamples two_transfer_samples() {
  ScenarioSamples s;
  s.copies_per_sample = 2;
  s.total_seconds = {3e-3, 2e-3, 1e-3};
  s.transfers.resize(2);
  s.transfers[0].seconds = {2e-3, 1e-3, 0.5e-3};
  s.transfers[0].start_s = {0, 0, 0};
  s.transfers[0].end_s = {2e-3, 1e-3, 0.5e-3};
  s.transfers[1].seconds = {3e-3, 1.5e-3, 1e-3};
  s.transfers[1].start_s = {0, 0.5e-3, 0};
  s.transfers[1].end_s = {3e-3, 2e-3, 1e-3};
  s.transfers[0].verification.status = Verification::Status::passed;
  s.transfers[1].verification = {Verification::Status::failed, 4096};
  s.wall_seconds = 1.5;
  return s;
}

ScenarioResult measured_result() {
  const System sys = fake_system(2);
  Scenario sc = scenario_of("0:HtoD:1000000 1:DtoD:3000000:peer=0", 2);
  ScenarioResult r = describe_scenario(sys, sc);
  summarize_samples(r, two_transfer_samples(), xb::Statistic::median);
  r.front_end = "bwtest";
  r.command_line = {"xferbench", "run", "--do=0:HtoD:1000000"};
  return r;
}

TEST(Overlap, DisjointTouchingNestedAndEmpty) {
  EXPECT_DOUBLE_EQ(overlapped_seconds({}), 0.0);
  EXPECT_DOUBLE_EQ(overlapped_seconds({{0, 1}, {2, 3}}), 0.0);
  EXPECT_DOUBLE_EQ(overlapped_seconds({{0, 1}, {1, 2}}), 0.0);  // touching ends do not overlap
  EXPECT_DOUBLE_EQ(overlapped_seconds({{0, 4}, {1, 2}}), 1.0);
  EXPECT_DOUBLE_EQ(overlapped_seconds({{0, 2}, {1, 3}}), 1.0);
  EXPECT_DOUBLE_EQ(overlapped_seconds({{0, 2}, {0, 2}, {0, 2}}), 2.0);  // three at once counts once
  EXPECT_DOUBLE_EQ(overlapped_seconds({{0, 1}, {0.5, 3}, {2, 4}}), 1.5);
  EXPECT_DOUBLE_EQ(overlapped_seconds({{1, 1}, {0, 2}, {3, 2}}), 0.0);  // empty and reversed are ignored
}

TEST(Overlap, FractionAndConcurrency) {
  EXPECT_DOUBLE_EQ(overlap_fraction({{0, 2}, {1, 3}}, 4.0), 0.25);
  EXPECT_DOUBLE_EQ(overlap_fraction({{0, 2}, {1, 3}}, 0.0), 0.0);
  EXPECT_DOUBLE_EQ(overlap_fraction({{0, 2}, {0, 2}}, 1.0), 1.0);  // clamped
  EXPECT_EQ(max_concurrency({}), 0);
  EXPECT_EQ(max_concurrency({{0, 1}, {1, 2}}), 1);
  EXPECT_EQ(max_concurrency({{0, 3}, {1, 2}, {1.5, 4}}), 3);
}

TEST(Overlap, MedianIndex) {
  EXPECT_EQ(median_index({5.0}), 0u);
  EXPECT_EQ(median_index({3.0, 1.0, 2.0}), 2u);
  EXPECT_EQ(median_index({4.0, 1.0, 3.0, 2.0}), 3u);  // lower median
  EXPECT_EQ(median_index({2.0, 2.0, 2.0}), 1u);  // equal values keep their order
  EXPECT_THROW(median_index({}), Error);
}

TEST(Describe, DirectionsLinksAndPeaks) {
  const System sys = fake_system(2);
  const Scenario sc = scenario_of("0:both:64K:wc 1:DtoD:peer=0:engine=sm", 2);
  const ScenarioResult r = describe_scenario(sys, sc);
  ASSERT_EQ(r.transfers.size(), 3u);
  EXPECT_EQ(r.transfers[0].direction, "HtoD");
  EXPECT_EQ(r.transfers[0].memory, MemKind::write_combined);
  EXPECT_EQ(r.transfers[0].src_gpu, -1);
  EXPECT_EQ(r.transfers[0].dst_gpu, 0);
  EXPECT_EQ(r.transfers[0].link, "PCIe Gen5 x16");
  EXPECT_DOUBLE_EQ(r.transfers[0].peak.gbps, sys.gpus[0].host_link.gbps);
  EXPECT_EQ(r.transfers[1].direction, "DtoH");
  EXPECT_EQ(r.transfers[1].label, "gpu0->host");
  EXPECT_EQ(r.transfers[2].direction, "DtoD");
  EXPECT_EQ(r.transfers[2].link, "NVLink x18");
  EXPECT_EQ(r.transfers[2].engine, Engine::sm);
  EXPECT_EQ(r.transfers[2].src_gpu, 1);
  EXPECT_EQ(r.transfers[2].dst_gpu, 0);
  EXPECT_DOUBLE_EQ(r.transfers[2].peak.gbps, sys.link(1, 0).peak.gbps);
  EXPECT_EQ(r.transfers[2].device_name, "Fake H200");
}

TEST(Describe, ResolverGivesTheHostNode) {
  const System sys = fake_system(1);
  const ScenarioResult r = describe_scenario(sys, scenario_of("0:HtoD", 1), [](const Location& l, int) {
    Location out = l;
    out.numa = 3;
    return out;
  });
  EXPECT_EQ(r.transfers[0].host_numa, 3);
}

TEST(CheckScenario, RefusesAPairWithoutPeerAccess) {
  const System no_peers = fake_system(2, false);
  try {
    check_scenario(no_peers, scenario_of("0:DtoD:peer=1", 2));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_STREQ(e.what(), "gpu0 -> gpu1: no peer access; xferbench does not stage through host memory");
  }
  // CUts spelling: --dtod=1,0 copies from 0 to 1.
  CutsOptions cuts;
  cuts.dtod = {{1, 0}};
  const Scenario sc = expand_requests(cuts_to_requests(cuts), 2, StreamMode::per_transfer);
  EXPECT_THROW(check_scenario(no_peers, sc), Error);
  EXPECT_NO_THROW(check_scenario(fake_system(2), sc));
  // Managed memory migrates without peer access.
  EXPECT_NO_THROW(check_scenario(no_peers, scenario_of("0:DtoD:managed,peer=1", 2)));
  EXPECT_NO_THROW(check_scenario(no_peers, scenario_of("all:both", 2)));
}

TEST(CheckScenario, RefusesDevicesThatDoNotExist) {
  Scenario sc = scenario_of("1:HtoD", 2);
  EXPECT_THROW(check_scenario(fake_system(1), sc), Error);
  EXPECT_THROW(check_scenario(fake_system(1), Scenario{}), Error);
}

TEST(Summarize, FiguresComeFromTheMedianSpanSample) {
  const ScenarioResult r = measured_result();
  EXPECT_EQ(r.samples, 3);
  EXPECT_EQ(r.timeline_sample, 1);
  EXPECT_EQ(r.total_bytes, 8000000u);
  EXPECT_DOUBLE_EQ(r.span_s, 2e-3);
  EXPECT_DOUBLE_EQ(r.aggregate_bandwidth_gbps, 4.0);  // 8 MB / 2 ms
  // Transfer 0: 2 MB per sample in 2, 1, 0.5 ms -> 1, 2, 4 GB/s.
  EXPECT_DOUBLE_EQ(r.transfers[0].bandwidth_gbps, 2.0);
  EXPECT_DOUBLE_EQ(r.transfers[0].stats.max, 4.0);
  EXPECT_DOUBLE_EQ(r.transfers[0].elapsed_s, 0.5e-3);
  EXPECT_DOUBLE_EQ(r.transfers[0].sample_elapsed_s, 1e-3);
  // Transfer 1: 6 MB in 3, 1.5, 1 ms -> 2, 4, 6 GB/s.
  EXPECT_DOUBLE_EQ(r.transfers[1].bandwidth_gbps, 4.0);
  EXPECT_DOUBLE_EQ(r.sum_of_transfer_bandwidths_gbps, 6.0);
  EXPECT_DOUBLE_EQ(r.transfers[1].start_s, 0.5e-3);
  EXPECT_DOUBLE_EQ(r.overlapped_s, 0.5e-3);
  EXPECT_DOUBLE_EQ(r.overlap_fraction, 0.25);
  EXPECT_EQ(r.max_concurrent, 2);
  EXPECT_NEAR(r.transfers[0].efficiency, 2.0 / fake_system(1).gpus[0].host_link.gbps, 1e-12);
  EXPECT_FALSE(all_valid(r));
  EXPECT_EQ(r.transfers[1].verification.first_bad_offset, 4096u);
}

TEST(Summarize, MeanAndMismatchedSamples) {
  const System sys = fake_system(2);
  ScenarioResult r = describe_scenario(sys, scenario_of("0:HtoD:1000000 1:DtoD:3000000:peer=0", 2));
  summarize_samples(r, two_transfer_samples(), xb::Statistic::mean);
  EXPECT_EQ(r.statistic, "mean");
  EXPECT_DOUBLE_EQ(r.transfers[0].bandwidth_gbps, 7.0 / 3.0);
  ScenarioResult one = describe_scenario(sys, scenario_of("0:HtoD", 2));
  EXPECT_THROW(summarize_samples(one, two_transfer_samples(), xb::Statistic::median), Error);
}

TEST(ScenarioReport, TimelineBarsAndDurations) {
  EXPECT_EQ(report::timeline_bar(0, 1, 1, 10), "##########");
  EXPECT_EQ(report::timeline_bar(0, 0.5, 1, 10), "#####.....");
  EXPECT_EQ(report::timeline_bar(0.25, 0.75, 1, 4), ".##.");
  EXPECT_EQ(report::timeline_bar(0.5, 0.51, 1, 10), ".....#....");
  EXPECT_EQ(report::timeline_bar(-1, 5, 1, 3), "###");  // clipped to the span
  EXPECT_EQ(report::timeline_bar(0.5, 0.5, 1, 4), "....");
  EXPECT_EQ(report::timeline_bar(0, 1, 0, 4), "....");
  EXPECT_EQ(report::duration_text(30e-6), "30 us");
  EXPECT_EQ(report::duration_text(1.234e-3), "1.23 ms");
  EXPECT_EQ(report::duration_text(4.45), "4.45 s");
  EXPECT_EQ(report::duration_text(500e-9), "500 ns");
}

TEST(ScenarioReport, TextHasBwtestColumnsLabelledFiguresAndTimeline) {
  std::ostringstream os;
  report::scenario_text(os, measured_result());
  const std::string text = os.str();
  for (const char* part : {"ID", "Device name", "Transfer size", "Direction", "Time elapsed", "Bandwidth", "GB/s",
                           "% peak", "Verify", "976.56 KiB", "HtoD", "DtoD", "pinned", "1907.35 MiB/s",
                           "Span (gate release -> last transfer end)", "Aggregate bandwidth (all bytes / span)",
                           "Sum of per-transfer bandwidths", "not a throughput", "25.0%", "at most 2 at once",
                           "|##############################..............................|", "VERIFICATION FAILED",
                           "offset 4096", "# FAILED"}) {
    EXPECT_NE(text.find(part), std::string::npos) << "missing '" << part << "' in\n" << text;
  }
}

TEST(ScenarioReport, CutsLines) {
  const System sys = fake_system(2);
  CutsOptions cuts;
  cuts.dtoh = {0};
  cuts.htod = {1};
  cuts.dtod = {{1, 0}};
  cuts.order = {Direction::dtoh, Direction::htod, Direction::dtod};
  cuts.no_numa_affinity = true;
  const Scenario sc = expand_requests(cuts_to_requests(cuts), 2, StreamMode::per_transfer);
  ScenarioResult r = describe_scenario(sys, sc);
  std::ostringstream launch;
  report::cuts_launch_text(launch, r);
  EXPECT_EQ(launch.str(),
            "Launching Device to Host transfers with Device 0 (Host buffer not NUMA-placed)\n"
            "Launching Host to Device transfers with Device 1 (Host buffer not NUMA-placed)\n"
            "Launching P2P transfers from Device 0 to Device 1 (NVLink x18)\n");
  r.transfers[0].bandwidth_gbps = 24.146;
  r.transfers[0].sample_elapsed_s = 4.45;
  r.transfers[2].bandwidth_gbps = 12.0371;
  r.transfers[2].sample_elapsed_s = 8.921;
  std::ostringstream done;
  report::cuts_result_text(done, r);
  const std::string text = done.str();
  EXPECT_EQ(text.rfind("Completed.\n", 0), 0u);
  EXPECT_NE(text.find("Transfer 0 - Direct transfers with device 0 (Device to Host): 24.146 GB/s  (4.45 seconds)\n"),
            std::string::npos) << text;
  EXPECT_NE(text.find("Transfer 1 - Direct transfers with device 1 (Host to Device): "), std::string::npos);
  EXPECT_NE(text.find("Transfer 2 - P2P transfers from device 0 to device 1: 12.037 GB/s  (8.92 seconds)\n"),
            std::string::npos) << text;
}

TEST(ScenarioReport, JsonFieldsCarryUnits) {
  const nlohmann::json j = records::scenario_json(measured_result());
  EXPECT_EQ(j["schema"], "xferbench-scenario");
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["status"], "failed");
  EXPECT_EQ(j["front_end"], "bwtest");
  EXPECT_EQ(j["command_line"][1], "run");
  EXPECT_EQ(j["settings"]["stream_mode"], "per-transfer");
  EXPECT_TRUE(j["environment"]["gpus"].is_array());
  ASSERT_EQ(j["transfers"].size(), 2u);
  const auto& t0 = j["transfers"][0];
  EXPECT_DOUBLE_EQ(t0["bandwidth_gbps"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(t0["elapsed_s"].get<double>(), 0.5e-3);
  EXPECT_DOUBLE_EQ(t0["start_s"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(t0["end_s"].get<double>(), 1e-3);
  EXPECT_EQ(t0["memory_kind"], "pinned");
  EXPECT_EQ(t0["verification"]["status"], "passed");
  EXPECT_EQ(j["transfers"][1]["verification"]["first_bad_offset"], 4096);
  EXPECT_TRUE(j["transfers"][1]["host_numa_node"].is_null() || !j["transfers"][1].contains("host_numa_node"));
  const auto& sc = j["scenario"];
  EXPECT_DOUBLE_EQ(sc["span_s"].get<double>(), 2e-3);
  EXPECT_DOUBLE_EQ(sc["aggregate_bandwidth_gbps"].get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(sc["sum_of_transfer_bandwidths_gbps"].get<double>(), 6.0);
  EXPECT_DOUBLE_EQ(sc["overlap_fraction"].get<double>(), 0.25);
}

// The scenario codec both ways: what it writes reads back into a record
// that writes the same document, measured, stopped or failed.
TEST(ScenarioCodec, RoundTripOfMeasuredStoppedAndFailedResults) {
  ScenarioResult measured = measured_result();
  measured.transfers[0].invalid_reason = "above the link's peak";
  ScenarioResult stopped = describe_scenario(fake_system(2), scenario_of("0:DtoH:1M", 2));
  stopped.completion.status = RunStatus::interrupted;
  stopped.completion.stop = StopReason::sigterm;
  stopped.completion.message = "interrupted by SIGTERM";
  stopped.completion.not_run = {"scenario"};
  ScenarioResult failed = measured_result();
  failed.completion.error = "cudaMemcpyAsync: an illegal memory access";
  for (const ScenarioResult* r : {&measured, &stopped, &failed}) {
    const nlohmann::json doc = records::scenario_json(*r);
    const ScenarioResult back = records::decode_scenario(doc, "r.json");
    EXPECT_EQ(json_text(records::scenario_json(back), 2), json_text(doc, 2));
    EXPECT_EQ(records::scenario_status(back), records::scenario_status(*r));
    EXPECT_EQ(back.transfers.size(), r->transfers.size());
    ASSERT_TRUE(back.written_by.has_value());
    EXPECT_EQ(back.written_by->name, "xferbench");
  }
  const ScenarioResult back = records::decode_scenario(records::scenario_json(measured), "r.json");
  EXPECT_DOUBLE_EQ(back.transfers[1].bandwidth_gbps, measured.transfers[1].bandwidth_gbps);
  EXPECT_EQ(back.transfers[1].verification.first_bad_offset, 4096u);
  EXPECT_EQ(back.transfers[0].invalid_reason, "above the link's peak");
  EXPECT_DOUBLE_EQ(back.aggregate_bandwidth_gbps, measured.aggregate_bandwidth_gbps);
  EXPECT_EQ(back.system.gpus.size(), 2u);
  EXPECT_EQ(records::decode_scenario(records::scenario_json(stopped), "r.json").completion.stop, StopReason::sigterm);
  EXPECT_EQ(records::decode_scenario(records::scenario_json(failed), "r.json").completion.error, failed.completion.error);
}

// A malformed document is one line naming the document and the field.
TEST(ScenarioCodec, MalformedDocumentsNameTheField) {
  const auto message = [](const nlohmann::json& doc) {
    try {
      records::decode_scenario(doc, "'r.json'");
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::usage);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  nlohmann::json doc = records::scenario_json(measured_result());
  nlohmann::json no_transfers = doc;
  no_transfers.erase("transfers");
  EXPECT_EQ(message(no_transfers), "'r.json' is a malformed xferbench-scenario result: transfers: missing");
  nlohmann::json bad_kind = doc;
  bad_kind["transfers"][1]["memory_kind"] = "velvet";
  EXPECT_EQ(message(bad_kind),
            "'r.json' is a malformed xferbench-scenario result: transfers[1].memory_kind: unknown value 'velvet'");
  nlohmann::json bad_span = doc;
  bad_span["scenario"]["span_s"] = "long";
  EXPECT_NE(message(bad_span).find("malformed xferbench-scenario result: scenario.span_s: "), std::string::npos)
      << message(bad_span);
}

TEST(ScenarioReport, CsvOneRowPerTransfer) {
  const std::string csv = report::scenario_csv(measured_result());
  std::istringstream in(csv);
  std::string header, row0, row1, extra;
  std::getline(in, header);
  std::getline(in, row0);
  std::getline(in, row1);
  EXPECT_FALSE(std::getline(in, extra));
  EXPECT_EQ(header.rfind("id,label,device,device_name,direction,bytes_per_copy", 0), 0u);
  EXPECT_NE(header.find("aggregate_bandwidth_gbps"), std::string::npos);
  EXPECT_EQ(row0.rfind("0,host->gpu0,0,Fake H200,HtoD,1000000,pinned,ce,2,3,", 0), 0u) << row0;
  EXPECT_NE(row1.find(",failed,4096,"), std::string::npos) << row1;
  const auto commas = [](const std::string& s) { return std::count(s.begin(), s.end(), ','); };
  EXPECT_EQ(commas(row0), commas(header));
  EXPECT_EQ(commas(row1), commas(header));
}

}  // namespace
}  // namespace xb
