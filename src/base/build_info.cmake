# Writes build_info.cpp with the commit the sources are at; run by the
# xferbench_build_info target (src/interrupts.cmake) on every build as
#   cmake -DSOURCE_DIR=... -DTEMPLATE=... -DOUTPUT=... [-DGIT=git] -P build_info.cmake
# so a new commit or an edit shows in --version without a reconfigure.
# configure_file() rewrites OUTPUT only when its text changes, so a build
# at the same commit recompiles nothing.
set(XFERBENCH_GIT_HASH "")
set(XFERBENCH_GIT_DIRTY false)
set(XFERBENCH_COMMIT "unknown")
if(GIT)
  # Only SOURCE_DIR's own checkout counts: a source tarball unpacked inside
  # some other repository (a home directory under git) is "commit unknown".
  execute_process(COMMAND ${GIT} rev-parse --show-toplevel
                  WORKING_DIRECTORY ${SOURCE_DIR} RESULT_VARIABLE top_rc
                  OUTPUT_VARIABLE top OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  file(REAL_PATH "${SOURCE_DIR}" source_real)
  if(top_rc EQUAL 0)
    file(REAL_PATH "${top}" top)
  endif()
  if(top_rc EQUAL 0 AND top STREQUAL source_real)
    execute_process(COMMAND ${GIT} rev-parse --short=12 HEAD
                    WORKING_DIRECTORY ${SOURCE_DIR} RESULT_VARIABLE hash_rc
                    OUTPUT_VARIABLE hash OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    # Changes to tracked files make the build "-dirty"; untracked files do
    # not (as git describe --dirty). --no-optional-locks: a build must not
    # hold the index lock against the user's own git commands.
    execute_process(COMMAND ${GIT} --no-optional-locks status --porcelain --untracked-files=no
                    WORKING_DIRECTORY ${SOURCE_DIR} RESULT_VARIABLE status_rc
                    OUTPUT_VARIABLE changes ERROR_QUIET)
    if(hash_rc EQUAL 0 AND hash MATCHES "^[0-9a-f]+$")
      set(XFERBENCH_GIT_HASH "${hash}")
      set(XFERBENCH_COMMIT "${hash}")
      if(NOT status_rc EQUAL 0 OR NOT changes STREQUAL "")
        set(XFERBENCH_GIT_DIRTY true)
        set(XFERBENCH_COMMIT "${hash}-dirty")
      endif()
    endif()
  endif()
endif()
configure_file(${TEMPLATE} ${OUTPUT} @ONLY)
