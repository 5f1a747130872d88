# Issue 19 (nothing measured is lost): unit and whole-command tests with a
# fake sample source, and real signals through mpirun on host buffers.
target_sources(xferbench_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/test_interrupts.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_interrupts_drift.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_interrupts_ranks.cpp)
if(XFERBENCH_ENABLE_MPI)
  add_test(NAME interrupts_mpi_signals
           COMMAND ${CMAKE_CURRENT_LIST_DIR}/test_interrupts_mpi.sh $<TARGET_FILE:xferbench> ${MPIEXEC_EXECUTABLE})
  # Above the sum of the script's own guards (9 runs of at most 120 s), so
  # the script, not ctest, reports a run that hangs.
  set_tests_properties(interrupts_mpi_signals PROPERTIES TIMEOUT 1200)
endif()
