// The MPI communicator. Only mpi_comm.cpp includes <mpi.h>; everything else
// sees the Communicator interface.
#pragma once

#include <memory>

#include "comm/communicator.hpp"

namespace xb::comm {

// How to start a multi-process command; part of every launch error.
constexpr const char* kLaunchHint = "launch it with: mpirun -np 2 xferbench pingpong ...";

// True when an MPI or batch launcher started this process (Open MPI,
// PMI/PMIx, Slurm). `getenv_fn` is injectable for tests.
bool started_by_launcher(const char* (*getenv_fn)(const char*));

// Initializes MPI (once per process) and returns the world communicator.
// Throws Error(comm) with kLaunchHint when the process was not started by a
// launcher or the world has fewer than `min_ranks` ranks.
std::unique_ptr<Communicator> make_mpi_communicator(int min_ranks);

}  // namespace xb::comm
