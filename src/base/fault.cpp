#include "base/fault.hpp"

#include <algorithm>
#include <cctype>
#include <csignal>
#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/names.hpp"
#include "base/units.hpp"

namespace xb {
namespace {

constexpr const char* kVar = "XFERBENCH_FAULT";

constexpr Named<FaultKind> kFaultKinds[] = {
    {FaultKind::none, "none"},           {FaultKind::cuda_error, "cuda_error"}, {FaultKind::cuda_sticky, "cuda_sticky"},
    {FaultKind::timeout, "timeout"},     {FaultKind::verify, "verify"},         {FaultKind::signal_int, "signal_int"},
    {FaultKind::signal_term, "signal_term"}, {FaultKind::mark, "mark"},
    {FaultKind::slow, "slow"}};

// Sizes are compared as decimal bytes, so "1M" and "1048576" name the same cell.
std::string normalized_target(const std::string& t) {
  if (t.empty() || !std::isdigit(static_cast<unsigned char>(t[0]))) return t;
  try {
    return std::to_string(parse_size(t, "size"));
  } catch (const Error&) {
    return t;  // "0/1" (first-touch) is not a size
  }
}

Fault parse_entry(const std::string& entry) {
  const auto bad = [&](const std::string& why) {
    fail(ErrorKind::usage, fmt::format("invalid {} entry '{}': {} (expected TARGET:KIND[@RANK], KIND one of "
                                       "cuda_error, cuda_sticky, timeout, verify, signal_int, signal_term, mark, slow)",
                                       kVar, entry, why));
  };
  std::string rest = entry;
  Fault f;
  if (const auto at = rest.rfind('@'); at != std::string::npos) {
    try {
      f.rank = static_cast<int>(parse_int(rest.substr(at + 1), "rank"));
    } catch (const Error&) {
      bad("the rank after '@' is not a number");
    }
    rest = rest.substr(0, at);
  }
  const auto colon = rest.rfind(':');
  if (colon == std::string::npos || colon == 0) bad("no TARGET:KIND");
  f.kind = lookup_value(kFaultKinds, rest.substr(colon + 1)).value_or(FaultKind::none);
  if (f.kind == FaultKind::none) bad(fmt::format("unknown kind '{}'", rest.substr(colon + 1)));
  f.target = normalized_target(rest.substr(0, colon));
  if (f.target[0] == '#') {
    try {
      parse_int(f.target.substr(1), "cell number");
    } catch (const Error&) {
      bad("'#' must be followed by a cell number");
    }
  }
  return f;
}

}  // namespace

const char* to_string(FaultKind k) noexcept { return lookup_name(kFaultKinds, k, "none"); }

FaultPlan::FaultPlan(const std::string& text, int rank) : rank_(rank) {
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto end = std::min(text.find(';', start), text.size());
    const std::string entry = text.substr(start, end - start);
    if (!entry.empty()) faults_.push_back(parse_entry(entry));
    start = end + 1;
  }
}

FaultPlan FaultPlan::from_env(int rank) {
  const char* v = std::getenv(kVar);
  return v == nullptr ? FaultPlan() : FaultPlan(v, rank);
}

FaultKind FaultPlan::match(const std::vector<std::string>& names, std::size_t ordinal) {
  const std::string number = "#" + std::to_string(ordinal);
  for (Fault& f : faults_) {
    if (f.fired || (f.rank >= 0 && f.rank != rank_)) continue;
    if (f.target != number && std::find(names.begin(), names.end(), f.target) == names.end()) continue;
    const bool once = f.kind == FaultKind::signal_int || f.kind == FaultKind::signal_term || f.kind == FaultKind::mark;
    if (once) f.fired = true;
    return f.kind;
  }
  return FaultKind::none;
}

void inject_fault(FaultKind kind, const std::string& where) {
  switch (kind) {
    case FaultKind::cuda_error:
      fail(ErrorKind::cuda, fmt::format("{}: injected fault: cudaErrorLaunchFailure ({})", where, kVar));
    case FaultKind::cuda_sticky:
      fail(ErrorKind::cuda, fmt::format("{}: injected fault: cudaErrorIllegalAddress, the context is unusable ({})",
                                        where, kVar));
    case FaultKind::timeout:
      fail(ErrorKind::timeout, fmt::format("{}: injected fault: no answer within the timeout ({})", where, kVar));
    case FaultKind::signal_int: std::raise(SIGINT); return;
    case FaultKind::signal_term: std::raise(SIGTERM); return;
    case FaultKind::mark:
      // One write, flushed: under mpirun the line reaches the launcher's output at once.
      std::fputs(fmt::format("xferbench: {} mark: {} starts\n", kVar, where).c_str(), stderr);
      std::fflush(stderr);
      return;
    case FaultKind::verify:
    case FaultKind::slow:  // acted on by the fabric's transports (src/fabric)
    case FaultKind::none: return;
  }
}

}  // namespace xb
