// Flag handshakes between two GPUs for the ipc transport. A flag is a
// 32-bit counter in the waiting GPU's memory; the other GPU writes it over
// peer access after its copy, so no host and no MPI sit in the data path.
//
// wait: a one-thread kernel spins on the stream until *flag reaches
// `target` (wrap-safe), holding back everything queued after it. It gives
// up after `timeout_ns` of GPU time, sets *timed_out (host-mapped memory)
// and returns, so a dead peer cannot hang the GPU; the host then reports a
// timeout. Caveat: it occupies one SM slot while it spins.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

namespace xb::pingpong {

void launch_wait_flag(const std::uint32_t* flag, std::uint32_t target, std::uint64_t timeout_ns,
                      std::uint32_t* timed_out, cudaStream_t stream);
// Writes `value` to `flag` (usually peer memory) after everything queued
// before it on the stream, with a system-wide fence so the data copied
// before is visible to the peer first.
void launch_signal_flag(std::uint32_t* flag, std::uint32_t value, cudaStream_t stream);

}  // namespace xb::pingpong
