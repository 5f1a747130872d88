# --version names the commit (issue 26): the binary's own output, and the
# script that writes build_info.cpp on every build (src/core/build_info.cmake).
set(_xb_check ${CMAKE_CURRENT_LIST_DIR}/build_info_check.sh)
add_test(NAME version_names_commit
         COMMAND ${_xb_check} version $<TARGET_FILE:xferbench> ${PROJECT_SOURCE_DIR})
add_test(NAME build_info_follows_commits
         COMMAND ${_xb_check} script ${CMAKE_COMMAND} ${PROJECT_SOURCE_DIR}/src/core/build_info.cmake
                 ${PROJECT_SOURCE_DIR}/src/core/build_info.cpp.in)
set_tests_properties(version_names_commit build_info_follows_commits PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)
unset(_xb_check)
