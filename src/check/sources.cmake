# Node acceptance (xferbench check): lint, expectation specs, verdicts,
# telemetry. Specs are TOML, read with toml++ (Debian: libtomlplusplus-dev)
# used header-only, so the binary needs no TOML library at run time.
find_path(TOMLPP_INCLUDE_DIR toml++/toml.h REQUIRED
  DOC "toml++ headers (apt install libtomlplusplus-dev)")
set(_xb_check ${CMAKE_CURRENT_LIST_DIR})
target_sources(xferbench_core PRIVATE
  ${_xb_check}/lint.cpp
  ${_xb_check}/lint_host.cpp
  ${_xb_check}/spec.cpp
  ${_xb_check}/judge.cpp
  ${_xb_check}/telemetry.cpp
  ${_xb_check}/node.cpp
  ${_xb_check}/../report/check_report.cpp
  ${_xb_check}/../report/check_junit.cpp
)
# Only spec.cpp includes toml++; keep its headers out of every other file.
if(NOT TOMLPP_INCLUDE_DIR STREQUAL "/usr/include")
  set_source_files_properties(${_xb_check}/spec.cpp PROPERTIES INCLUDE_DIRECTORIES ${TOMLPP_INCLUDE_DIR})
endif()
unset(_xb_check)
# The example expectation specs (docs/check.md).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/share/xferbench/check DESTINATION share/xferbench)
