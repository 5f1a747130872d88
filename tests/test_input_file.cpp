// base/input_file: every way an input file can be wrong is Error(usage)
// (exit 2) naming the file and the reason, never an internal error.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "base/input_file.hpp"

namespace {

// The message of the Error(usage) `fn` throws; a failure when it throws
// nothing or another kind.
template <class Fn>
std::string usage_error(Fn&& fn) {
  try {
    fn();
  } catch (const xb::Error& e) {
    EXPECT_EQ(e.kind(), xb::ErrorKind::usage) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

std::string temp_path(const std::string& name) { return ::testing::TempDir() + "/xb_input_" + name; }

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = temp_path(name);
  std::ofstream(path) << text;
  return path;
}

TEST(InputFile, ReadsARegularFile) {
  const std::string path = write_file("ok.json", "{\"a\": [1, 2.5, \"x\"]}\n");
  EXPECT_EQ(xb::read_input_json(path, "--judge file")["a"][1].get<double>(), 2.5);
  std::remove(path.c_str());
}

TEST(InputFile, MissingFileNamesOptionPathAndReason) {
  EXPECT_EQ(usage_error([] { xb::read_input_file("/nonexistent/x.json", "--baseline file"); }),
            "cannot read --baseline file '/nonexistent/x.json': No such file or directory");
  EXPECT_EQ(usage_error([] { xb::read_input_file("/nonexistent/x.json", ""); }),
            "cannot read '/nonexistent/x.json': No such file or directory");
}

TEST(InputFile, DirectoryIsRefusedNotReadAsEmpty) {
  const std::string dir = ::testing::TempDir();
  EXPECT_EQ(usage_error([&] { xb::read_input_file(dir, "--spec file"); }),
            "cannot read --spec file '" + dir + "': Is a directory");
}

TEST(InputFile, EmptyPathIsRefused) {
  EXPECT_EQ(usage_error([] { xb::read_input_file("", "--spec file"); }), "cannot read --spec file '': the path is empty");
}

TEST(InputFile, FifoIsReadToItsEnd) {
  const std::string path = temp_path("fifo");
  std::remove(path.c_str());
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  std::thread writer([&] { std::ofstream(path) << "{\"from\": \"fifo\"}"; });
  const nlohmann::json doc = xb::read_input_json(path, "--judge file");
  writer.join();
  EXPECT_EQ(doc.value("from", ""), "fifo");
  std::remove(path.c_str());
}

TEST(InputFile, SyntaxErrorNamesFileLineAndColumn) {
  const std::string msg = usage_error([] { xb::parse_input_json("{\n  \"a\": x\n}", "r.json", "--judge file"); });
  EXPECT_NE(msg.find("--judge file 'r.json' is not JSON: "), std::string::npos) << msg;
  EXPECT_NE(msg.find("line 2, column 8"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("[json.exception"), std::string::npos) << msg;
}

TEST(InputFile, NumberOutOfRangeIsMalformedInputWithItsPlace) {
  const std::string msg = usage_error([] { xb::parse_input_json("{\n  \"value\": 1e400\n}", "r.json", ""); });
  EXPECT_NE(msg.find("'r.json' is not JSON: line 2, column 12: number overflow parsing '1e400'"), std::string::npos)
      << msg;
}

TEST(InputFile, NestingDeeperThanAnyResultIsRefused) {
  const int depth = xb::kMaxInputDepth + 1;
  const std::string deep = std::string(depth, '[') + std::string(depth, ']');
  const std::string msg = usage_error([&] { xb::parse_input_json(deep, "d.json", "--topology file"); });
  EXPECT_NE(msg.find("--topology file 'd.json' is not JSON: nested deeper than"), std::string::npos) << msg;
  const std::string ok = std::string(xb::kMaxInputDepth, '[') + std::string(xb::kMaxInputDepth, ']');
  EXPECT_TRUE(xb::parse_input_json(ok, "d.json", "").is_array());
}

TEST(InputFile, JsonErrorTextDropsTheLibraryTag) {
  const nlohmann::json doc = nlohmann::json::array();
  try {
    (void)doc.value("x", 0);
    FAIL() << "value() on an array should throw";
  } catch (const nlohmann::json::exception& e) {
    EXPECT_EQ(xb::json_error_text(e), "cannot use value() with array");
  }
}


// A FIFO with no writer blocked for ever; it now waits a bounded
// time, as an output FIFO waits for a reader (here 0.2 s instead of 10).
TEST(InputFile, FifoWithoutAWriterIsRefusedAfterABoundedWait) {
  const std::string path = temp_path("lonely_fifo");
  std::remove(path.c_str());
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  const std::string msg = usage_error([&] { xb::InputFile in(path, "--judge file", 0.2); });
  EXPECT_NE(msg.find("cannot read --judge file '" + path + "': no writer on the FIFO after 0.2 s"), std::string::npos)
      << msg;
  std::remove(path.c_str());
}

TEST(InputFile, LinesOneAtATimeWithTheLastUnended) {
  const std::string path = write_file("lines.txt", "one\n\ntwo\nthree");
  xb::InputFile in(path, "soak file");
  std::string line;
  bool ended = false;
  EXPECT_EQ(in.peek_line(100), "one");
  ASSERT_TRUE(in.next_line(line, ended, 100));
  EXPECT_EQ(line, "one");
  EXPECT_TRUE(ended);
  ASSERT_TRUE(in.next_line(line, ended, 100));
  EXPECT_EQ(line, "");
  ASSERT_TRUE(in.next_line(line, ended, 100));
  EXPECT_EQ(line, "two");
  ASSERT_TRUE(in.next_line(line, ended, 100));
  EXPECT_EQ(line, "three");
  EXPECT_FALSE(ended);
  EXPECT_EQ(in.line_number(), 4u);
  EXPECT_FALSE(in.next_line(line, ended, 100));
}

TEST(InputFile, ALineLongerThanTheLimitIsRefusedNamingItsNumber) {
  const std::string path = write_file("long.txt", "short\n" + std::string(300000, 'x') + "\nshort\n");
  xb::InputFile in(path, "soak file");
  std::string line;
  bool ended = false;
  ASSERT_TRUE(in.next_line(line, ended, 1000));
  const std::string msg = usage_error([&] { in.next_line(line, ended, 1000); });
  EXPECT_NE(msg.find(path + ":2: a line longer than 1000 bytes"), std::string::npos) << msg;
  // A first line longer than peek's limit is none: peek gives nothing, and the whole text is still there.
  xb::InputFile again(path, "");
  EXPECT_EQ(again.peek_line(3), "");
  EXPECT_EQ(again.peek_line(5), "short");
  EXPECT_EQ(again.rest().size(), 6u + 300001u + 6u);
}

TEST(InputFile, JsonHelpersNeverThrowOnWrongTypesOrBytes) {
  const nlohmann::json doc = {{"schema", 5}, {"name", std::string("r\xff.json")}};
  EXPECT_EQ(xb::string_field(doc, "schema"), "");
  EXPECT_EQ(xb::string_field(nlohmann::json::array(), "schema"), "");
  EXPECT_EQ(xb::field_json_text(doc, "schema"), "5");
  EXPECT_EQ(xb::field_json_text(doc, "missing"), "missing");
  EXPECT_THROW((void)doc.dump(), nlohmann::json::type_error);  // what exit 70 came from
  EXPECT_EQ(xb::json_text(doc["name"]), "\"r\xef\xbf\xbd.json\"");  // U+FFFD
}

}  // namespace
