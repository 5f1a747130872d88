// First-touch pieces that need no process and no GPU: argument parsing and
// its errors, the variants, the summary arithmetic (exact), the phase
// merge and wire format, and the reporters.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/error.hpp"
#include "firsttouch/options.hpp"
#include "firsttouch/result.hpp"
#include "firsttouch/first_touch_json.hpp"
#include "render.hpp"
#include "report/reporter.hpp"

namespace xb::firsttouch {
namespace {

RawArgs raw(std::vector<std::string> positional) {
  RawArgs r;
  r.positional = std::move(positional);
  return r;
}

// The message of the usage error `raw` gives, or "" when it parses.
std::string usage_error(const RawArgs& r) {
  try {
    to_options(r);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage) << e.what();
    return e.what();
  }
  return "";
}

TEST(FirstTouchArgs, TheSeedsCommandLineParsesWithSuffixes) {
  const Options o = to_options(raw({"5", "3", "1K", "1G", "1"}));
  EXPECT_EQ(o.iterations, 5);
  EXPECT_EQ(o.sub_iterations, 3);
  EXPECT_EQ(o.p2p_bytes, 1024u);
  EXPECT_EQ(o.buffer_sizes, std::vector<std::uint64_t>{1ULL << 30});
  EXPECT_EQ(o.overallocs, std::vector<std::uint64_t>{1});
  EXPECT_FALSE(o.sweep);
  EXPECT_EQ(o.transport, pingpong::TransportKind::automatic);
  EXPECT_EQ(o.memory, Memory::gpu);
  // The seed's own spelling: plain byte counts.
  const Options seed = to_options(raw({"5", "3", "1024", "1073741824", "65536"}));
  EXPECT_EQ(seed.overallocs, std::vector<std::uint64_t>{65536});
}

TEST(FirstTouchArgs, TheSeedOrderIsWithThenWithoutOverallocation) {
  const Options o = to_options(raw({"5", "3", "1K", "1G", "2M"}));
  const auto v = variants(o);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].alloc_bytes(), (1ULL << 30) + (2ULL << 20));
  EXPECT_EQ(variant_label(o, v[0]), "with overalloc");
  EXPECT_EQ(v[1].alloc_bytes(), 1ULL << 30);
  EXPECT_EQ(variant_label(o, v[1]), "without overalloc");
}

TEST(FirstTouchArgs, SweepUsesTheDefaultListOrTheGivenOneOverEveryBufferSize) {
  RawArgs r = raw({"2", "2", "1K", "1G"});
  r.sweep = true;
  Options o = to_options(r);
  EXPECT_EQ(o.overallocs, (std::vector<std::uint64_t>{0, 1, 4096, 65536, 2097152}));
  EXPECT_EQ(variants(o).size(), 5u);
  r.sweep_list = "0,4K";
  r.buffer_sizes = "64K,1M";
  o = to_options(r);
  const auto v = variants(o);
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[1].buffer_bytes, 65536u);
  EXPECT_EQ(v[1].overalloc_bytes, 4096u);
  EXPECT_EQ(v[2].buffer_bytes, 1048576u);
  EXPECT_EQ(v[2].overalloc_bytes, 0u);
  EXPECT_EQ(variant_label(o, v[1]), "+4096 B");
}

TEST(FirstTouchArgs, ZeroAndNegativeCountsAndSizesAreNamed) {
  EXPECT_EQ(usage_error(raw({"0", "3", "1K", "1G", "1"})), "ITERATIONS must be between 1 and 1000000, got 0");
  EXPECT_EQ(usage_error(raw({"5", "-3", "1K", "1G", "1"})), "SUB_ITERATIONS must be a positive whole number, got '-3'");
  EXPECT_EQ(usage_error(raw({"5", "3", "0", "1G", "1"})), "P2P_SIZE must be at least 1 byte, got '0'");
  EXPECT_EQ(usage_error(raw({"5", "3", "1K", "-1G", "1"})), "BUFFER_SIZE must be a positive number of bytes, got '-1G'");
  EXPECT_EQ(usage_error(raw({"5", "3", "1K", "1G", "0"})), "OVERALLOC_SIZE must be at least 1 byte, got '0'");
  EXPECT_NE(usage_error(raw({"5", "x", "1K", "1G", "1"})).find("invalid SUB_ITERATIONS 'x'"), std::string::npos);
  EXPECT_NE(usage_error(raw({"5", "3", "1Q", "1G", "1"})).find("P2P_SIZE"), std::string::npos);
}

