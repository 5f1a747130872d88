# Sourced by the mpirun test scripts: finding the processes of a run that
# was started in the background, so a test can signal or stop one rank.
# Other MPI tests may run beside the caller's, so a rank is looked for
# only below the caller's own background process.

# Every process below PID.
descendants() {
  local c
  for c in $(pgrep -P "$1"); do
    echo "$c"
    descendants "$c"
  done
}

# rank_pid PID RANK: the pid of world rank RANK below PID (empty when none).
rank_pid() {
  local p
  for p in $(descendants "$1"); do
    [[ $(ps -o comm= -p "$p" 2>/dev/null) == xferbench ]] || continue
    if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$2"; then
      echo "$p"
      return
    fi
  done
}

# find_mpirun PID: the launcher below PID (mpirun, mpiexec and orterun are one program).
find_mpirun() {
  local p
  for p in $(descendants "$1"); do
    case $(ps -o comm= -p "$p" 2>/dev/null) in
      mpirun | mpiexec | orterun)
        echo "$p"
        return
        ;;
    esac
  done
}

# wait_for_line FILE PATTERN DONE_FILE: waits until FILE has a line matching
# the extended regular expression PATTERN, the evidence that a run is under
# way; returns 1 when the run ended (DONE_FILE, written then, is not empty)
# without one.
# No number of seconds: how long the evidence takes depends on the machine.
wait_for_line() {
  until grep -Eq -- "$2" "$1" 2>/dev/null; do
    # Looked at once more: the line may have come just before the end.
    if [[ -s $3 ]]; then
      grep -Eq -- "$2" "$1" 2>/dev/null
      return
    fi
    sleep 0.05
  done
}
