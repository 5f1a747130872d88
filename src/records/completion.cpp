#include "records/completion.hpp"

namespace xb {

const char* to_string(RunStatus s) noexcept {
  switch (s) {
    case RunStatus::complete: return "complete";
    case RunStatus::interrupted: return "interrupted";
    case RunStatus::partial: return "partial";
  }
  return "complete";
}

const char* to_string(Outcome o) noexcept {
  switch (o) {
    case Outcome::passed: return "passed";
    case Outcome::partial: return "partial";
    case Outcome::failed: return "failed";
    case Outcome::interrupted: return "interrupted";
  }
  return "failed";
}

void record_stop(Completion& c, const Stopped& stop) {
  c.status = stop.reason() == StopReason::time_limit ? RunStatus::partial : RunStatus::interrupted;
  c.stop = stop.reason();
  c.message = stop.what();
}

Ending ending(const Completion& c, std::optional<ErrorKind> failure, PartialMeans partial) {
  if (is_interruption(c.stop)) return {Outcome::interrupted, stop_exit_code(c.stop)};
  if (!c.error.empty()) return {Outcome::failed, exit_code(c.error_kind)};
  if (failure) return {Outcome::failed, exit_code(*failure)};
  const bool counts = partial == PartialMeans::partial ||
                      (partial == PartialMeans::time_limit_only && c.stop == StopReason::time_limit);
  if (c.status == RunStatus::partial && counts) return {Outcome::partial, kExitPartial};
  return {};
}

}  // namespace xb
