# One launch, many nodes (docs/fleet.md). Unit tests over the in-process
# communicator (the 64-node simulation among them) read recorded results
# from bench/results; with MPI, real mpirun runs of the binary (no GPU
# needed: every node row then carries the no-GPU error).
set(_xb_fleet_tests
  ${CMAKE_CURRENT_LIST_DIR}/test_fleet_summary.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_fleet_per_node.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_fleet_sim.cpp)
target_sources(xferbench_tests PRIVATE ${_xb_fleet_tests})
set_source_files_properties(${_xb_fleet_tests} PROPERTIES COMPILE_DEFINITIONS XFERBENCH_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
unset(_xb_fleet_tests)

# The gathering benchmark (bench/fleet_gather.cpp); a small run keeps it working.
add_executable(fleet_gather_bench ${PROJECT_SOURCE_DIR}/bench/fleet_gather.cpp)
target_link_libraries(fleet_gather_bench PRIVATE xferbench_core xferbench_warnings)
target_compile_definitions(fleet_gather_bench PRIVATE XFERBENCH_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
# expect_exit.sh: the exit code counts too (PASS_REGULAR_EXPRESSION alone ignores it).
add_test(NAME fleet_gather_bench_64
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/expect_exit.sh 0 $<TARGET_FILE:fleet_gather_bench> 64 2)
set_tests_properties(fleet_gather_bench_64 PROPERTIES TIMEOUT 120
  PASS_REGULAR_EXPRESSION "gather all node records.*5504 cells compared, 0 outliers"
  FAIL_REGULAR_EXPRESSION "expect_exit: FAILED")

if(XFERBENCH_ENABLE_MPI)
  add_test(NAME fleet_mpi COMMAND ${CMAKE_CURRENT_LIST_DIR}/test_fleet_mpi.sh $<TARGET_FILE:xferbench> ${MPIEXEC_EXECUTABLE})
  set_tests_properties(fleet_mpi PROPERTIES TIMEOUT 300)
endif()
