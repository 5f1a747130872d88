// The soak file's codec: every line kind survives a round trip (empty
// optionals as null or left out), a last line cut short by a kill is
// dropped and counted, and any other bad line is a usage error naming
// "file:line".
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "base/error.hpp"
#include "soak/soak_record.hpp"

namespace {

using namespace xb::soak;

Header header() {
  Header h;
  h.command_line = {"xferbench", "soak", "--duration", "8h"};
  h.start_time_utc = "2026-11-25T12:00:00.000Z";
  h.host = "node1";
  h.gpus = {"gpu0 NVIDIA H200 GPU-1", "gpu1 NVIDIA H200 GPU-2"};
  h.cases = {"host_to_device_memcpy_ce"};
  h.duration_s = 28800;
  return h;
}

Sample full_sample() {
  Sample s;
  s.t_s = 12.5;
  s.time_utc = "2026-11-25T12:00:12.500Z";
  s.round = 3;
  s.cell = "device_local_copy_latency/loaded[0,1]";
  s.unit = "ns";
  s.value = 2100.5;
  s.peak_gbps = 63.02;
  s.idle_ns = 1900.25;
  s.load_gbps = 40.5;
  s.load_pct = 64.25;
  s.verified = false;
  s.error = "cudaErrorLaunchFailure";
  GpuTelemetry t;
  t.gpu = 1;
  t.temperature_c = 41;
  t.power_w = 130.5;
  t.sm_clock_mhz = 1980;
  t.mem_clock_mhz = 3201;
  t.clock_reasons = 0x28;
  t.ecc_corrected = 3;
  t.ecc_uncorrected = 1;
  t.rows_remapped_correctable = 2;
  t.rows_remapped_uncorrectable = 0;
  t.row_remap_pending = true;
  t.row_remap_failure = false;
  t.pcie_replays = 7;
  t.xids = {79, 48};
  s.telemetry = {t, GpuTelemetry{}};
  return s;
}

std::string file_of(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& l : lines) text += l;
  return text;
}

