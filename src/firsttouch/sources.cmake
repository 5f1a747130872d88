# First-touch support (issue 6): options, summary arithmetic, the paths
# (mpi, staged, ipc, nccl) with a fresh buffer per iteration, the runner,
# the host-memory analogue and the reporter. Builds on the comm and
# pingpong fragments, so it is included after them.
set(_xb_src ${CMAKE_CURRENT_LIST_DIR}/..)
target_sources(xferbench_core PRIVATE
  ${_xb_src}/firsttouch/options.cpp
  ${_xb_src}/firsttouch/result.cpp
  ${_xb_src}/firsttouch/path_mpi.cpp
  ${_xb_src}/firsttouch/path_ipc.cpp
  ${_xb_src}/firsttouch/path_nccl.cpp
  ${_xb_src}/firsttouch/runner.cpp
  ${_xb_src}/firsttouch/host_analogue.cpp
  ${_xb_src}/records/first_touch_json.cpp
  ${_xb_src}/report/first_touch_report.cpp
)
unset(_xb_src)
