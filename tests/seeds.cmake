# Seed command lines, bad values, output files. Included by
# tests/CMakeLists.txt. The seed READMEs are read at test time from
# tests/data/seeds (copies of ../shared/seeds, so CI has them); with MPI the
# pingpong and first-touch lines are parsed too.
target_sources(xferbench_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/test_output_file.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_seed_cli.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_seed_readmes.cpp)
set(_xb_seed_defs XB_SEED_README_DIR="${CMAKE_CURRENT_LIST_DIR}/data/seeds")
if(XFERBENCH_ENABLE_MPI)
  list(APPEND _xb_seed_defs XB_TEST_MPI_COMMANDS=1)
endif()
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/test_seed_readmes.cpp PROPERTIES
  COMPILE_DEFINITIONS "${_xb_seed_defs}")
unset(_xb_seed_defs)

# The real binary's output files: a directory refused before any work in
# every command (pingpong and first-touch under mpirun), symlinks followed,
# FIFOs written through, -o /dev/stdout and kin written in place, a FIFO
# without a reader and an unwritable standard output ending with exit 7.
set(_xb_mpiexec "")
if(XFERBENCH_ENABLE_MPI)
  set(_xb_mpiexec ${MPIEXEC_EXECUTABLE})
endif()
add_test(NAME cli_output_files
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/output_checks.sh $<TARGET_FILE:xferbench> "${_xb_mpiexec}")
set_tests_properties(cli_output_files PROPERTIES TIMEOUT 300)
unset(_xb_mpiexec)
