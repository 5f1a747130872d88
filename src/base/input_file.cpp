#include "base/input_file.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace xb {
namespace {

using json = nlohmann::json;

// A first pass over the text that keeps nothing: the first error with its
// offset, and the depth, so a file nested too deep is refused before any
// recursive code (the DOM's copy, dump, the readers) meets it.
class Scan final : public json::json_sax_t {
 public:
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return deeper(); }
  bool key(string_t&) override { return true; }
  bool end_object() override { return shallower(); }
  bool start_array(std::size_t) override { return deeper(); }
  bool end_array() override { return shallower(); }
  bool parse_error(std::size_t offset, const std::string& token, const json::exception& e) override {
    // `offset` is where the token ends; the place to show is where it starts.
    offset_ = offset - std::min(offset, token.size());
    // nlohmann's syntax errors (1xx) carry their line and column; the
    // others (406: number overflow) do not.
    with_offset_ = e.id / 100 != 1;
    error_ = json_error_text(e);
    return false;
  }

  // "" when the text is JSON of an acceptable depth.
  std::string error(const std::string& text) const {
    if (error_.empty() || !with_offset_) return error_;
    const std::size_t start = std::min(offset_, text.size());
    const auto before = text.begin() + static_cast<std::ptrdiff_t>(start);
    const std::size_t line = 1 + static_cast<std::size_t>(std::count(text.begin(), before, '\n'));
    const std::size_t line_start = start == 0 ? 0 : text.rfind('\n', start - 1) + 1;  // npos + 1 == 0
    return fmt::format("line {}, column {}: {}", line, start - line_start + 1, error_);
  }

 private:
  bool deeper() {
    if (++depth_ <= kMaxInputDepth) return true;
    error_ = fmt::format("nested deeper than {} levels (no xferbench result is)", kMaxInputDepth);
    with_offset_ = false;
    return false;
  }
  bool shallower() {
    --depth_;
    return true;
  }

  int depth_ = 0;
  std::size_t offset_ = 0;
  bool with_offset_ = false;
  std::string error_;
};

}  // namespace

std::string input_label(const std::string& what, const std::string& path) {
  return what.empty() ? fmt::format("'{}'", path) : fmt::format("{} '{}'", what, path);
}

std::string json_error_text(const json::exception& e) {
  std::string text = e.what();
  if (text.rfind("[json.exception.", 0) == 0) {
    const auto close = text.find("] ");
    if (close != std::string::npos) text.erase(0, close + 2);
  }
  return text;
}

std::string string_field(const json& doc, const std::string& key) {
  if (!doc.is_object()) return "";
  const auto it = doc.find(key);
  return it != doc.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string field_json_text(const json& doc, const std::string& key) {
  if (!doc.is_object() || !doc.contains(key)) return "missing";
  return json_text(doc.at(key));
}

std::string json_text(const json& j, int indent) { return j.dump(indent, ' ', false, json::error_handler_t::replace); }

InputFile::InputFile(const std::string& path, const std::string& what, double fifo_wait_s) : path_(path), what_(what) {
  if (path.empty()) cannot_read("the path is empty");
  // Without blocking: opening a FIFO would wait for a writer for ever.
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd_ < 0) cannot_read(std::strerror(errno));
  struct stat st {};
  if (::fstat(fd_, &st) != 0) cannot_read(std::strerror(errno));
  if (S_ISDIR(st.st_mode)) cannot_read(std::strerror(EISDIR));
  if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode) && !S_ISCHR(st.st_mode)) cannot_read("not a regular file");
  if (S_ISFIFO(st.st_mode)) wait_for_writer(fifo_wait_s);
  const int flags = ::fcntl(fd_, F_GETFL);
  if (flags >= 0) (void)::fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK);
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

std::string InputFile::label() const { return input_label(what_, path_); }

void InputFile::cannot_read(const std::string& reason) const {
  fail(ErrorKind::usage, fmt::format("cannot read {}: {}", label(), reason));
}

