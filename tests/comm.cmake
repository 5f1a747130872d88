# Communicator and pingpong tests. Unit tests run multi-rank logic over the
# in-process communicator; with MPI, real 2- and 3-rank host-buffer runs of
# the binary check the output and the launch/usage failures (Open MPI
# flags: --oversubscribe for small CI machines, --allow-run-as-root for
# containers).
target_sources(xferbench_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/test_comm_inproc.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_stop_relay.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_pingpong_parts.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_pingpong_run.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_pingpong_report.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_pingpong_device.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_pingpong_staged.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_pingpong_gpu.cpp)

if(XFERBENCH_ENABLE_MPI)
  target_sources(xferbench_tests PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/test_comm_launch.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_pingpong_cli.cpp)

  # Real runs, failures and output rules: exit codes and output, checked by
  # a script because a test property can check the output or the exit code,
  # not both.
  add_test(NAME pingpong_mpi_checks
           COMMAND ${CMAKE_CURRENT_LIST_DIR}/test_pingpong_mpi.sh $<TARGET_FILE:xferbench> ${MPIEXEC_EXECUTABLE})
  set_tests_properties(pingpong_mpi_checks PROPERTIES TIMEOUT 600)
endif()
