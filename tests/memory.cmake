# Bounded memory: pool, memory plan, preflight, --max-memory, result fields.
target_sources(xferbench_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR}/test_memory.cpp)
target_sources(xferbench_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR}/test_memory_gpu.cpp)