// Linux reports a FIFO that never had a writer as neither readable nor hung
// up, so poll waits for the first data (or a writer that closes).
void InputFile::wait_for_writer(double wait_s) {
  using namespace std::chrono;
  const auto deadline = steady_clock::now() + duration_cast<steady_clock::duration>(duration<double>(wait_s));
  for (;;) {
    const auto left = duration_cast<milliseconds>(deadline - steady_clock::now()).count();
    struct pollfd p {fd_, POLLIN, 0};
    const int n = left > 0 ? ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000))) : 0;
    if (n > 0) return;
    if (n < 0 && errno != EINTR) cannot_read(std::strerror(errno));
    if (n == 0 && steady_clock::now() >= deadline)
      cannot_read(fmt::format("no writer on the FIFO after {:g} s", wait_s));
  }
}

bool InputFile::fill() {
  if (eof_) return false;
  char chunk[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) cannot_read(std::strerror(errno));
    if (n == 0) {
      eof_ = true;
      return false;
    }
    buf_.append(chunk, static_cast<std::size_t>(n));
    return true;
  }
}

bool InputFile::next_line(std::string& line, bool& ended, std::size_t max_bytes) {
  line.clear();
  if (pos_ > 0 && pos_ >= buf_.size() / 2) {  // drop what was consumed, now and then
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  std::size_t searched = pos_;
  for (;;) {
    const std::size_t nl = buf_.find('\n', searched);
    if (nl != std::string::npos && nl - pos_ <= max_bytes) {
      line.assign(buf_, pos_, nl - pos_);
      pos_ = nl + 1;
      ended = true;
      ++lines_;
      return true;
    }
    if (buf_.size() - pos_ > max_bytes)
      fail(ErrorKind::usage, fmt::format("{}:{}: a line longer than {} bytes (not a line of this file kind)", path_,
                                         lines_ + 1, max_bytes));
    searched = buf_.size();
    if (!fill()) break;
  }
  if (pos_ == buf_.size()) return false;
  line.assign(buf_, pos_, std::string::npos);
  pos_ = buf_.size();
  ended = false;
  ++lines_;
  return true;
}

std::string InputFile::peek_line(std::size_t max_bytes) {
  for (;;) {
    const std::size_t nl = buf_.find('\n', pos_);
    if (nl != std::string::npos) return nl - pos_ <= max_bytes ? buf_.substr(pos_, nl - pos_) : "";
    if (buf_.size() - pos_ > max_bytes || !fill()) return "";
  }
}

std::string InputFile::rest() {
  std::string text = buf_.substr(pos_);
  buf_.clear();
  pos_ = 0;
  while (text.size() <= kMaxInputBytes && fill()) {
    text += buf_;
    buf_.clear();
  }
  if (text.size() > kMaxInputBytes) cannot_read("larger than 256 MiB (not an xferbench file)");
  return text;
}

std::string read_input_file(const std::string& path, const std::string& what) {
  InputFile in(path, what);
  return in.rest();
}

bool json_shallow(const std::string& text) {
  // Depth cannot exceed the count of opening brackets (in strings or not).
  const auto opening = std::count_if(text.begin(), text.end(), [](char ch) { return ch == '[' || ch == '{'; });
  return opening <= kMaxInputDepth;
}

std::string json_problem(const std::string& text) {
  Scan scan;
  json::sax_parse(text, &scan);
  return scan.error(text);
}

json parse_input_json(const std::string& text, const std::string& path, const std::string& what) {
  const std::string error = json_problem(text);
  if (!error.empty()) fail(ErrorKind::usage, fmt::format("{} is not JSON: {}", input_label(what, path), error));
  try {
    return json::parse(text);
  } catch (const json::exception& e) {  // the scan accepted it: not expected, still the file's fault
    fail(ErrorKind::usage, fmt::format("{} is not JSON: {}", input_label(what, path), json_error_text(e)));
  }
}

json read_input_json(const std::string& path, const std::string& what) {
  return parse_input_json(read_input_file(path, what), path, what);
}

}  // namespace xb
