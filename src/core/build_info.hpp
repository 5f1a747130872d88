// Facts about the build recorded in every result, so --resume can refuse a
// result written by another build.
#pragma once

namespace xb {

// The git commit the sources were at when CMake configured the build
// ("" when unknown: no git, or not a checkout).
const char* build_git_hash() noexcept;

}  // namespace xb
