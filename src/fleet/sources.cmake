# One launch, many nodes (docs/fleet.md): node-local election, gathering
# to rank 0, the fleet summary and its reporters, and the hook that makes
# run and sweep launcher-aware. Included after xferbench_app exists.
set(_xb_src ${CMAKE_CURRENT_LIST_DIR}/..)
target_sources(xferbench_core PRIVATE
  ${_xb_src}/comm/launch_env.cpp
  ${_xb_src}/comm/idle_wait.cpp
  ${_xb_src}/fleet/per_node.cpp
  ${_xb_src}/fleet/summary.cpp
  ${_xb_src}/fleet/cells.cpp
  ${_xb_src}/fleet/compare_fleet.cpp
  ${_xb_src}/report/fleet_report.cpp
  ${_xb_src}/report/fleet_json.cpp
)
target_sources(xferbench_app PRIVATE ${_xb_src}/app/fleet_launch.cpp)
if(XFERBENCH_ENABLE_MPI)
  set_source_files_properties(${_xb_src}/app/fleet_launch.cpp PROPERTIES COMPILE_DEFINITIONS XFERBENCH_HAVE_MPI=1)
endif()
unset(_xb_src)
