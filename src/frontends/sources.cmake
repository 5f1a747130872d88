target_sources(xferbench_core PRIVATE ${CMAKE_CURRENT_LIST_DIR}/spec.cpp ${CMAKE_CURRENT_LIST_DIR}/cuts.cpp)
