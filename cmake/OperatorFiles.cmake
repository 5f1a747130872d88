# What an operator installs beside the binary (docs/building.md, "The Debian
# package"): the Prometheus alerting rules, a systemd service and timer for
# a periodic check (off until enabled), the bash completion made from the
# binary's own command table, and the Debian copyright file and changelog.

# Prometheus alerting rules: <prefix>/share/xferbench/prometheus.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/share/xferbench/prometheus DESTINATION ${CMAKE_INSTALL_DATADIR}/xferbench)

# The service names the installed binary by its path under the prefix the
# install runs with (cpack: /usr), so the unit is made at install time.
set(XFERBENCH_INSTALL_SYSTEMDDIR lib/systemd/system CACHE STRING
    "Directory, below the install prefix, of the systemd service and timer")
install(CODE "
  set(XFERBENCH_BIN \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}/xferbench\")
  set(XFERBENCH_DOC_DIR \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_DOCDIR}\")
  configure_file(\"${PROJECT_SOURCE_DIR}/share/systemd/xferbench-check.service.in\"
                 \"${PROJECT_BINARY_DIR}/systemd/xferbench-check.service\" @ONLY)
  file(INSTALL \"${PROJECT_BINARY_DIR}/systemd/xferbench-check.service\"
                \"${PROJECT_SOURCE_DIR}/share/systemd/xferbench-check.timer\"
       DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${XFERBENCH_INSTALL_SYSTEMDDIR}\")
")

# Bash completion, printed by the built binary from its command table
# (src/app/completion.cpp), so it always has every command and option.
set(_xb_completion ${PROJECT_BINARY_DIR}/completion/xferbench)
add_custom_command(
  OUTPUT ${_xb_completion}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/completion
  COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:xferbench> -DARGS=--bash-completion -DOUT=${_xb_completion}
          -P ${CMAKE_CURRENT_LIST_DIR}/CaptureOutput.cmake
  DEPENDS xferbench ${CMAKE_CURRENT_LIST_DIR}/CaptureOutput.cmake
  COMMENT "Making the bash completion from xferbench's command table"
  VERBATIM)
add_custom_target(xferbench_completion ALL DEPENDS ${_xb_completion})
install(FILES ${_xb_completion} DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)

# Debian's copyright file and changelog (gzipped, as Debian ships them),
# in the package's documentation directory.
set(_xb_changelog ${PROJECT_BINARY_DIR}/doc/changelog.gz)
find_program(GZIP_EXECUTABLE gzip)
if(GZIP_EXECUTABLE)
  add_custom_command(
    OUTPUT ${_xb_changelog}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/doc
    COMMAND ${CMAKE_COMMAND} -DPROGRAM=${GZIP_EXECUTABLE} "-DARGS=-9nc ${PROJECT_SOURCE_DIR}/share/doc/changelog"
            -DOUT=${_xb_changelog} -P ${CMAKE_CURRENT_LIST_DIR}/CaptureOutput.cmake
    DEPENDS ${PROJECT_SOURCE_DIR}/share/doc/changelog ${CMAKE_CURRENT_LIST_DIR}/CaptureOutput.cmake
    VERBATIM)
  add_custom_target(xferbench_changelog ALL DEPENDS ${_xb_changelog})
  install(FILES ${_xb_changelog} DESTINATION ${CMAKE_INSTALL_DOCDIR})
endif()
install(FILES ${PROJECT_SOURCE_DIR}/share/doc/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR})
