# The exit-code table against every command's --help, the README and docs
# (test_exit_codes.cpp), and the bad-input table run over the real binary
# (bad_inputs.sh over data/bad_inputs.tsv; fixtures in data/bad_inputs/).
target_sources(xferbench_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR}/test_exit_codes.cpp)
set(_xb_exit_defs XFERBENCH_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
if(XFERBENCH_ENABLE_MPI)
  list(APPEND _xb_exit_defs XB_TEST_MPI_COMMANDS=1)
endif()
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/test_exit_codes.cpp PROPERTIES
  COMPILE_DEFINITIONS "${_xb_exit_defs}")
unset(_xb_exit_defs)