TEST(FirstTouchArgs, MessageLargerThanTheBufferAndMissingValuesAreRejected) {
  EXPECT_EQ(usage_error(raw({"5", "3", "2G", "1G", "1"})),
            "P2P_SIZE 2147483648 is larger than the buffer size 1073741824: the message is sent from the start of "
            "the buffer and must fit in it");
  EXPECT_NE(usage_error(raw({"5", "3", "1K", "1G"})).find("got 4 value(s)"), std::string::npos);
  RawArgs sweep = raw({"5", "3", "1K", "1G"});
  sweep.sweep = true;
  sweep.buffer_sizes = "1M,512";
  EXPECT_NE(usage_error(sweep).find("larger than the buffer size 512"), std::string::npos);
  sweep.buffer_sizes = "";
  sweep.sweep_list = "0,,1";
  EXPECT_NE(usage_error(sweep).find("empty list item"), std::string::npos);
}

TEST(FirstTouchArgs, TransportAndMemoryMustFitTogether) {
  RawArgs r = raw({"1", "1", "1K", "1M", "1"});
  r.memory = "host";
  r.transport = "ipc";
  EXPECT_EQ(usage_error(r), "--transport ipc needs GPU buffers; use --memory gpu, or mpi for host buffers");
  r.transport = "tcp";
  EXPECT_NE(usage_error(r).find("tcp"), std::string::npos);
  r.transport = "mpi";
  r.memory = "disk";
  EXPECT_EQ(usage_error(r), "invalid --memory 'disk': use gpu or host");
  r = raw({"1", "1", "3G", "4G", "1"});
  r.transport = "staged";
  EXPECT_NE(usage_error(r).find("above MPI's 2 GiB - 1 message count"), std::string::npos);
}

TEST(FirstTouchSummary, FirstIsTheMedianOfSubIterationZeroSteadyOfTheRest) {
  // Three iterations of three sub-iterations, in seconds.
  const std::vector<std::vector<double>> t = {{0.5, 2e-5, 3e-5}, {0.25, 1e-5, 2e-5}, {1.0, 4e-5, 2e-5}};
  const FirstSteady s = summarize(t);
  EXPECT_DOUBLE_EQ(s.first_s, 0.5);
  EXPECT_DOUBLE_EQ(s.steady_s, 2e-5);  // median of {2,3,1,2,4,2}e-5 = 2e-5
  EXPECT_DOUBLE_EQ(s.ratio, 0.5 / 2e-5);
}

TEST(FirstTouchSummary, EvenCountsAverageTheMiddlePairAndOneSubIterationHasNoSteady) {
  const FirstSteady s = summarize({{4.0, 1.0}, {2.0, 3.0}});
  EXPECT_DOUBLE_EQ(s.first_s, 3.0);
  EXPECT_DOUBLE_EQ(s.steady_s, 2.0);
  EXPECT_DOUBLE_EQ(s.ratio, 1.5);
  const FirstSteady one = summarize({{4.0}, {2.0}});
  EXPECT_DOUBLE_EQ(one.first_s, 3.0);
  EXPECT_TRUE(std::isnan(one.steady_s));
  EXPECT_TRUE(std::isnan(one.ratio));
  EXPECT_TRUE(std::isnan(summarize({}).first_s));
}

TEST(FirstTouchSummary, PhaseMediansSkipWhatWasNotMeasured) {
  Phases a, b, c;
  a.alloc_sender_s = 1;
  b.alloc_sender_s = 3;
  c.alloc_sender_s = 2;
  a.open_s = 0.5;  // only one iteration has it
  a.steady_copy_s = {1, 5};
  b.steady_copy_s = {2};
  const Phases m = median_phases({a, b, c});
  EXPECT_DOUBLE_EQ(m.alloc_sender_s, 2);
  EXPECT_DOUBLE_EQ(m.open_s, 0.5);
  EXPECT_TRUE(std::isnan(m.export_s));
  ASSERT_EQ(m.steady_copy_s.size(), 1u);
  EXPECT_DOUBLE_EQ(m.steady_copy_s[0], 2);
}

