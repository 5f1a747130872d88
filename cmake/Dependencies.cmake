# Every dependency comes from the distribution (apt) or the CUDA toolkit;
# nothing is downloaded at configure time.
find_package(CUDAToolkit 12.0 REQUIRED)
find_package(CLI11 REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(fmt REQUIRED)
find_package(Threads REQUIRED)

find_path(NUMA_INCLUDE_DIR numa.h REQUIRED)
find_library(NUMA_LIBRARY numa REQUIRED)
add_library(xferbench_numa INTERFACE)
target_include_directories(xferbench_numa INTERFACE ${NUMA_INCLUDE_DIR})
target_link_libraries(xferbench_numa INTERFACE ${NUMA_LIBRARY})

# NVML is loaded at run time with dlopen, so only its header is needed here.
# The CUDA toolkit ships nvml.h on full installs; the PyPI wheel
# nvidia-nvml-dev provides it where the toolkit does not (see .ci/run).
find_package(Python3 COMPONENTS Interpreter)
set(_nvml_hints ${CUDAToolkit_INCLUDE_DIRS})
if(Python3_FOUND)
  execute_process(
    COMMAND ${Python3_EXECUTABLE} -c "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    OUTPUT_VARIABLE _purelib OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  list(APPEND _nvml_hints ${_purelib}/nvidia/cu13/include ${_purelib}/nvidia/cu12/include)
endif()
find_path(NVML_INCLUDE_DIR nvml.h HINTS ${_nvml_hints} REQUIRED)
message(STATUS "nvml.h: ${NVML_INCLUDE_DIR}")

if(XFERBENCH_ENABLE_MPI)
  find_package(MPI COMPONENTS CXX)
  if(NOT MPI_CXX_FOUND)
    message(WARNING "MPI not found: pingpong and first-touch are disabled")
    set(XFERBENCH_ENABLE_MPI OFF)
  endif()
endif()

if(XFERBENCH_ENABLE_TESTS)
  find_package(GTest REQUIRED)
endif()
