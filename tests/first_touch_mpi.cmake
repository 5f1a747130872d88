# First-touch checks of the real binary under mpirun, run as a script:
#   cmake -DXB=... -DMPIRUN=... -DWORK=... -P first_touch_mpi.cmake
# Each check needs both the exit code and the output, which test properties
# cannot check together, and none needs a GPU (host buffers, argument and
# launch errors; the no-GPU error only where there is no GPU).
set(failures 0)
set(mpirun ${MPIRUN} --allow-run-as-root --oversubscribe)
file(MAKE_DIRECTORY ${WORK})

# check(NAME EXIT_CODE REGEX ERROR_LINES COMMAND...): the command exits with
# EXIT_CODE, its stdout+stderr match REGEX, and it prints ERROR_LINES lines
# "xferbench: error:" (-1: any number).
function(check name code regex error_lines)
  execute_process(COMMAND timeout 120 ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(all "${out}${err}")
  string(REGEX MATCHALL "xferbench: error:" errors "${all}")
  list(LENGTH errors n_errors)
  if(NOT rc EQUAL code OR NOT all MATCHES "${regex}" OR (error_lines GREATER -1 AND NOT n_errors EQUAL error_lines))
    message("FAIL ${name}: exit ${rc} (want ${code}), ${n_errors} error line(s) (want ${error_lines}), output:\n${all}")
    math(EXPR f "${failures} + 1")
    set(failures ${f} PARENT_SCOPE)
  else()
    message("ok   ${name}")
  endif()
endfunction()

set(values 2 3 1K 1M 1)
check(host_buffers_2ranks 0
      "\\[-1\\] time: .*\nDoing MPI_Send/Recv from rank 0 to rank 1, of 1024 bytes from a buffer of 1048577 bytes \\(with overalloc\\)\\.\n\\[0:0\\] time: [0-9].*\\[1:2\\] time: .*# with overalloc +1048576 +1048577 .*# without overalloc"
      0 ${mpirun} -np 2 ${XB} first-touch ${values} --memory host)
check(host_buffers_3ranks_first_to_last 0 "rank 0 \\([^)]*host\\) -> rank 2 \\([^)]*host\\), transport mpi" 0
      ${mpirun} -np 3 ${XB} first-touch ${values} --memory host)
check(sweep_json_file 0 "buffer \\(B\\) +overalloc \\(B\\).*\n +65536 +4096 +69632 " 0
      ${mpirun} -np 2 ${XB} first-touch 2 2 1K 64K --memory host --buffer-sizes 64K,1M --sweep-overalloc=0,4K
      -o ${WORK}/sweep.json)
file(READ ${WORK}/sweep.json json)
if(NOT json MATCHES "\"schema\": \"xferbench-first-touch\".*\"schema_version\": 1" OR EXISTS ${WORK}/sweep.json.tmp)
  message("FAIL sweep_json_file: ${WORK}/sweep.json is not first-touch JSON, or its .tmp was left behind")
  math(EXPR failures "${failures} + 1")
endif()
check(one_rank 6 "started with 1 MPI process\\(es\\), 2 or more are needed; launch it with: mpirun -np 2 xferbench first-touch" 1
      ${mpirun} -np 1 ${XB} first-touch ${values})
# Argument errors: rank 0 alone prints them, every rank exits 2 (docs/first_touch.md).
check(zero_iterations 2 "ITERATIONS must be between 1 and 1000000, got 0" 1
      ${mpirun} -np 2 ${XB} first-touch 0 3 1K 1M 1)
check(p2p_larger_than_buffer 2 "P2P_SIZE 2097152 is larger than the buffer size 1048576" 1
      ${mpirun} -np 2 ${XB} first-touch 2 3 2M 1M 1)
check(host_buffer_beyond_free_memory 4 "does not fit: host memory has" 1
      ${mpirun} -np 2 ${XB} first-touch 1 1 1K 1T 1 --memory host)

# The GPU error path, only where `--host` (which needs a GPU) says there is none.
execute_process(COMMAND timeout 60 ${XB} first-touch --host 1 1 1 1 1 RESULT_VARIABLE host_rc OUTPUT_QUIET ERROR_QUIET)
if(host_rc EQUAL 3)
  check(no_gpu_every_rank_exits_3 3 "rank 0: gpu asked for, but this node has no usable GPU" 1
        ${mpirun} -np 2 ${XB} first-touch 2 2 1K 1G 1)
else()
  message("skip no_gpu_every_rank_exits_3: this machine has a GPU")
endif()

if(failures GREATER 0)
  message(FATAL_ERROR "${failures} first-touch mpirun check(s) failed")
endif()
