// Launch detection of the MPI communicator (no MPI call is made).
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>

#include "comm/launch_env.hpp"
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

// An environment a test fills in; GetenvFn is a plain function pointer.
std::map<std::string, std::string> g_env;
const char* map_env(const char* name) {
  const auto it = g_env.find(name);
  return it == g_env.end() ? nullptr : it->second.c_str();
}

// What srun puts in a task's environment (Slurm 22.05), by --mpi.
const std::map<std::string, std::string> kSrunStep = {
    {"SLURM_JOB_ID", "7"}, {"SLURM_STEP_ID", "0"}, {"SLURM_PROCID", "0"}, {"SLURM_STEP_NUM_TASKS", "2"},
    {"SLURMD_NODENAME", "n1"}};
std::map<std::string, std::string> srun_env(const std::map<std::string, std::string>& extra) {
  auto env = kSrunStep;
  for (const auto& [k, v] : extra) env[k] = v;
  return env;
}

constexpr MpiLibrary kDebianOpenMpi{true, true};

TEST(CommLaunch, SrunWithoutMpiOptionUnderPmixOnlyOpenMpiNamesTheFix) {
  g_env = srun_env({});
  const std::string why = srun_without_pmix(map_env, kDebianOpenMpi);
  EXPECT_NE(why.find("srun without --mpi (MpiDefault=none)"), std::string::npos) << why;
  EXPECT_NE(why.find("srun --mpi=pmix"), std::string::npos) << why;
  EXPECT_NE(why.find("MpiDefault=pmix in slurm.conf"), std::string::npos) << why;
  EXPECT_EQ(why.find('\n'), std::string::npos) << "one line";
}

TEST(CommLaunch, SrunWithPmi2UnderPmixOnlyOpenMpiNamesTheOptionGiven) {
  g_env = srun_env({{"SLURM_MPI_TYPE", "pmi2"}, {"PMI_SIZE", "2"}, {"PMI_RANK", "0"}, {"PMI_FD", "11"}});
  const std::string why = srun_without_pmix(map_env, kDebianOpenMpi);
  EXPECT_NE(why.find("srun --mpi=pmi2 started"), std::string::npos) << why;
  EXPECT_NE(why.find("srun --mpi=pmix"), std::string::npos) << why;
}

TEST(CommLaunch, SrunWithPmixOrMpirunOrOtherLibrariesAreFine) {
  g_env = srun_env({{"SLURM_MPI_TYPE", "pmix"}, {"PMIX_RANK", "0"}});
  EXPECT_EQ(srun_without_pmix(map_env, kDebianOpenMpi), "");
  g_env = srun_env({{"OMPI_COMM_WORLD_SIZE", "2"}});  // mpirun inside an srun step
  EXPECT_EQ(srun_without_pmix(map_env, kDebianOpenMpi), "");
  g_env = srun_env({});
  EXPECT_EQ(srun_without_pmix(map_env, MpiLibrary{true, false}), "") << "Open MPI with Slurm's PMI";
  EXPECT_EQ(srun_without_pmix(map_env, MpiLibrary{false, false}), "") << "MPICH reads PMI itself";
}

TEST(CommLaunch, BatchScriptOrNoSlurmIsNotAnSrunStep) {
  g_env = {{"SLURM_JOB_ID", "7"}, {"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "2"}};  // sbatch's script
  EXPECT_EQ(srun_without_pmix(map_env, kDebianOpenMpi), "");
  g_env = {};
  EXPECT_EQ(srun_without_pmix(map_env, kDebianOpenMpi), "");
}

TEST(CommLaunch, NodeNameFromTheTestVariableThenSlurm) {
  g_env = srun_env({});
  EXPECT_EQ(node_name_from_env(map_env), "n1");
  g_env["XFERBENCH_NODE_NAME"] = "sim2";
  EXPECT_EQ(node_name_from_env(map_env), "sim2");
  g_env = {{"SLURMD_NODENAME", ""}};
  EXPECT_EQ(node_name_from_env(map_env), "");
}

}  // namespace
}  // namespace xb::comm
