// Pingpong reporters: the seed's table with min/max, JSON field names with
// units and the schema tag, CSV rows, the --all-pairs matrices, atomic files.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "base/error.hpp"
#include "report/output_file.hpp"
#include "pingpong/pingpong_json.hpp"
#include "report/reporter.hpp"

namespace xb::report {
namespace {

using pingpong::PairResult;
using pingpong::Result;

PairResult pair(int a, int b, std::vector<double> rtts_per_size) {
  PairResult p;
  p.rank_a = a;
  p.rank_b = b;
  p.host_a = "node" + std::to_string(a);
  p.host_b = "node" + std::to_string(b);
  p.gpu_a = a % 2;
  p.gpu_b = -1;
  p.transport = "staged";
  std::uint64_t bytes = 8;
  for (double rtt : rtts_per_size) {
    auto s = pingpong::summarize_size(pingpong::Mode::pingpong, bytes, 1, {rtt, 2 * rtt});
    s.verified = true;
    p.sizes.push_back(s);
    bytes *= 2;
  }
  return p;
}

Result two_rank_result() {
  Result r;
  r.loop_count = 2;
  r.world_size = 2;
  r.requested_transport = "auto";
  r.pairs.push_back(pair(0, 1, {2e-6, 4e-6}));
  return r;
}

TEST(PingpongReport, TextHasTheSeedColumnsPlusTheDistributionInFixedWidthRows) {
  const std::string text = pingpong_text(two_rank_result());
  EXPECT_NE(text.find("| Data Size (B) | Avg Transfer Time (s) | Bandwidth (GB/s) | Min Time (s) | Median Time (s) | "
                      "p99 Time (s) | Max Time (s) |"),
            std::string::npos);
  // 8 B, round trips 2 us and 4 us: one-way 1 and 2 us, mean and median
  // 1.5 us, p99 (nearest rank of two values) 2 us.
  EXPECT_NE(text.find("|              8|            0.000001500|       0.005333333|   0.000001000|      0.000001500|"
                      "   0.000002000|   0.000002000|"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("# rank 0 (node0, gpu0) <-> rank 1 (node1, host), transport staged"), std::string::npos);
  EXPECT_NE(text.find("# data verified: all 2 sizes passed"), std::string::npos);
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    EXPECT_TRUE(line[0] == '#' || line[0] == '|') << line;
  }
}

TEST(PingpongReport, TheStreamedPiecesMakeTheSameTable) {
  Result r = two_rank_result();
  r.pairs[0].path = "rank 0: a persistent kernel";
  std::string pieces = pingpong_text_header(r) + pingpong_pair_head(r.pairs[0]);
  for (const auto& s : r.pairs[0].sizes) pieces += pingpong_size_row(s);
  pieces += pingpong_pair_foot(r.pairs[0]);
  EXPECT_EQ(pieces, pingpong_text(r));
  EXPECT_NE(pieces.find("# path: rank 0: a persistent kernel\n"), std::string::npos) << pieces;
}

TEST(PingpongReport, TextFlagsFailedVerification) {
  Result r = two_rank_result();
  r.pairs[0].sizes[1].verified = false;
  const std::string text = pingpong_text(r);
  EXPECT_NE(text.find("| FAILED"), std::string::npos);
  EXPECT_NE(text.find("# data verification FAILED for 1 of 2 sizes"), std::string::npos);
}

// The buffer mode is part of the header and of the JSON.
TEST(PingpongReport, TextAndJsonSayWhichBuffersTheRoundTripsUsed) {
  Result r = two_rank_result();
  EXPECT_NE(pingpong_text(r).find(", buffers separate\n# one-way time = round trip / 2; each rank sends from its "
                                  "send buffer into the peer's receive buffer;"),
            std::string::npos)
      << pingpong_text(r);
  EXPECT_EQ(records::pingpong_json(r, {}).at("buffers"), "separate");
  r.buffers = pingpong::Buffers::echo;
  EXPECT_NE(pingpong_text_header(r).find(", buffers echo\n"), std::string::npos) << pingpong_text_header(r);
  EXPECT_NE(pingpong_text_header(r).find("the responder sends back from the buffer it received into"),
            std::string::npos);
  EXPECT_EQ(records::pingpong_json(r, {}).at("buffers"), "echo");
}

TEST(PingpongReport, JsonCarriesSchemaUnitsTransportHostsAndGpus) {
  const auto j = records::pingpong_json(two_rank_result(), {"pingpong", "-n", "2"});
  EXPECT_EQ(j.at("schema"), "xferbench-pingpong");
  EXPECT_EQ(j.at("schema_version"), 1);
  EXPECT_EQ(j.at("status"), "ok");
  EXPECT_EQ(j.at("command_line").size(), 3u);
  const auto& p = j.at("pairs").at(0);
  EXPECT_EQ(p.at("transport"), "staged");
  EXPECT_EQ(p.at("host_a"), "node0");
  EXPECT_EQ(p.at("gpu_a"), 0);
  EXPECT_TRUE(p.at("gpu_b").is_null());
  const auto& s = p.at("sizes").at(0);
  EXPECT_EQ(s.at("bytes"), 8);
  EXPECT_DOUBLE_EQ(s.at("one_way_time_s").at("mean").get<double>(), 1.5e-6);
  EXPECT_DOUBLE_EQ(s.at("one_way_time_s").at("median").get<double>(), 1.5e-6);
  EXPECT_DOUBLE_EQ(s.at("one_way_time_s").at("p99").get<double>(), 2e-6);
  EXPECT_DOUBLE_EQ(s.at("one_way_time_s").at("max").get<double>(), 2e-6);
  EXPECT_NEAR(s.at("bandwidth_gbps").get<double>(), 8 / 1.5e-6 / 1e9, 1e-12);
  EXPECT_TRUE(s.at("verified").get<bool>());
}

TEST(PingpongReport, JsonStatusFailsWithTheReason) {
  Result r = two_rank_result();
  r.pairs[0].sizes[0].verified = false;
  r.pairs[0].sizes[0].verify_error = "byte 3";
  const auto j = records::pingpong_json(r, {});
  EXPECT_EQ(j.at("status"), "failed");
  EXPECT_NE(j.at("failure").get<std::string>().find("byte 3"), std::string::npos);
}

TEST(PingpongReport, CsvHasAHeaderAndOneRowPerSize) {
  const std::string csv = pingpong_csv(two_rank_result());
  std::istringstream lines(csv);
  std::string header, row;
  std::getline(lines, header);
  EXPECT_EQ(header.rfind("rank_a,rank_b,host_a,host_b,gpu_a,gpu_b,transport,mode,bytes,", 0), 0u);
  int rows = 0;
  while (std::getline(lines, row)) {
    ++rows;
    EXPECT_EQ(std::count(row.begin(), row.end(), ','), std::count(header.begin(), header.end(), ','));
  }
  EXPECT_EQ(rows, 2);
  EXPECT_NE(csv.find("0,1,node0,node1,gpu0,host,staged,pingpong,8,1.500000000e-06,"), std::string::npos) << csv;
  EXPECT_NE(header.find(",one_way_time_median_s,one_way_time_p99_s,"), std::string::npos) << header;
}

TEST(PingpongReport, AllPairsPrintsMirroredMatricesAndMarksFailedPairs) {
  Result r;
  r.all_pairs = true;
  r.world_size = 3;
  r.pairs = {pair(0, 1, {2e-6, 4e-6}), pair(0, 2, {2e-6, 8e-6}), pair(1, 2, {})};
  r.pairs[2].error = "rank 2: timeout";
  const std::string text = pingpong_text(r);
  EXPECT_NE(text.find("# rank 2: host node2, host"), std::string::npos) << text;
  // Bandwidth at 16 B: round trips 4/8 us -> one-way mean 3 us -> 0.005333 GB/s.
  const std::regex row0("r0 +- +0\\.005 +0\\.003\n");
  EXPECT_TRUE(std::regex_search(text, row0)) << text;
  const std::regex row2("r2 +0\\.003 +ERR +-\n");
  EXPECT_TRUE(std::regex_search(text, row2)) << text;
  EXPECT_NE(text.find("# r1-r2: transport staged, error: rank 2: timeout"), std::string::npos);
  // Latency matrices at 8 B: one-way 1 and 2 us -> median 1.5, p99 2.
  EXPECT_TRUE(std::regex_search(text, std::regex("median one-way time \\(us\\)[^\n]*\n[^\n]*\n +r0 +- +1\\.500 +1\\.500\n")))
      << text;
  EXPECT_TRUE(std::regex_search(text, std::regex("p99 one-way time \\(us\\)[^\n]*\n[^\n]*\n +r0 +- +2\\.000 +2\\.000\n")))
      << text;
}

// Rows printed as they are measured, then only the footers: the same table.
TEST(PingpongReport, TheTextReporterStreamsRowsThenEndsTheTable) {
  const Result r = two_rank_result();
  std::ostringstream streamed, whole;
  auto live = make_reporter("text", streamed);
  live->pingpong_pair(r, r.pairs[0]);
  for (const auto& s : r.pairs[0].sizes) live->pingpong_size(s);
  live->pingpong(r, {});
  make_reporter("text", whole)->pingpong(r, {});
  EXPECT_EQ(streamed.str(), pingpong_text(r));
  EXPECT_EQ(whole.str(), pingpong_text(r));
}

TEST(PingpongReport, FilesAreWrittenAtomically) {
  const std::string path = ::testing::TempDir() + "xb_pingpong_report.json";
  write_output_file(path, "first");
  write_output_file(path, "second");
  std::ifstream f(path);
  std::string content((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content, "second");
  EXPECT_FALSE(std::ifstream(path + ".tmp").good());
  EXPECT_THROW(write_output_file("/nonexistent-dir/x.json", "x"), Error);
}

TEST(PingpongReport, UnknownFormatIsAnError) {
  std::ostringstream out;
  make_reporter("csv", out)->pingpong(two_rank_result(), {});
  EXPECT_EQ(out.str(), pingpong_csv(two_rank_result()));
  EXPECT_THROW(make_reporter("xml", out), Error);
}

}  // namespace
}  // namespace xb::report