TEST(FirstTouchSummary, TheTwoRanksHalvesMergeAndSurviveTheWire) {
  Phases sender, receiver;
  sender.alloc_sender_s = 0.1;
  sender.export_s = 0.2;
  receiver.alloc_receiver_s = 0.3;
  receiver.open_s = 0.4;
  receiver.first_copy_s = 0.5;
  receiver.steady_copy_s = {0.6, 0.7};
  const auto back = records::phases_from_wire(records::phases_to_wire({{receiver}}));
  ASSERT_EQ(back.size(), 1u);
  ASSERT_EQ(back[0].size(), 1u);
  merge(sender, back[0][0]);
  EXPECT_DOUBLE_EQ(sender.alloc_sender_s, 0.1);
  EXPECT_DOUBLE_EQ(sender.export_s, 0.2);
  EXPECT_DOUBLE_EQ(sender.alloc_receiver_s, 0.3);
  EXPECT_DOUBLE_EQ(sender.open_s, 0.4);
  EXPECT_DOUBLE_EQ(sender.first_copy_s, 0.5);
  EXPECT_EQ(sender.steady_copy_s, (std::vector<double>{0.6, 0.7}));
  EXPECT_TRUE(std::isnan(sender.register_s));
}

Result sample_result() {
  Result r;
  r.mode = "seed";
  r.transport = "ipc";
  r.world_size = 2;
  r.receiver_rank = 1;
  r.sender_host = r.receiver_host = "node0";
  r.sender_gpu = 0;
  r.receiver_gpu = 1;
  r.iterations = 2;
  r.sub_iterations = 2;
  r.p2p_bytes = 1024;
  r.warmup_s = 2.5;
  VariantResult v{"with overalloc", "gpu", 1ULL << 30, 1, {{0.5, 2e-5}, {0.25, 4e-5}}, {}, {}};
  Phases p;
  p.open_s = 0.375;
  v.phases = {p, p};
  r.variants = {v};
  return r;
}

