#include "base/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace xb {
namespace {

using json = nlohmann::json;

// No input of xferbench is near this; a character device such as /dev/zero
// would otherwise be read until memory runs out.
constexpr std::size_t kMaxInputBytes = std::size_t{256} << 20;

[[noreturn]] void cannot_read(const std::string& what, const std::string& path, const std::string& reason) {
  fail(ErrorKind::usage, fmt::format("cannot read {}: {}", input_label(what, path), reason));
}

// Closes the descriptor on every way out, errors included.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// The kinds of file that hold a document when read to their end; a
// directory is named as the system names it ("Is a directory").
void check_kind(const Fd& f, const std::string& what, const std::string& path) {
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) cannot_read(what, path, std::strerror(errno));
  if (S_ISDIR(st.st_mode)) cannot_read(what, path, std::strerror(EISDIR));
  if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode) && !S_ISCHR(st.st_mode))
    cannot_read(what, path, "not a regular file");
}

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

std::string read_input_file(const std::string& path, const std::string& what) {
  if (path.empty()) cannot_read(what, path, "the path is empty");
  const Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (f.fd < 0) cannot_read(what, path, std::strerror(errno));
  check_kind(f, what, path);
  std::string text;
  char buf[1 << 16];
  while (true) {
    const ssize_t n = ::read(f.fd, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      cannot_read(what, path, std::strerror(errno));
    }
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > kMaxInputBytes) cannot_read(what, path, "larger than 256 MiB (not an xferbench file)");
  }
  return text;
}

json parse_input_json(const std::string& text, const std::string& path, const std::string& what) {
  Scan scan;
  json::sax_parse(text, &scan);
  const std::string error = scan.error(text);
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
