# Issue 19 (nothing measured is lost): unit and whole-command tests with a
# fake sample source, and real signals through mpirun on host buffers.
target_sources(xferbench_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/test_interrupts.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_interrupts_drift.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_interrupts_ranks.cpp)
if(XFERBENCH_ENABLE_MPI)
  add_test(NAME interrupts_mpi_signals
           COMMAND ${CMAKE_CURRENT_LIST_DIR}/test_interrupts_mpi.sh $<TARGET_FILE:xferbench> ${MPIEXEC_EXECUTABLE})
  set_tests_properties(interrupts_mpi_signals PROPERTIES TIMEOUT 300)
endif()
