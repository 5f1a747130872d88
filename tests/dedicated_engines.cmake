# nvbandwidth v0.9/v0.10 additions (issue 17): pair selection, the dry-run
# plan and time model against recorded runs, topology files, the new cases,
# huge pages, SM budget sweeps, and their argument errors. No GPU needed.
target_sources(xferbench_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/test_pairs.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_dry_run.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_dedicated_engines.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_dedicated_engines_gpu.cpp)
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/test_dry_run.cpp PROPERTIES
  COMPILE_DEFINITIONS XB_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_test(NAME cli_dedicated_engines_checks COMMAND ${CMAKE_CURRENT_LIST_DIR}/dedicated_engines_cli_checks.sh $<TARGET_FILE:xferbench>
         ${PROJECT_SOURCE_DIR}/tests/data/topology)
