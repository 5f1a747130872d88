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

# The commit the binary is built from, read once at configure time and
# compiled into one small file (so a new commit does not rebuild the rest).
set(XFERBENCH_GIT_HASH "")
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --short=12 HEAD
                  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                  OUTPUT_VARIABLE XFERBENCH_GIT_HASH OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/core/build_info.cpp.in ${CMAKE_CURRENT_BINARY_DIR}/build_info.cpp @ONLY)
