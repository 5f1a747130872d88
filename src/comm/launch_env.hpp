// What a launcher (mpirun, srun, mpiexec) tells a process through its
// environment, read before MPI starts: no MPI call here, so these work in
// builds without MPI and before any decision to initialize it.
#pragma once

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

// The process environment, for callers without a test double.
const char* process_getenv(const char* name);

}  // namespace xb::comm
