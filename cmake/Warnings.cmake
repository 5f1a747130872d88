# Warning flags live on one INTERFACE target that every project target links.
add_library(xferbench_warnings INTERFACE)
target_compile_options(xferbench_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)
if(XFERBENCH_WARNINGS_AS_ERRORS)
  target_compile_options(xferbench_warnings INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:-Werror> $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings>)
endif()
