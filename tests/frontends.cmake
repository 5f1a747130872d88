target_sources(xferbench_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR}/test_spec.cpp)
