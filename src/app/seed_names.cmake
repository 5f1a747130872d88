# Running under the seed tools' names (issue 16): the nvbandwidth and
# multi-gpu-bwtest front-ends, their reporters, the program-name dispatch,
# nvbandwidth's spellings under 'xferbench run', and the optional links.
set(_xb_src ${CMAKE_CURRENT_LIST_DIR}/..)
target_sources(xferbench_core PRIVATE
  ${_xb_src}/report/nvbandwidth_common.cpp
  ${_xb_src}/report/nvbandwidth_text.cpp
  ${_xb_src}/report/nvbandwidth_json.cpp
  ${_xb_src}/report/seed_formats.cpp
)
target_sources(xferbench_app PRIVATE
  ${_xb_src}/app/run_spellings.cpp
  ${_xb_src}/app/nvbandwidth_cli.cpp
  ${_xb_src}/app/nvbandwidth_run.cpp
  ${_xb_src}/app/seed_names.cpp
)
unset(_xb_src)

# Off by default, so that installing xferbench never shadows a real
# nvbandwidth (or the other tools) on PATH by accident.
option(XFERBENCH_INSTALL_SEED_NAMES
       "cmake --install also makes nvbandwidth, bwtest, cuts and gpudirect_p2p_overalloc links to xferbench" OFF)
if(XFERBENCH_INSTALL_SEED_NAMES)
  install(CODE [[
    set(_bin "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/bin")
    foreach(_name nvbandwidth bwtest cuts gpudirect_p2p_overalloc)
      message(STATUS "Installing: ${_bin}/${_name} -> xferbench")
      file(CREATE_LINK xferbench "${_bin}/${_name}" SYMBOLIC)
    endforeach()
  ]])
endif()
