// The host-memory analogue of first touch, in one process: copies of
// P2P_SIZE bytes from freshly allocated host memory to a GPU, for
// pageable (malloc), pinned (cudaMallocHost) and registered (malloc, then
// cudaHostRegister) memory. The first copy from a fresh pageable buffer
// pays its page faults; from a registered one the registration was paid
// up front (timed as its own phase). Never prints.
#pragma once

#include "firsttouch/options.hpp"
#include "firsttouch/result.hpp"
#include "firsttouch/runner.hpp"

namespace xb::firsttouch {

enum class HostKind { pageable, pinned, registered };
const char* to_string(HostKind k) noexcept;

// Variants: every host kind times the variants of `options` (with and
// without overalloc, or the sweep), in that order. Uses GPU 0.
// Error(no_device) without a GPU, Error(resources) when the largest
// buffer exceeds free host memory. `observer` sees each variant and
// iteration as it is measured (runner.hpp).
Result run_host_analogue(const Options& options, const Environment& env = default_environment(),
                         const Observer& observer = {});

}  // namespace xb::firsttouch
