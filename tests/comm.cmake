# Communicator and pingpong tests. Unit tests run multi-rank logic over the
# in-process communicator; with MPI, real 2- and 3-rank host-buffer runs of
# the binary check the output and the launch/usage failures (Open MPI
# flags: --oversubscribe for small CI machines, --allow-run-as-root for
# containers).
target_sources(xferbench_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/test_comm_inproc.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_pingpong_parts.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_pingpong_run.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_pingpong_report.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_pingpong_gpu.cpp)

if(XFERBENCH_ENABLE_MPI)
  target_sources(xferbench_tests PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/test_comm_launch.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_pingpong_cli.cpp)

  # expect_exit.sh: the exit code is checked too (PASS_REGULAR_EXPRESSION
  # alone ignores it; tests/CMakeLists.txt says how).
  set(_xb_mpirun ${CMAKE_CURRENT_LIST_DIR}/expect_exit.sh 0 ${MPIEXEC_EXECUTABLE} --allow-run-as-root --oversubscribe)
  # CMake regular expressions have no {n} repetition.
  set(_xb_table_row "\\|[ ]+[0-9]+\\|[ ]+[0-9]+\\.[0-9]+\\|[ ]+[0-9]+\\.[0-9]+\\|")

  add_test(NAME pingpong_mpi_host_2ranks
           COMMAND ${_xb_mpirun} -np 2 $<TARGET_FILE:xferbench> pingpong --dev1 host --dev2 host -n 6 --loop-count 5)
  set_tests_properties(pingpong_mpi_host_2ranks PROPERTIES TIMEOUT 120 FAIL_REGULAR_EXPRESSION "expect_exit: FAILED"
    PASS_REGULAR_EXPRESSION "transport mpi\n\\| Data Size \\(B\\) \\| Avg Transfer Time \\(s\\) \\| Bandwidth \\(GB/s\\) \\| Min Time \\(s\\) \\| Max Time \\(s\\) \\|\n[^\n]*\n\\|[ ]+8\\|.*\\|[ ]+256\\|[^\n]*\n[^\n]*\n# data verified: all 6 sizes passed")

  add_test(NAME pingpong_mpi_seed_spellings
           COMMAND ${_xb_mpirun} -np 2 $<TARGET_FILE:xferbench> pingpong -dev1 vh -dev2 vh -n 4 -loop_count 3)
  set_tests_properties(pingpong_mpi_seed_spellings PROPERTIES TIMEOUT 120 FAIL_REGULAR_EXPRESSION "expect_exit: FAILED"
    PASS_REGULAR_EXPRESSION "${_xb_table_row}.*\\|[ ]+64\\|.*# data verified: all 4 sizes passed")

  add_test(NAME pingpong_mpi_bw_json
           COMMAND ${_xb_mpirun} -np 2 $<TARGET_FILE:xferbench> pingpong -n 4 --loop-count 3 --mode bw --format json)
  set_tests_properties(pingpong_mpi_bw_json PROPERTIES TIMEOUT 120 FAIL_REGULAR_EXPRESSION "expect_exit: FAILED"
    PASS_REGULAR_EXPRESSION "\"mode\": \"bw\".*\"bandwidth_gbps\": [0-9].*\"schema\": \"xferbench-pingpong/1\".*\"status\": \"ok\"")

  # Failures: exit codes and one-line messages, checked by a script because
  # a test property can check the output or the exit code, not both.
  add_test(NAME pingpong_mpi_failures
           COMMAND ${CMAKE_CURRENT_LIST_DIR}/test_pingpong_mpi.sh $<TARGET_FILE:xferbench> ${MPIEXEC_EXECUTABLE})
  set_tests_properties(pingpong_mpi_failures PROPERTIES TIMEOUT 300)
  unset(_xb_mpirun)
  unset(_xb_table_row)
endif()