TEST(FirstTouchReport, TextHasTheSeedsLinesAndTheSummary) {
  const std::string text = xb::testing::rendered("text", [&](auto& f) { f.first_touch(sample_result(), {}); });
  EXPECT_NE(text.find("p2p_size: 1024\nbuffer_size: 1073741824\noveralloc_size: 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("[-1] time: 2.5\n"), std::string::npos);
  EXPECT_NE(text.find("Doing ipc send/recv from rank 0 to rank 1, of 1024 bytes from a buffer of 1073741825 bytes "
                      "(with overalloc).\n[0:0] time: 0.5\n[0:1] time: 2e-05\n[1:0] time: 0.25\n"),
            std::string::npos)
      << text;
  // first 0.375, steady 3e-05, ratio 12500
  EXPECT_NE(text.find("0.375"), std::string::npos);
  EXPECT_NE(text.find("3e-05"), std::string::npos);
  EXPECT_NE(text.find("12500"), std::string::npos);
}

TEST(FirstTouchReport, TheMpiPathPrintsTheSeedsDoingLine) {
  Result r = sample_result();
  r.transport = "mpi";
  const std::string text = xb::testing::rendered("text", [&](auto& f) { f.first_touch(r, {}); });
  EXPECT_NE(text.find("\nDoing MPI_Send/Recv from rank 0 to rank 1, of 1024 bytes from a buffer of 1073741825 bytes "
                      "(with overalloc).\n[0:0] time: 0.5\n"),
            std::string::npos)
      << text;
}

TEST(FirstTouchReport, JsonCarriesSchemaUnitsAndNullForWhatWasNotMeasured) {
  const auto j = records::first_touch_json(sample_result(), {"xferbench", "first-touch"});
  EXPECT_EQ(j.at("schema"), "xferbench-first-touch");
  EXPECT_EQ(j.at("schema_version"), 1);
  const auto& v = j.at("variants").at(0);
  EXPECT_EQ(v.at("alloc_bytes"), (1ULL << 30) + 1);
  EXPECT_DOUBLE_EQ(v.at("first_time_s").get<double>(), 0.375);
  EXPECT_DOUBLE_EQ(v.at("steady_time_s").get<double>(), 3e-5);
  EXPECT_DOUBLE_EQ(v.at("phases_median").at("ipc_open_time_s").get<double>(), 0.375);
  EXPECT_TRUE(v.at("phases_median").at("ipc_export_time_s").is_null());
  EXPECT_EQ(v.at("times_s").size(), 2u);
}

TEST(FirstTouchReport, CsvHasOneRowPerVariantWithEmptyCellsForMissingPhases) {
  const std::string csv = report::first_touch_csv(sample_result());
  const auto nl = csv.find('\n');
  EXPECT_EQ(csv.substr(0, 40), "mode,transport,memory,label,buffer_bytes");
  const std::string row = csv.substr(nl + 1);
  EXPECT_EQ(row.rfind("seed,ipc,gpu,\"with overalloc\",1073741824,1,1073741825,1024,2,2,3.750000000e-01,", 0), 0u)
      << row;
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 2);
}

// Feeds a stream the result as a run would grow it (a variant appears,
// then its iterations one by one) and returns every piece it gave.
std::vector<std::string> stream_pieces(const Result& whole) {
  report::FirstTouchTextStream stream;
  Result so_far = whole;
  so_far.variants.clear();
  std::vector<std::string> pieces;
  for (const auto& v : whole.variants) {
    VariantResult grown = v;
    grown.times_s.clear();
    grown.phases.clear();
    so_far.variants.push_back(grown);
    pieces.push_back(stream.next(so_far, false));
    for (std::size_t i = 0; i < v.times_s.size(); ++i) {
      so_far.variants.back().times_s.push_back(v.times_s[i]);
      so_far.variants.back().phases.push_back(v.phases[i]);
      pieces.push_back(stream.next(so_far, false));
    }
    pieces.push_back(stream.next(so_far, true));
  }
  pieces.push_back(stream.finish(whole));
  return pieces;
}

std::string joined(const std::vector<std::string>& pieces) {
  std::string out;
  for (const auto& p : pieces) out += p;
  return out;
}

// Minor findings of the bad-input review: the text is printed as the run goes, in
// pieces that add up to the very text printed at the end.
TEST(FirstTouchReport, TheStreamedPiecesMakeTheSameTextAndEachIterationComesAsItIsMeasured) {
  Result r = sample_result();
  r.variants.push_back(r.variants[0]);
  r.variants[1].label = "without overalloc";
  r.variants[1].overalloc_bytes = 0;
  const auto pieces = stream_pieces(r);
  EXPECT_EQ(joined(pieces), xb::testing::rendered("text", [&](auto& f) { f.first_touch(r, {}); }));
  // Piece 0: the head and the first "Doing" line; 1 and 2: one iteration each.
  EXPECT_NE(pieces[0].find("[-1] time: 2.5\nDoing ipc send/recv"), std::string::npos) << pieces[0];
  EXPECT_EQ(pieces[1], "[0:0] time: 0.5\n[0:1] time: 2e-05\n");
  EXPECT_EQ(pieces[2], "[1:0] time: 0.25\n[1:1] time: 4e-05\n");
  EXPECT_EQ(pieces[3], "");  // the first variant is complete: nothing more to say in seed mode
  std::ostringstream seed;
  report::make_reporter("seed", seed)->first_touch(r, {});
  EXPECT_EQ(report::without_annotations(joined(pieces)), seed.str());
}

TEST(FirstTouchReport, ASweepStreamsEachRowWhenItsVariantIsComplete) {
  Result r = sample_result();
  r.mode = "sweep";
  r.variants.push_back(r.variants[0]);
  r.variants[1].overalloc_bytes = 4096;
  const auto pieces = stream_pieces(r);
  EXPECT_EQ(joined(pieces), xb::testing::rendered("text", [&](auto& f) { f.first_touch(r, {}); }));
  EXPECT_NE(pieces[0].find("ipc open (s)\n"), std::string::npos) << pieces[0];
  EXPECT_EQ(pieces[1] + pieces[2], "");  // iterations of an unfinished row
  EXPECT_NE(pieces[3].find("    1073741824             1    1073741825"), std::string::npos) << pieces[3];
}

// A run that ends in the middle of a variant (an error, a stop): finish()
// still prints what the whole text has.
TEST(FirstTouchReport, FinishingAfterAnUnfinishedVariantPrintsTheRest) {
  Result r = sample_result();
  r.mode = "sweep";
  report::FirstTouchTextStream stream;
  Result so_far = r;
  so_far.variants[0].times_s.resize(1);
  std::string out = stream.next(so_far, false);
  out += stream.finish(r);
  EXPECT_EQ(out, xb::testing::rendered("text", [&](auto& f) { f.first_touch(r, {}); }));
}

}  // namespace
}  // namespace xb::firsttouch
