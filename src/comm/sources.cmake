# Process-to-process support: the communicator (in-process always, MPI when
# XFERBENCH_ENABLE_MPI), the pingpong module and its reporter.
set(_xb_src ${CMAKE_CURRENT_LIST_DIR}/..)
target_sources(xferbench_core PRIVATE
  ${_xb_src}/comm/communicator.cpp
  ${_xb_src}/comm/inproc_comm.cpp
  ${_xb_src}/comm/stop_relay.cpp
  ${_xb_src}/pingpong/options.cpp
  ${_xb_src}/pingpong/pattern.cpp
  ${_xb_src}/pingpong/schedule.cpp
  ${_xb_src}/pingpong/result.cpp
  ${_xb_src}/pingpong/select.cpp
  ${_xb_src}/pingpong/buffers.cpp
  ${_xb_src}/pingpong/nccl_api.cpp
  ${_xb_src}/pingpong/nccl_pair.cpp
  ${_xb_src}/pingpong/transport_mpi.cpp
  ${_xb_src}/pingpong/staged_pipeline.cpp
  ${_xb_src}/pingpong/transport_staged.cpp
  ${_xb_src}/pingpong/queued_transport.cpp
  ${_xb_src}/pingpong/transport_ipc.cpp
  ${_xb_src}/pingpong/transport_nccl.cpp
  ${_xb_src}/pingpong/ipc_kernels.cu
  ${_xb_src}/pingpong/shm.cpp
  ${_xb_src}/pingpong/host_endpoint.cpp
  ${_xb_src}/pingpong/transport_device.cpp
  ${_xb_src}/pingpong/transport_device_gpu.cpp
  ${_xb_src}/pingpong/device_kernels.cu
  ${_xb_src}/pingpong/runner.cpp
  ${_xb_src}/records/pingpong_json.cpp
  ${_xb_src}/report/pingpong_report.cpp
)
if(XFERBENCH_ENABLE_MPI)
  # Only mpi_comm.cpp includes <mpi.h>.
  target_sources(xferbench_core PRIVATE ${_xb_src}/comm/mpi_comm.cpp)
  target_link_libraries(xferbench_core PUBLIC MPI::MPI_CXX)
endif()
unset(_xb_src)
