#include "app/mpi_errors.hpp"

#include <iostream>

#include <fmt/format.h>

namespace xb::app {

int finish_with_agreed_error(comm::Communicator& comm, const Error& e) {
  if (e.kind() == ErrorKind::timeout) throw e;
  if (comm.rank() == 0) std::cerr << fmt::format("xferbench: error: {}\n", e.what()) << std::flush;
  try {
    comm.barrier(comm::Seconds(5));
  } catch (const Error&) {
    // A rank that failed differently is already gone; the status stands.
  }
  return exit_code(e.kind());
}

}  // namespace xb::app
