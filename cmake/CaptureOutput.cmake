# cmake -DPROGRAM=P "-DARGS=A B" -DOUT=FILE -P CaptureOutput.cmake: runs P
# with ARGS (space-separated) and writes its standard output to FILE, or
# fails the build step naming the command. Used by OperatorFiles.cmake.
separate_arguments(_args UNIX_COMMAND "${ARGS}")
execute_process(COMMAND "${PROGRAM}" ${_args} OUTPUT_FILE "${OUT}.tmp" RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  file(REMOVE "${OUT}.tmp")
  message(FATAL_ERROR "${PROGRAM} ${ARGS} failed: ${_rc}")
endif()
file(RENAME "${OUT}.tmp" "${OUT}")
