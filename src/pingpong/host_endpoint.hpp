// The CPU side of the device transport: the calling thread runs one side of
// a run (device_protocol.hpp) on mailboxes in shared memory, with the same
// steps, sequence numbers and LL word format as the GPU kernel. Used when a
// rank's buffer is in host memory (host <-> GPU, and host <-> host through
// shared memory), and by the unit tests, which run both sides as threads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pingpong/device_protocol.hpp"

namespace xb::pingpong {

// Runs this side of `spec` through `links` (host pointers) and returns each
// repetition's seconds (time_reps). Every wait gives up after
// spec.timeout_ns and throws Error(timeout) saying what it waited for.
std::vector<double> run_host_side(const devproto::RunSpec& spec, const devproto::Links& links);

// What a wait was for, for timeout messages ("message 12").
std::string describe_wait(devproto::WaitFor what, std::uint64_t seq);

}  // namespace xb::pingpong
