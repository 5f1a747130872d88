// Typed errors for the core library. The core never prints and never exits:
// it throws xb::Error, and main() maps the kind to a documented exit code.
#pragma once

#include <stdexcept>
#include <string>

namespace xb {

enum class ErrorKind {
  // A value the user gave is wrong (option, size, id), or an input file
  // (spec, baseline, judged run, topology, resume file, compared result)
  // cannot be read, is not a regular file or is malformed: all of them are
  // the user's to fix, so one kind and exit 2 (base/input_file.hpp reads
  // input files).
  usage,
  no_device,     // no CUDA GPU or no usable driver
  resources,     // not enough memory (device or host)
  nvml,          // NVML could not be loaded or answered an error
  cuda,          // a CUDA call failed while running
  timeout,       // a gate or a transfer did not finish in time
  verification,  // data check after a timed copy failed
  comm,          // multi-process launch or communication failed
  io,            // an output (-o / --junit file, standard output) could not be written
  internal,
};

// Documented exit codes (README "Exit codes"); main() is the only user.
int exit_code(ErrorKind kind) noexcept;
// A partial result: cells waived because they did not fit in memory or the
// --max-memory budget (the run itself succeeded).
constexpr int kExitPartial = 10;
const char* to_string(ErrorKind kind) noexcept;

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message)
      : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const noexcept { return kind_; }

 private:
  ErrorKind kind_;
};

[[noreturn]] inline void fail(ErrorKind kind, const std::string& message) {
  throw Error(kind, message);
}

}  // namespace xb
