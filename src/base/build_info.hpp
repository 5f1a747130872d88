// Facts about the build recorded in every result, so --resume can refuse a
// result written by another build, and shown by --version.
#pragma once

namespace xb {

// The git commit (12 hex digits) the sources were at when the binary was
// built ("" when unknown: no git, or not a checkout).
const char* build_git_hash() noexcept;

// Whether tracked files differed from that commit (false when unknown).
bool build_git_dirty() noexcept;

// For people: "1a2b3c4d5e6f", "1a2b3c4d5e6f-dirty" or "unknown".
const char* build_commit() noexcept;

}  // namespace xb
