#include "base/printable.hpp"

#include <fmt/format.h>

namespace xb {
namespace {

// The length of the valid UTF-8 sequence starting at s[i], 0 if there is none.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b = byte(i);
  std::size_t n = 0;
  unsigned min = 0;
  if (b >= 0xC2 && b <= 0xDF) n = 2, min = 0x80;
  else if (b >= 0xE0 && b <= 0xEF) n = 3, min = 0x800;
  else if (b >= 0xF0 && b <= 0xF4) n = 4, min = 0x10000;
  if (n == 0 || i + n > s.size()) return 0;
  unsigned code = b & (0xFF >> (n + 1));
  for (std::size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    code = (code << 6) | (byte(i + k) & 0x3F);
  }
  if (code < min || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
  return n;
}

}  // namespace

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (b >= 0x20 && b < 0x7F) {
      out += text[i++];
      continue;
    }
    if (b == '\n' || b == '\r' || b == '\t') {
      out += b == '\n' ? "\\n" : b == '\r' ? "\\r" : "\\t";
      ++i;
      continue;
    }
    const std::size_t n = b < 0x80 ? 0 : utf8_length(text, i);
    if (n == 0) {  // a C0 control, DEL, or a byte that is not UTF-8
      out += fmt::format("\\x{:02x}", b);
      ++i;
    } else if (n == 2 && b == 0xC2 && static_cast<unsigned char>(text[i + 1]) < 0xA0) {  // C1 control
      out += fmt::format("\\u{:04x}", static_cast<unsigned char>(text[i + 1]));
      i += 2;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string cut_middle(std::string_view text, std::size_t max) {
  if (text.size() <= max) return std::string(text);
  // Back to the start of a UTF-8 character (a continuation byte is 10xxxxxx).
  const auto start_of_char = [&](std::size_t i) {
    while (i > 0 && i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) --i;
    return i;
  };
  const std::size_t head = start_of_char(max * 2 / 3);
  const std::size_t tail = start_of_char(text.size() - max / 3);
  return fmt::format("{}[... {} bytes left out ...]{}", text.substr(0, head), tail - head, text.substr(tail));
}

std::string message_line(std::string_view text) { return printable(cut_middle(text)); }

}  // namespace xb
