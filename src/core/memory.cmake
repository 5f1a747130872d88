# Bounded memory: the buffer pool and its budget, the per-case memory plan
# and preflight, and the measured memory cost of a run.
target_sources(xferbench_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/memory_types.cpp
  ${CMAKE_CURRENT_LIST_DIR}/buffer_pool.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memory_plan.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memory_probe.cpp)
