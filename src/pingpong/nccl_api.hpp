// NCCL loaded with dlopen at run time: a machine without libnccl.so.2
// still runs every other transport, and asking for nccl there gives a
// clean Error naming the library instead of a loader failure at start-up.
#pragma once

#include <cstddef>
#include <string>

#include <cuda_runtime_api.h>

namespace xb::pingpong::nccl {

constexpr const char* kLibrary = "libnccl.so.2";

// The slice of NCCL's C ABI the nccl transport uses; types mirror nccl.h
// (ncclComm_t is an opaque pointer, ncclUniqueId 128 bytes, results and
// data types are C enums passed as int).
using Comm = struct ncclComm*;
struct UniqueId {
  char internal[128];
};
constexpr int kSuccess = 0;
constexpr int kInProgress = 7;
constexpr int kInt8 = 0;

struct Api {
  int (*GetUniqueId)(UniqueId*) = nullptr;
  int (*CommInitRank)(Comm*, int, UniqueId, int) = nullptr;
  int (*CommDestroy)(Comm) = nullptr;
  int (*CommAbort)(Comm) = nullptr;
  int (*CommGetAsyncError)(Comm, int*) = nullptr;
  int (*Send)(const void*, std::size_t, int, int, Comm, cudaStream_t) = nullptr;
  int (*Recv)(void*, std::size_t, int, int, Comm, cudaStream_t) = nullptr;
  int (*GroupStart)() = nullptr;
  int (*GroupEnd)() = nullptr;
  const char* (*GetErrorString)(int) = nullptr;
};

// Loads the library once per process; throws Error(comm) naming kLibrary
// and the loader's reason when it cannot.
const Api& api();
// Whether api() would succeed (for choosing the default transport).
bool available() noexcept;

// Throws Error(comm) "nccl: <what> failed: <NCCL's message>" unless result is success.
void check(int result, const char* what);

}  // namespace xb::pingpong::nccl
