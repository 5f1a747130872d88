#include "comm/launch_env.hpp"

#include <cstdlib>
#include <string>

#include <fmt/format.h>

namespace xb::comm {
namespace {

// A non-negative integer, or -1 for a missing or malformed value.
int env_int(GetenvFn getenv_fn, const char* name) {
  const char* v = getenv_fn(name);
  if (v == nullptr || *v == '\0') return -1;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  if (*end != '\0' || n < 0 || n > 1 << 30) return -1;
  return static_cast<int>(n);
}

}  // namespace

int launcher_world_size(GetenvFn getenv_fn) {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS"}) {
    const int n = env_int(getenv_fn, var);
    if (n >= 0) return n;
  }
  return env_int(getenv_fn, "PMIX_RANK") >= 0 ? -1 : 0;
}

int launcher_world_rank(GetenvFn getenv_fn) {
  for (const char* var : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"}) {
    const int r = env_int(getenv_fn, var);
    if (r >= 0) return r;
  }
  const bool in_srun_step = env_int(getenv_fn, "SLURM_STEP_NUM_TASKS") >= 0;
  return in_srun_step ? env_int(getenv_fn, "SLURM_PROCID") : -1;
}

std::string node_name_from_env(GetenvFn getenv_fn) {
  for (const char* var : {"XFERBENCH_NODE_NAME", "SLURMD_NODENAME"}) {
    const char* v = getenv_fn(var);
    if (v != nullptr && *v != '\0') return v;
  }
  return {};
}

std::string srun_without_pmix(GetenvFn getenv_fn, const MpiLibrary& library) {
  const bool srun_step = env_int(getenv_fn, "SLURM_STEP_ID") >= 0 && env_int(getenv_fn, "SLURM_PROCID") >= 0;
  const bool pmix = env_int(getenv_fn, "PMIX_RANK") >= 0 || env_int(getenv_fn, "OMPI_COMM_WORLD_SIZE") >= 0;
  if (!srun_step || pmix || !library.open_mpi || !library.pmix_only) return {};
  const char* type = getenv_fn("SLURM_MPI_TYPE");
  const std::string how = type != nullptr && *type != '\0' ? fmt::format("srun --mpi={}", type)
                                                           : std::string("srun without --mpi (MpiDefault=none)");
  return fmt::format(
      "{} started this process without PMIx, and this Open MPI starts only under PMIx: run srun --mpi=pmix, or "
      "set MpiDefault=pmix in slurm.conf",
      how);
}

const char* process_getenv(const char* name) { return std::getenv(name); }

}  // namespace xb::comm
