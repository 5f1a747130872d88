// The persistent kernel of the device transport: one launch per run runs
// the ready handshake and every repetition of device_protocol.hpp's schedule,
// with no host step between messages.
//
// Memory orders (PTX, system scope, because the peer is another GPU over
// NVLink or the CPU over PCIe):
//  - large messages: the block's threads store their part with plain
//    16-byte stores, __syncthreads(), then thread 0 raises the part's flag
//    with st.release.sys (cumulative: it publishes the whole block's stores);
//    the receiver polls each part flag with ld.acquire.sys, then
//    __syncthreads() before any thread touches the data;
//  - small messages (LL): data and the sequence number travel in the same
//    8-byte word, written and polled with 16-byte volatile vector accesses
//    (each 8-byte element is single-copy atomic), so no fence is needed;
//  - ready and ack flags: st.release.sys / ld.acquire.sys.
// Timeout: a wait that lasts more than 64 polls sleeps 128 ns between
// polls (LL words: never; they read the clock every 1024 polls instead),
// reads %globaltimer every 64 polls and gives up after
// spec.timeout_ns; it then records what it waited for in `status` (mapped
// host memory) and the kernel returns, so a dead peer never leaves the GPU
// spinning. A ping-pong of one LL word pair (up to 8 B) with a GPU peer
// runs in one thread alone, with no block barrier either, since the nap
// and a barrier per message cost it a third of its time. Blocks are
// launched cooperatively: all are resident at once,
// which the flag waits need (a block may wait for a message that depends on
// another block's part, so that block must be running).
// Which SM runs LL words with a GPU peer (their one block): the kernel is
// launched with one block per SM, each block's thread 0 times dependent
// loads of the first LL word it would poll, and the block with the fastest
// loads runs the exchange while the others return. An SM's load time to a
// word depends on where the word's L2 slice sits: a bare flag ping-pong
// took 0.62-0.70 us one-way depending on the SM alone, and the pick took
// the one-pair path from 0.858 to 0.659 us on two H200
// (bench/results/2026-11-27-h200x2-device-transport).
// Times: the lead block (block 0, or the one LL block) stamps each
// repetition with the SM cycle counter (clock64) and the run's start and
// end with %globaltimer; the host scales
// the cycles by the global timer over the whole run, because %globaltimer
// may tick in steps of a microsecond on some GPUs, too coarse for one round trip.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "pingpong/device_protocol.hpp"

namespace xb::pingpong {

// Written by the kernel only when a wait gives up.
struct KernelStatus {
  std::uint32_t timed_out;
  std::uint32_t what;  // devproto::WaitFor
  std::uint64_t seq;   // the value waited for
  std::uint64_t seen;  // the last value read
  std::uint64_t rep;
};

struct DeviceRunArgs {
  devproto::RunSpec spec;
  devproto::Links links;   // device pointers
  std::uint64_t* clocks;   // spec.reps + 1 SM-cycle stamps (device memory)
  std::uint64_t* timer;    // 2 %globaltimer stamps: start and end (device memory)
  KernelStatus* status;    // device pointer to mapped host memory
  unsigned long long* pulled;  // pull: blocks' finished fetches in this run (device memory, zeroed per run)
  std::uint64_t* relay;        // pull: 3 words (device memory, zeroed once), the last value block 0 saw
                               // of each flag in host memory (ready, message, ack), indexed by WaitFor
  unsigned long long* pick;    // LL words with a GPU peer: 2 words (device memory, zeroed per run), the
                               // best SM's key and the blocks that have measured
};

// Parts (blocks) one large message may use on the current device: one per
// SM, as long as a block of the run's shape fits there.
std::uint32_t device_run_max_parts();

// Launches the run on the current device (cooperative launch).
void launch_device_run(const DeviceRunArgs& args, cudaStream_t stream);

}  // namespace xb::pingpong
