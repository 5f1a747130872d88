# Stops, time limits, failing cells, fault injection and resume (issue 19;
# docs/interrupts.md). Included at the end of src/CMakeLists.txt.
target_sources(xferbench_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/core/stop.cpp
  ${CMAKE_CURRENT_LIST_DIR}/core/fault.cpp
  ${CMAKE_CURRENT_LIST_DIR}/core/time_budget.cpp
  ${CMAKE_CURRENT_LIST_DIR}/core/run_control.cpp
  ${CMAKE_CURRENT_LIST_DIR}/core/sample_source.cpp
  ${CMAKE_CURRENT_LIST_DIR}/core/resume.cpp
  ${CMAKE_CURRENT_LIST_DIR}/core/sweep_resume.cpp
  ${CMAKE_CURRENT_BINARY_DIR}/build_info.cpp)
target_sources(xferbench_app PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/app/interrupt.cpp)

# The commit the binary is built from (and whether tracked files had
# changes), read on every build by a small script that rewrites the one
# generated file only when that changes: a new commit shows in --version and
# results without a reconfigure, and nothing else is rebuilt for it.
find_package(Git QUIET)
add_custom_target(xferbench_build_info
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -DGIT=${GIT_EXECUTABLE}
          -DTEMPLATE=${CMAKE_CURRENT_LIST_DIR}/core/build_info.cpp.in -DOUTPUT=${CMAKE_CURRENT_BINARY_DIR}/build_info.cpp
          -P ${CMAKE_CURRENT_LIST_DIR}/core/build_info.cmake
  BYPRODUCTS ${CMAKE_CURRENT_BINARY_DIR}/build_info.cpp
  VERBATIM)
add_dependencies(xferbench_core xferbench_build_info)
