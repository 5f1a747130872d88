// The one reader of files a user hands in: a check spec, baseline or
// judged run, a --topology, a --resume file, compare's results. Whatever is
// wrong with such a file (missing, a directory, unreadable, not JSON, a
// number too large for a double, nesting deeper than any result has) is the
// user's to fix: Error(usage), exit 2, one line naming the file, never an
// internal error (70) and never exit 7, which is kept for outputs.
#pragma once

#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/error.hpp"

namespace xb {

// `what` names the file as the user gave it ("--spec file", "topology
// file"); empty for a positional argument. The label is "what 'path'".
std::string input_label(const std::string& what, const std::string& path);

// The whole content of `path`: a regular file, or a FIFO or character
// device read to its end. A directory, a socket or anything that cannot
// be opened or read is Error(usage) "cannot read LABEL: REASON" (the
// system's reason, e.g. "Is a directory"). Over 256 MiB is refused (no
// xferbench input is near that; /dev/zero would never end).
std::string read_input_file(const std::string& path, const std::string& what);

// `text` parsed as JSON; Error(usage) "LABEL is not JSON: ..." with the
// line and column for a syntax error, a number out of range (1e400) or
// nesting deeper than kMaxInputDepth.
nlohmann::json parse_input_json(const std::string& text, const std::string& path, const std::string& what);

// read_input_file, then parse_input_json.
nlohmann::json read_input_json(const std::string& path, const std::string& what);

// xferbench's results nest 8 levels deep; the readers walk documents
// recursively, so a deeper file is refused instead of exhausting the stack.
constexpr int kMaxInputDepth = 64;

// nlohmann's message without its "[json.exception.type_error.302] " tag.
std::string json_error_text(const nlohmann::json::exception& e);

}  // namespace xb