void expect_usage(const std::string& text, const std::string& needle) {
  try {
    parse_soak(text, "s.jsonl");
    ADD_FAILURE() << "no error for: " << needle;
  } catch (const xb::Error& e) {
    EXPECT_EQ(e.kind(), xb::ErrorKind::usage);
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(SoakRecord, EveryLineKindRoundTrips) {
  Sample bare;
  bare.t_s = 60;
  bare.time_utc = "t";
  bare.round = 2;
  bare.cell = "host_to_device_memcpy_ce[0,0]";
  bare.unit = "gbps";
  bare.value = 55.125;
  bare.telemetry = {GpuTelemetry{}};
  const std::string line = sample_line(bare);
  ASSERT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1);
  EXPECT_NE(line.find("\"idle_ns\":null"), std::string::npos) << line;
  EXPECT_EQ(line.find("\"error\""), std::string::npos) << line;
  EXPECT_EQ(line.find("\"xids\""), std::string::npos) << line;
  EXPECT_NE(line.find("\"type\":\"sample\""), std::string::npos) << line;

  End end{"2026-11-25T20:00:00.000Z", 28800.5, "interrupted", "SIGTERM"};
  const SoakFile f = parse_soak(
      file_of({header_line(header()), sample_line(full_sample()), resume_line(300.25, "r"), sample_line(bare), end_line(end)}),
      "s.jsonl");
  EXPECT_EQ(f.header.command_line, header().command_line);
  EXPECT_EQ(f.header.host, "node1");
  EXPECT_EQ(f.header.gpus, header().gpus);
  EXPECT_EQ(f.header.cases, header().cases);
  EXPECT_EQ(f.header.duration_s, 28800);
  EXPECT_EQ(f.header.start_time_utc, "2026-11-25T12:00:00.000Z");
  ASSERT_EQ(f.samples.size(), 2u);
  const Sample& s = f.samples[0];
  const Sample want = full_sample();
  EXPECT_EQ(s.t_s, want.t_s);
  EXPECT_EQ(s.round, 3);
  EXPECT_EQ(s.cell, want.cell);
  EXPECT_EQ(s.unit, "ns");
  EXPECT_EQ(s.value, want.value);
  EXPECT_EQ(s.peak_gbps, want.peak_gbps);
  EXPECT_EQ(s.idle_ns, want.idle_ns);
  EXPECT_EQ(s.load_gbps, want.load_gbps);
  EXPECT_EQ(s.load_pct, want.load_pct);
  EXPECT_FALSE(s.verified);
  EXPECT_EQ(s.error, want.error);
  ASSERT_EQ(s.telemetry.size(), 2u);
  const GpuTelemetry& t = s.telemetry[0];
  EXPECT_EQ(t.gpu, 1);
  EXPECT_EQ(t.temperature_c, 41);
  EXPECT_EQ(t.power_w, 130.5);
  EXPECT_EQ(t.sm_clock_mhz, 1980u);
  EXPECT_EQ(t.mem_clock_mhz, 3201u);
  EXPECT_EQ(t.clock_reasons, 0x28u);
  EXPECT_EQ(t.ecc_corrected, 3u);
  EXPECT_EQ(t.ecc_uncorrected, 1u);
  EXPECT_EQ(t.rows_remapped_correctable, 2u);
  EXPECT_EQ(t.rows_remapped_uncorrectable, 0u);
  EXPECT_EQ(t.row_remap_pending, true);
  EXPECT_EQ(t.row_remap_failure, false);
  EXPECT_EQ(t.pcie_replays, 7u);
  EXPECT_EQ(t.xids, (std::vector<std::uint64_t>{79, 48}));
  const GpuTelemetry& empty = s.telemetry[1];
  EXPECT_FALSE(empty.temperature_c || empty.power_w || empty.sm_clock_mhz || empty.clock_reasons ||
               empty.ecc_uncorrected || empty.row_remap_pending || empty.pcie_replays);
  EXPECT_TRUE(empty.xids.empty());
  const Sample& b = f.samples[1];
  EXPECT_FALSE(b.peak_gbps || b.idle_ns || b.load_gbps || b.load_pct);
  EXPECT_TRUE(b.verified);
  EXPECT_TRUE(b.error.empty());
  EXPECT_EQ(b.value, 55.125);
  EXPECT_EQ(f.resumed_at_s, std::vector<double>{300.25});
  ASSERT_TRUE(f.end);
  EXPECT_EQ(f.end->status, "interrupted");
  EXPECT_EQ(f.end->reason, "SIGTERM");
  EXPECT_EQ(f.end->t_s, 28800.5);
  EXPECT_EQ(f.torn_lines, 0);
}

TEST(SoakRecord, AbsentOptionalsReadAsEmpty) {
  const std::string text = header_line(header()) +
                           R"({"type":"sample","t_s":1,"time_utc":"t","round":1,"cell":"c[0,0]","unit":"gbps",)"
                           R"("value":5,"verified":true,"telemetry":[{"gpu":0}]})"
                           "\n";
  const SoakFile f = parse_soak(text, "s.jsonl");
  ASSERT_EQ(f.samples.size(), 1u);
  EXPECT_FALSE(f.samples[0].peak_gbps);
  EXPECT_FALSE(f.samples[0].telemetry.at(0).clock_reasons);
  EXPECT_FALSE(f.end);
}

TEST(SoakRecord, TornLastLineIsDroppedAndCounted) {
  std::string cut = sample_line(full_sample());
  cut.resize(cut.size() / 2);
  const SoakFile f = parse_soak(header_line(header()) + sample_line(full_sample()) + cut, "s.jsonl");
  EXPECT_EQ(f.samples.size(), 1u);
  EXPECT_EQ(f.torn_lines, 1);
  // A whole last line without its newline is kept.
  std::string whole = sample_line(full_sample());
  whole.pop_back();
  const SoakFile g = parse_soak(header_line(header()) + whole, "s.jsonl");
  EXPECT_EQ(g.samples.size(), 1u);
  EXPECT_EQ(g.torn_lines, 0);
}

TEST(SoakRecord, BadLinesNameFileAndLine) {
  const std::string h = header_line(header());
  const std::string s = sample_line(full_sample());
  std::string cut = s;
  cut.resize(cut.size() / 2);
  expect_usage(h + cut + "\n" + s, "s.jsonl:2: not JSON");  // cut short but not last: not a kill
  std::string no_value = s;
  no_value.replace(no_value.find("\"value\""), 7, "\"valeu\"");
  expect_usage(h + s + no_value, "s.jsonl:3: value: missing");
  std::string text_value = s;
  text_value.replace(text_value.find("\"round\":3"), 9, "\"round\":\"3\"");
  expect_usage(h + text_value, "s.jsonl:2: round:");
  std::string bad_unit = s;
  bad_unit.replace(bad_unit.find("\"ns\""), 4, "\"ms\"");
  expect_usage(h + bad_unit, "s.jsonl:2: unit: unknown unit 'ms'");
  expect_usage(h + R"({"type":"pause"})" "\n", "s.jsonl:2: type: unknown line type 'pause'");
  expect_usage(h + "[1,2]\n", "s.jsonl:2: not an object");
  expect_usage(h + "\n" + s, "s.jsonl:2: not JSON");
  expect_usage(h + h, "s.jsonl:2: a second header line");
  std::string schema = h;
  schema.replace(schema.find("xferbench.soak"), 14, "xferbench.run0");
  expect_usage(schema, "s.jsonl:1: schema: 'xferbench.run0', not 'xferbench.soak'");
  std::string version = h;
  version.replace(version.find("\"schema_version\":1"), 18, "\"schema_version\":2");
  expect_usage(version, "s.jsonl:1: schema_version: 2");
}

TEST(SoakRecord, HeaderMustComeFirst) {
  expect_usage(sample_line(full_sample()), "s.jsonl:1: the first line is a 'sample' line, not the header");
  expect_usage("", "s.jsonl: empty");
  std::string cut = header_line(header());
  cut.resize(10);
  expect_usage(cut, "s.jsonl:1: not JSON");
}

TEST(SoakRecord, ReadsTheShippedFiles) {
  const SoakFile f = read_soak_file(XB_SOAK_DATA "/steady.jsonl");
  EXPECT_EQ(f.samples.size(), 120u);
  EXPECT_EQ(f.header.cases.size(), 2u);
  ASSERT_TRUE(f.end);
  EXPECT_EQ(f.end->status, "completed");
  const SoakFile torn = read_soak_file(XB_SOAK_DATA "/torn.jsonl");
  EXPECT_EQ(torn.samples.size(), 4u);
  EXPECT_EQ(torn.torn_lines, 1);
  EXPECT_EQ(read_soak_file(XB_SOAK_DATA "/drift.jsonl").samples.size(), 120u);
  try {
    read_soak_file(XB_SOAK_DATA "/bad_line.jsonl");
    ADD_FAILURE();
  } catch (const xb::Error& e) {
    EXPECT_EQ(std::string(e.what()), XB_SOAK_DATA "/bad_line.jsonl:3: value: missing");
  }
  try {
    read_soak_file(XB_SOAK_DATA "/no_such.jsonl");
    ADD_FAILURE();
  } catch (const xb::Error& e) {
    EXPECT_EQ(e.kind(), xb::ErrorKind::usage);
    EXPECT_NE(std::string(e.what()).find("no_such.jsonl"), std::string::npos);
  }
}


// A sample line as text with `field` (a JSON fragment, e.g. "\"round\":1.5")
// put in place of the telemetry's or the sample's own field.
std::string edited_sample(const std::string& from, const std::string& to) {
  std::string line = sample_line(full_sample());
  const auto at = line.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return line.replace(at, from.size(), to);
}

// Numbers the codec wrapped or truncated without a word (a
// counter of -1 read as 2^64 - 1) are refused, as the plot reader refuses
// them, naming the field.
TEST(SoakRecord, NegativeOrFractionalCountsAreRefused) {
  const std::string head = header_line(header());
  expect_usage(head + edited_sample("\"ecc_corrected\":3", "\"ecc_corrected\":-1"),
               "s.jsonl:2: telemetry[0].ecc_corrected: -1 is not a count");
  expect_usage(head + edited_sample("\"pcie_replays\":7", "\"pcie_replays\":7.5"),
               "s.jsonl:2: telemetry[0].pcie_replays: 7.5 is not a count");
  expect_usage(head + edited_sample("\"xids\":[79,48]", "\"xids\":[79,-48]"), "telemetry[0].xids: -48 is not an XID");
  expect_usage(head + edited_sample("\"round\":3", "\"round\":1.5"), "s.jsonl:2: round: 1.5 is not a whole number");
  expect_usage(head + edited_sample("\"sm_clock_mhz\":1980", "\"sm_clock_mhz\":1099511627776"),
               "telemetry[0].sm_clock_mhz: 1099511627776 is not a whole number of MHz");
  expect_usage(head + edited_sample("\"gpu\":1", "\"gpu\":5000"), "telemetry[0].gpu: 5000 is not a GPU index");
  expect_usage(head + edited_sample("\"t_s\":12.5", "\"t_s\":-12.5"), "s.jsonl:2: t_s: -12.5 is not a number of at least 0");
  // A failed sample's value is not read; a measured one must not be negative.
  Sample negative = full_sample();
  negative.error.clear();
  negative.value = -2100.5;
  expect_usage(head + sample_line(negative), "s.jsonl:2: value: -2100.5 is not a number of at least 0");
  negative.error = "failed";
  EXPECT_EQ(parse_soak(head + sample_line(negative), "s.jsonl").samples.size(), 1u);
}

// The reader held a line's whole parse tree (about 40 times the
// line) with no nesting limit, so a deep line could exhaust memory; a line
// is refused past kMaxInputDepth levels, and past kMaxSoakLineBytes.
TEST(SoakRecord, ADeepOrHugeLineIsRefusedNamingIt) {
  const std::string head = header_line(header());
  const std::string deep = "{\"type\":\"sample\",\"x\":" + std::string(100000, '[') + std::string(100000, ']') + "}\n";
  expect_usage(head + deep, "s.jsonl:2: not JSON: nested deeper than 64 levels");
  const std::string huge = "{\"type\":\"sample\",\"x\":\"" + std::string(kMaxSoakLineBytes, 'x') + "\"}\n";
  const std::string path = ::testing::TempDir() + "/xb_soak_huge_line.jsonl";
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs((head + huge).c_str(), f);
    std::fclose(f);
  }
  try {
    read_soak_file(path);
    ADD_FAILURE() << "a line of more than 1 MiB was read";
  } catch (const xb::Error& e) {
    EXPECT_EQ(e.kind(), xb::ErrorKind::usage);
    EXPECT_NE(std::string(e.what()).find(path + ":2: a line longer than 1048576 bytes"), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
}

}  // namespace
