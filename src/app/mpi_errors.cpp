#include "app/mpi_errors.hpp"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "comm/mpi_comm.hpp"

namespace xb::app {

int finish_with_agreed_error(comm::Communicator& comm, const Error& e) {
  if (e.kind() == ErrorKind::timeout) {
    comm.mark_peer_lost();  // MPI_Finalize would wait for the silent peer
    throw e;
  }
  if (comm.rank() == 0) std::cerr << fmt::format("xferbench: error: {}\n", e.what()) << std::flush;
  try {
    comm.barrier(comm::Seconds(5));
  } catch (const Error&) {
    // A rank that failed differently is already gone; the status stands.
  }
  return exit_code(e.kind());
}

void on_rank0(comm::Communicator& comm, double timeout_s, const std::function<void()>& fn) {
  std::optional<Error> err;
  if (comm.rank() == 0) {
    try {
      fn();
    } catch (const Error& e) {
      err = e;
    }
  }
  comm::agree_or_throw(comm, err ? &*err : nullptr, comm::Seconds(timeout_s));
}

bool rank_parse_errors_are_agreed(const std::vector<std::string>& args) {
  const bool multi_rank = std::find(args.begin(), args.end(), "pingpong") != args.end() ||
                          std::find(args.begin(), args.end(), "first-touch") != args.end() ||
                          std::find(args.begin(), args.end(), "fabric") != args.end();
  return multi_rank && comm::started_by_launcher([](const char* name) -> const char* { return std::getenv(name); });
}

int finish_with_agreed_parse_error(int code, const std::string& message) {
  try {
    const auto comm = comm::make_mpi_communicator(1);
    const comm::Seconds patience(10);
    const auto all = comm->allgather(fmt::format("{}\n{}", code, message), patience);
    const auto nl = all[0].find('\n');
    const int agreed = std::stoi(all[0].substr(0, nl));
    if (comm->rank() == 0) std::cerr << all[0].substr(nl + 1) << std::flush;
    comm->barrier(patience);
    return agreed;
  } catch (const Error&) {
    std::cerr << message << std::flush;  // no MPI to agree over: say it here
    return code;
  }
}

}  // namespace xb::app
