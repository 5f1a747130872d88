# The exit-code table behind every command's --help (and the README's).
target_sources(xferbench_app PRIVATE ${CMAKE_CURRENT_LIST_DIR}/exit_codes.cpp)

# The pingpong subcommand needs the MPI communicator.
if(XFERBENCH_ENABLE_MPI)
  target_sources(xferbench_app PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/cmd_pingpong.cpp
    ${CMAKE_CURRENT_LIST_DIR}/seed_args.cpp
    ${CMAKE_CURRENT_LIST_DIR}/mpi_errors.cpp
    ${CMAKE_CURRENT_LIST_DIR}/cmd_first_touch.cpp)
  target_compile_definitions(xferbench PRIVATE XFERBENCH_HAVE_PINGPONG=1)
endif()
