// What a launcher (mpirun, srun, mpiexec) tells a process through its
// environment, read before MPI starts: no MPI call here, so these work in
// builds without MPI and before any decision to initialize it.
#pragma once

#include <string>

namespace xb::comm {

using GetenvFn = const char* (*)(const char*);

// The number of processes the launcher started: OMPI_COMM_WORLD_SIZE
// (Open MPI), PMI_SIZE (MPICH, Intel MPI), SLURM_STEP_NUM_TASKS (srun; a
// batch script outside srun has SLURM_NTASKS only, and is one process).
// 0 when no launcher says; -1 when a PMIx launcher started the process
// without saying how many (only MPI knows then).
int launcher_world_size(GetenvFn getenv_fn);

// This process's rank as the launcher numbered it (OMPI_COMM_WORLD_RANK,
// PMI_RANK, PMIX_RANK, SLURM_PROCID inside an srun step); -1 when unknown.
int launcher_world_rank(GetenvFn getenv_fn);

// The name of this process's node when the environment gives one:
// XFERBENCH_NODE_NAME (a testing aid: processes on one machine with
// different values count as different nodes), else SLURMD_NODENAME (srun:
// Slurm's name for the node, which the site's tools use too, and which
// tells apart simulated nodes that share a host name). Empty when neither
// is set: the MPI library's processor name (the host name) is used then.
std::string node_name_from_env(GetenvFn getenv_fn);

// What the MPI library this process loaded can start under, as far as it
// can be told before MPI_Init (mpi_comm.cpp finds it out).
struct MpiLibrary {
  bool open_mpi = false;
  // Open MPI without Slurm's PMI-1/PMI-2 support (Open MPI 5, or 4 without
  // its s1/s2 components, as Debian's): it starts only under PMIx. False
  // when that is not known.
  bool pmix_only = false;
};

// When srun started this process without PMIx (MpiDefault=none in
// slurm.conf and no --mpi option, or --mpi=pmi2) and the MPI library starts
// only under PMIx, MPI_Init would abort every rank with Open MPI's own
// message; this returns one line that names the fix instead. Empty when
// the launch is fine or is not an srun step (mpirun, also inside an srun
// step, gives PMIx itself).
std::string srun_without_pmix(GetenvFn getenv_fn, const MpiLibrary& library);

// The process environment, for callers without a test double.
const char* process_getenv(const char* name);

}  // namespace xb::comm
