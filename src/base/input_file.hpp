// The one reader of files a user hands in: a check spec, baseline or
// judged run, a --topology, a --resume file, compare's results. Whatever is
// wrong with such a file (missing, a directory, unreadable, not JSON, a
// number too large for a double, nesting deeper than any result has) is the
// user's to fix: Error(usage), exit 2, one line naming the file, never an
// internal error (70) and never exit 7, which is kept for outputs.
#pragma once

#include <cstddef>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/error.hpp"

namespace xb {

// `what` names the file as the user gave it ("--spec file", "topology
// file"); empty for a positional argument. The label is "what 'path'".
std::string input_label(const std::string& what, const std::string& path);

// How long an input FIFO may stay without a writer that writes (or
// closes it) before the command fails, as an output FIFO waits for a
// reader (README "Output files").
inline constexpr double kInputFifoWaitS = 10.0;
// A whole input document is at most this large (no xferbench result is
// near it; /dev/zero would never end). Soak files are read line by line
// and may be of any size.
inline constexpr std::size_t kMaxInputBytes = std::size_t{256} << 20;

// An input file opened for reading in pieces: a regular file, a FIFO or a
// character device. A directory, a socket or anything that cannot be
// opened or read is Error(usage) "cannot read LABEL: REASON" (the system's
// reason, e.g. "Is a directory"); a FIFO with no writer for
// kInputFifoWaitS is "no writer on the FIFO after 10 s".
class InputFile {
 public:
  InputFile(const std::string& path, const std::string& what, double fifo_wait_s = kInputFifoWaitS);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  // The next line, without its '\n', into `line`; false at the end of the
  // file. `ended`: the line had its '\n' (a last line without one may be a
  // write cut short). A line longer than `max_bytes` is Error(usage)
  // "LABEL:N: a line longer than ...". Memory: one line and one read.
  bool next_line(std::string& line, bool& ended, std::size_t max_bytes);
  // The first line if it ends within `max_bytes`, without consuming
  // anything; "" otherwise (a document on one long line, an empty file).
  std::string peek_line(std::size_t max_bytes);
  // Everything not read yet; over kMaxInputBytes is Error(usage).
  std::string rest();
  // Lines handed out by next_line so far.
  std::size_t line_number() const noexcept { return lines_; }
  const std::string& path() const noexcept { return path_; }
  std::string label() const;

 private:
  bool fill();  // appends one read to buf_; false at the end of the file
  void wait_for_writer(double wait_s);
  [[noreturn]] void cannot_read(const std::string& reason) const;
  std::string path_, what_;
  int fd_ = -1;
  std::string buf_;
  std::size_t pos_ = 0;   // buf_ before pos_ is consumed
  std::size_t lines_ = 0;
  bool eof_ = false;
};

// The whole content of `path` (an InputFile read to its end, at most
// kMaxInputBytes).
std::string read_input_file(const std::string& path, const std::string& what);

// "" when `text` is JSON nested at most kMaxInputDepth deep; else why not
// ("line 1, column 5: syntax error ...", "nested deeper than 64 levels"),
// from a scan that keeps nothing.
std::string json_problem(const std::string& text);
// True when `text` has too few brackets to nest deeper than
// kMaxInputDepth: a parse needs no json_problem scan first.
bool json_shallow(const std::string& text);

// `text` parsed as JSON; Error(usage) "LABEL is not JSON: ..." with the
// line and column for a syntax error, a number out of range (1e400) or
// nesting deeper than kMaxInputDepth.
nlohmann::json parse_input_json(const std::string& text, const std::string& path, const std::string& what);

// read_input_file, then parse_input_json.
nlohmann::json read_input_json(const std::string& path, const std::string& what);

// xferbench's results nest 8 levels deep; the readers walk documents
// recursively, so a deeper file is refused instead of exhausting the stack.
constexpr int kMaxInputDepth = 64;

// doc[key] when `doc` is an object and that field is a string; else ""
// (missing, a number, a list: never the type error a bare .value() throws).
std::string string_field(const nlohmann::json& doc, const std::string& key);

// doc[key] as JSON text for a message ("missing" when absent), shown
// through json_text.
std::string field_json_text(const nlohmann::json& doc, const std::string& key);

// `j` as JSON text; never throws: bytes that are not UTF-8 (a file name
// given on the command line) become U+FFFD instead of a type error.
std::string json_text(const nlohmann::json& j, int indent = -1);

// nlohmann's message without its "[json.exception.type_error.302] " tag.
std::string json_error_text(const nlohmann::json::exception& e);

}  // namespace xb
