# The concurrent-transfer front-ends (multi-gpu-bwtest --do, CUts), their
# scenario runner and its reporter.
target_sources(xferbench_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/spec.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuts.cpp
  ${CMAKE_CURRENT_LIST_DIR}/../core/concurrent.cpp
  ${CMAKE_CURRENT_LIST_DIR}/../report/scenario_report.cpp)
