# xferbench check: lint rules on a fake NVML and recorded sysfs trees, the
# spec parser, verdicts on recorded H200 runs, the reporters and the
# multi-node adapter; and the command's bad-input exits on the real binary.
target_sources(xferbench_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/test_check_lint.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_check_spec.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_check_verdict.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_check_report.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_check_gpu.cpp)
set_property(SOURCE
  ${CMAKE_CURRENT_LIST_DIR}/test_check_lint.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_check_spec.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_check_verdict.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_check_report.cpp
  APPEND PROPERTY COMPILE_DEFINITIONS
  XFERBENCH_SOURCE_DIR="${PROJECT_SOURCE_DIR}" XFERBENCH_TEST_DATA_DIR="${CMAKE_CURRENT_LIST_DIR}/data")
add_test(NAME cli_check_checks COMMAND ${CMAKE_CURRENT_LIST_DIR}/check_cli_checks.sh $<TARGET_FILE:xferbench>
                                       ${PROJECT_SOURCE_DIR})
