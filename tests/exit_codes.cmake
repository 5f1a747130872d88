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

# Every row of data/bad_inputs.tsv against the real binary (and its seed
# names), each in a fresh folder: exit code, one error line naming the bad
# value, no file left behind. No row touches a GPU.
add_test(NAME cli_bad_inputs
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/bad_inputs.sh $<TARGET_FILE:xferbench>
                 ${CMAKE_CURRENT_LIST_DIR}/data/bad_inputs.tsv ${CMAKE_CURRENT_LIST_DIR}/data/bad_inputs)
set_tests_properties(cli_bad_inputs PROPERTIES TIMEOUT 600)
# The runner's own checks, on a fake binary: each must fail the row that
# breaks it.
add_test(NAME cli_bad_inputs_runner_selftest
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/bad_inputs_selftest.sh ${CMAKE_CURRENT_LIST_DIR}/bad_inputs.sh)
