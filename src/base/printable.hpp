// Text that came from outside xferbench (a name in an input file, an
// argument) made safe to print in a line of text output: a cell name that
// holds a newline must not forge a summary line, an escape sequence must not
// clear the terminal, and a 120 kB argument echoed in an error must not fill
// the screen. JSON output needs none of this (its encoder escapes).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace xb {

// `text` with every control character escaped: \n, \r, \t as such, other
// C0 controls and DEL as \xNN, C1 controls (U+0080-U+009F) as \u0080, and a
// byte that is not part of valid UTF-8 as \xNN. Printable UTF-8 is kept.
std::string printable(std::string_view text);

// `text` when it has at most `max` bytes; else its start and end with
// "[... N bytes left out ...]" between them (never splitting a UTF-8
// character), so the reason at the end of a message stays.
inline constexpr std::size_t kMaxShownBytes = 480;
std::string cut_middle(std::string_view text, std::size_t max = kMaxShownBytes);

// An error or warning message as one printable line of bounded length.
std::string message_line(std::string_view text);

}  // namespace xb
