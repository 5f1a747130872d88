// Launch detection of the MPI communicator (no MPI call is made).
#include <gtest/gtest.h>

#include <cstring>

#include "comm/mpi_comm.hpp"

namespace xb::comm {
namespace {

const char* fake_env(const char* name) {
  return std::strcmp(name, "OMPI_COMM_WORLD_SIZE") == 0 ? "2" : nullptr;
}
const char* empty_env(const char*) { return nullptr; }

TEST(CommLaunch, DetectsAnMpiLauncherFromItsEnvironment) {
  EXPECT_TRUE(started_by_launcher(fake_env));
  EXPECT_FALSE(started_by_launcher(empty_env));
}

const char* slurm_env(const char* name) { return std::strcmp(name, "SLURM_NTASKS") == 0 ? "4" : nullptr; }
const char* blank_env(const char* name) { return std::strcmp(name, "PMI_SIZE") == 0 ? "" : nullptr; }

TEST(CommLaunch, SlurmCountsAsALauncherAndAnEmptyVariableDoesNot) {
  EXPECT_TRUE(started_by_launcher(slurm_env));
  EXPECT_FALSE(started_by_launcher(blank_env));
}

}  // namespace
}  // namespace xb::comm
