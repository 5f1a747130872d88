// Fault injection, a testing aid: the environment variable XFERBENCH_FAULT
// names cells and what should go wrong in them, so tests (and people
// checking a deployment) can prove that a failing cell costs no other cell
// and that an interrupted run keeps what it measured, without a broken GPU.
//
//   XFERBENCH_FAULT="TARGET:KIND[@RANK][;TARGET:KIND[@RANK]...]"
//
// TARGET: "#N" = the N-th cell the command attempts (from 0), or a cell
// name: a case name (every cell of it) or "CASE[ROW,COL]" (matrix indices)
// for run, a size in bytes (K/M/G suffixes allowed) for sweep and pingpong,
// "VARIANT/ITERATION" for first-touch (both from 0). KIND: cuda_error (the
// cell fails as if a CUDA call had), cuda_sticky (the same, and the GPU is
// treated as unusable afterwards), timeout (as if a peer or the GPU stopped
// answering), verify (the cell's data check fails), signal_int /
// signal_term (the process sends itself that signal as the cell starts),
// mark (nothing goes wrong: one line on stderr says the cell starts, so a
// test that signals a run from outside waits for evidence that the run is
// under way, not for a number of seconds), slow (fabric only: the matched
// pair's repetitions are reported as if its path were slower, so tests can
// plant a slow node, pair or rail; src/fabric/legs.hpp; other commands
// ignore it).
// @RANK limits the fault to one MPI rank. Signal and mark faults fire once.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace xb {

enum class FaultKind { none, cuda_error, cuda_sticky, timeout, verify, signal_int, signal_term, mark, slow };
const char* to_string(FaultKind k) noexcept;

struct Fault {
  std::string target;  // "#3", "host_to_device_memcpy_ce[0,1]", "1048576"
  FaultKind kind = FaultKind::none;
  int rank = -1;       // -1: every rank
  bool fired = false;
};

class FaultPlan {
 public:
  FaultPlan() = default;
  // Parses the variable's value; throws Error(usage) naming the bad entry.
  // `rank` is this process's rank (-1 outside MPI).
  explicit FaultPlan(const std::string& text, int rank = -1);
  // From XFERBENCH_FAULT (empty plan when unset).
  static FaultPlan from_env(int rank = -1);

  bool empty() const noexcept { return faults_.empty(); }
  // The fault for the cell attempted as number `ordinal` and known by
  // `names`; none when nothing matches. Marks signal faults as fired.
  FaultKind match(const std::vector<std::string>& names, std::size_t ordinal);

 private:
  std::vector<Fault> faults_;
  int rank_ = -1;
};

// Acts out a fault as the cell starts: raises the signal (the loops then see
// the stop request), prints the mark line ("xferbench: XFERBENCH_FAULT
// mark: WHERE starts"), or throws the Error a real failure would throw
// (cuda_error and cuda_sticky: Error(cuda); timeout: Error(timeout)).
// verify is left to the caller (it marks the cell's data check failed).
void inject_fault(FaultKind kind, const std::string& where);

}  // namespace xb
