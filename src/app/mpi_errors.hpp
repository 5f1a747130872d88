// How a multi-rank command ends on an error that every rank agreed on.
#pragma once

#include "comm/communicator.hpp"
#include "core/error.hpp"

namespace xb::app {

// Rethrows timeouts (rank 0 may be the rank that died, so every rank reports
// those through main). Any other agreed error is printed once, by rank 0;
// a short barrier keeps the other ranks alive until it has, because mpirun
// ends the whole job at the first nonzero exit. Returns the exit code.
int finish_with_agreed_error(comm::Communicator& comm, const Error& e);

}  // namespace xb::app
