#include "pingpong/nccl_api.hpp"

#include <dlfcn.h>

#include <cstring>
#include <mutex>

#include <fmt/format.h>

#include "base/error.hpp"

namespace xb::pingpong::nccl {
namespace {

struct Loaded {
  Api api;
  std::string error;  // empty when every symbol resolved
};

template <typename Fn>
void resolve(void* lib, const char* name, Fn& fn, std::string& error) {
  void* sym = dlsym(lib, name);
  if (sym == nullptr) {
    if (error.empty()) error = fmt::format("{} has no symbol {}", kLibrary, name);
    return;
  }
  std::memcpy(&fn, &sym, sizeof fn);
}

Loaded load() {
  Loaded out;
  void* lib = dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = dlerror();
    out.error = fmt::format("cannot load {}: {}", kLibrary, why != nullptr ? why : "unknown reason");
    return out;
  }
  Api& a = out.api;
  resolve(lib, "ncclGetUniqueId", a.GetUniqueId, out.error);
  resolve(lib, "ncclCommInitRank", a.CommInitRank, out.error);
  resolve(lib, "ncclCommDestroy", a.CommDestroy, out.error);
  resolve(lib, "ncclCommAbort", a.CommAbort, out.error);
  resolve(lib, "ncclCommGetAsyncError", a.CommGetAsyncError, out.error);
  resolve(lib, "ncclSend", a.Send, out.error);
  resolve(lib, "ncclRecv", a.Recv, out.error);
  resolve(lib, "ncclGroupStart", a.GroupStart, out.error);
  resolve(lib, "ncclGroupEnd", a.GroupEnd, out.error);
  resolve(lib, "ncclGetErrorString", a.GetErrorString, out.error);
  // The handle stays open for the life of the process, like a linked library.
  return out;
}

const Loaded& loaded() {
  static const Loaded l = load();
  return l;
}

}  // namespace

const Api& api() {
  const Loaded& l = loaded();
  if (!l.error.empty()) {
    fail(ErrorKind::comm, fmt::format("nccl transport unavailable: {}; install NCCL or use --transport "
                                      "staged or ipc",
                                      l.error));
  }
  return l.api;
}

bool available() noexcept {
  try {
    return loaded().error.empty();
  } catch (...) {
    return false;
  }
}

void check(int result, const char* what) {
  if (result == kSuccess) return;
  const Api& a = api();
  const char* msg = a.GetErrorString != nullptr ? a.GetErrorString(result) : "unknown error";
  fail(ErrorKind::comm, fmt::format("nccl: {} failed: {} (code {})", what, msg, result));
}

}  // namespace xb::pingpong::nccl
