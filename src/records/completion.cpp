#include "records/completion.hpp"

#include <fmt/format.h>

namespace xb {

const char* to_string(RunStatus s) noexcept {
  static const char* const names[] = {"complete", "interrupted", "partial"};
  return names[static_cast<int>(s)];
}

const char* to_string(Outcome o) noexcept {
  static const char* const names[] = {"passed", "partial", "failed", "interrupted"};
  return names[static_cast<int>(o)];
}

void record_stop(Completion& c, const Stopped& stop) {
  c.status = stop.reason() == StopReason::time_limit ? RunStatus::partial : RunStatus::interrupted;
  c.stop = stop.reason();
  c.message = stop.what();
}

void settle(Completion& c, const char* unit) {
  if (c.stop == StopReason::none && !c.not_run.empty()) {
    c.stop = StopReason::time_limit;
    c.message = fmt::format("time limit: {} {}(s) would not have ended in time", c.not_run.size(), unit);
  }
  if (c.stop == StopReason::none) return;
  c.status = c.stop == StopReason::time_limit ? RunStatus::partial : RunStatus::interrupted;
  if (c.message.empty()) c.message = stop_message(c.stop);
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
