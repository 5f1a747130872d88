target_sources(xferbench_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/test_spec.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_concurrent.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_concurrent_cli.cpp)
# End-to-end checks of 'run --do', CUts flags and 'xferbench cuts' on the
# real binary: errors before any GPU is touched, with their exit codes.
add_test(NAME cli_concurrent_checks COMMAND ${CMAKE_CURRENT_LIST_DIR}/concurrent_cli_checks.sh $<TARGET_FILE:xferbench>)
