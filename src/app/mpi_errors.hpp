// How a multi-rank command ends on an error that every rank agreed on.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "comm/communicator.hpp"
#include "base/error.hpp"

namespace xb::app {

// Rethrows timeouts (rank 0 may be the rank that died, so every rank reports
// those through main), after telling the communicator not to wait for the
// silent peer when it shuts down. Any other agreed error is printed once,
// by rank 0; a short barrier keeps the other ranks alive until it has,
// because mpirun ends the whole job at the first nonzero exit. Returns the
// exit code.
int finish_with_agreed_error(comm::Communicator& comm, const Error& e);

// Runs `fn` on rank 0 alone (check the output file, write the results); its
// outcome is agreed, so an Error there is thrown on every rank alike.
void on_rank0(comm::Communicator& comm, double timeout_s, const std::function<void()>& fn);

// Whether `args` (the command line without the program name) runs a
// multi-rank command (pingpong, first-touch, fabric) in a process a launcher
// started. Then every rank parses the same line and would print the same
// argument error, so main() collects it and calls the function below.
bool rank_parse_errors_are_agreed(const std::vector<std::string>& args);

// Ends every rank of a multi-rank command after an argument error: rank 0
// prints `message` (what parsing wrote, ending in a newline), the others stay
// until it has, and every rank returns rank 0's exit code. Without a
// working MPI this process prints it itself and returns `code`.
int finish_with_agreed_parse_error(int code, const std::string& message);

}  // namespace xb::app
