# Running under the seed tools' names (issue 16) and nvbandwidth's
# spellings under 'xferbench run' (issue 12): unit tests, which read the
# seed README and recorded runs from the source tree, and end-to-end checks
# of the binary called through links named like the seed tools.
target_sources(xferbench_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/test_nvbandwidth_readme.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_nvbandwidth_format.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_seed_names.cpp)
set_property(SOURCE
  ${CMAKE_CURRENT_LIST_DIR}/test_nvbandwidth_readme.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_nvbandwidth_format.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_seed_names.cpp
  APPEND PROPERTY COMPILE_DEFINITIONS
  XB_TEST_DATA_DIR="${CMAKE_CURRENT_LIST_DIR}/data" XB_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_test(NAME cli_seed_names COMMAND ${CMAKE_CURRENT_LIST_DIR}/seed_names_checks.sh $<TARGET_FILE:xferbench>)
