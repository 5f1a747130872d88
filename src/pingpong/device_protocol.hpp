// The protocol of the device transport, shared by the GPU kernel
// (device_kernels.cu) and the CPU endpoint (host_endpoint.cpp) so both
// sides run the very same schedule, sequence numbers and word format. Plain
// C++ in a header; under nvcc the functions are also __device__.
//
// Each side owns an inbound mailbox (Box) that only the peer writes:
//  - flags.ready: the peer's run number, raised when its side of a run starts;
//  - flags.parts[b]: sequence number of the last message whose part b the
//    peer has stored (a multi-block GPU sender splits a message into parts,
//    one per block; a CPU sender uses one part);
//  - flags.ack: sequence number of the last acknowledgement (bw mode);
//  - ll: LL words for small messages: each 8-byte word carries 4 data bytes
//    and the low 32 bits of the message's sequence number, so one store
//    moves data and flag at once and the reader needs no fence;
//  - data: where large messages land (the receive buffer).
// Between a host rank and a GPU rank (RunSpec::pull) the GPU fetches each
// large message from the host's memory itself: the host only raises the
// message's flag, and the data crosses PCIe once, in the GPU's kernel, in
// both directions (stores to the host, loads from it).
// Sequence numbers only grow (64-bit flags, never reset): a run continues
// where the previous one stopped, so a stale flag can never look new.
#pragma once

#include <cstdint>

#include "pingpong/options.hpp"

#if defined(__CUDACC__)
#define XB_HD __host__ __device__ __forceinline__
#else
#define XB_HD inline
#endif

namespace xb::pingpong::devproto {

constexpr std::uint32_t kMaxParts = 1024;        // blocks of one GPU message, at most
constexpr std::uint64_t kMinPartBytes = 64 << 10;  // a block moves at least this much

struct alignas(128) BoxFlags {
  std::uint64_t ready;
  std::uint64_t pad0[15];
  std::uint64_t ack;
  std::uint64_t pad1[15];
  std::uint64_t parts[kMaxParts];
};

// One mailbox as seen by one side (pointers valid in that side's address
// space: host pointers for the CPU endpoint, device pointers for a kernel).
struct BoxView {
  BoxFlags* flags;
  std::uint64_t* ll;
  unsigned char* data;
};

// What one side works on. `in` is its own mailbox, `out` the peer's.
struct Links {
  const unsigned char* send;  // this side's message
  const unsigned char* peer_send;  // pull: the host peer's message (in shared memory)
  unsigned char* recv_ll;     // LL messages are unpacked here
  BoxView in, out;            // large messages arrive in in.data
};

// Messages and acknowledgements this side has sent and received on the
// pair so far; both sides advance them identically after every run.
struct Counters {
  std::uint64_t sent = 0, received = 0, acks_sent = 0, acks_received = 0;
};

using ModeCode = Mode;  // the run's mode, as both sides' schedules see it

struct RunSpec {
  ModeCode mode = ModeCode::pingpong;
  bool initiator = true;
  bool ll = true;                 // LL words (small messages) or data + part flags
  std::uint64_t bytes = 0;
  std::uint32_t reps = 0, window = 1;
  std::uint32_t my_parts = 1;     // parts this side splits an outgoing message into
  std::uint32_t peer_parts = 1;   // parts the peer splits its messages into
  std::uint64_t run = 0;          // run number, for the ready handshake
  std::uint64_t timeout_ns = 0;   // longest wait for any flag
  Counters base;                  // counters before this run
  bool echo = false;              // pingpong: the responder sends back what it received (--buffers echo)
  bool pull = false;              // host <-> GPU: the GPU side fetches large messages from the host side
};

// One step of a repetition. A repetition is at most two steps.
enum class StepKind : std::uint32_t { send, echo, receive, send_ack, receive_ack };
struct Step {
  StepKind kind;
  std::uint32_t count;  // messages (send/echo/receive)
};
struct RepSteps {
  Step step[2];
  int n;
};

// What a side waits for, for timeout reports.
enum class WaitFor : std::uint32_t { start, message, ack };

// pingpong: the initiator sends, then receives the answer; the responder
//   receives, then answers from its send buffer, or with `echo` sends back
//   what it received (the buffer it received into).
// bw (osu_bw): the initiator sends `window` messages and waits for one
//   acknowledgement; the responder waits for the window, then acknowledges.
// bibw (osu_bibw): both send a window and wait for the peer's.
XB_HD RepSteps rep_steps(ModeCode mode, bool initiator, std::uint32_t window, bool echo) {
  switch (mode) {
    case ModeCode::pingpong:
      if (initiator) return RepSteps{{{StepKind::send, 1}, {StepKind::receive, 1}}, 2};
      return RepSteps{{{StepKind::receive, 1}, {echo ? StepKind::echo : StepKind::send, 1}}, 2};
    case ModeCode::bw:
      if (initiator) return RepSteps{{{StepKind::send, window}, {StepKind::receive_ack, 1}}, 2};
      return RepSteps{{{StepKind::receive, window}, {StepKind::send_ack, 1}}, 2};
    case ModeCode::bibw: break;
  }
  return RepSteps{{{StepKind::send, window}, {StepKind::receive, window}}, 2};
}

// The counters after a whole run, as both sides compute them: every
// repetition advances them by its steps' messages and one per ack.
XB_HD Counters counters_after(const RunSpec& spec) {
  Counters c = spec.base;
  const RepSteps steps = rep_steps(spec.mode, spec.initiator, spec.window, spec.echo);
  for (int i = 0; i < steps.n; ++i) {
    const std::uint64_t messages = static_cast<std::uint64_t>(steps.step[i].count) * spec.reps;
    switch (steps.step[i].kind) {
      case StepKind::send:
      case StepKind::echo: c.sent += messages; break;
      case StepKind::receive: c.received += messages; break;
      case StepKind::send_ack: c.acks_sent += spec.reps; break;
      case StepKind::receive_ack: c.acks_received += spec.reps; break;
    }
  }
  return c;
}

// Parts a sender with `max_parts` blocks splits a message into: one per
// kMinPartBytes, at least one, at most max_parts.
XB_HD std::uint32_t parts_for(std::uint64_t bytes, std::uint32_t max_parts) {
  const std::uint64_t want = (bytes + kMinPartBytes - 1) / kMinPartBytes;
  const std::uint64_t cap = max_parts < kMaxParts ? max_parts : kMaxParts;
  if (want < 1) return 1;
  return static_cast<std::uint32_t>(want < cap ? want : (cap < 1 ? 1 : cap));
}

// Byte range [begin, end) of part b of `parts`; parts start on 16-byte
// boundaries (vector stores), the last ones may be empty.
XB_HD void part_range(std::uint64_t bytes, std::uint32_t parts, std::uint32_t b, std::uint64_t& begin,
                      std::uint64_t& end) {
  std::uint64_t size = (bytes + parts - 1) / parts;
  size = (size + 15) / 16 * 16;
  begin = static_cast<std::uint64_t>(b) * size;
  if (begin > bytes) begin = bytes;
  end = begin + size < bytes ? begin + size : bytes;
}

// LL words hold 4 data bytes each and are moved in pairs (16-byte vectors).
XB_HD std::uint64_t ll_pairs(std::uint64_t bytes) { return (bytes + 7) / 8; }
XB_HD std::uint64_t ll_area_bytes(std::uint64_t max_ll_bytes) { return ll_pairs(max_ll_bytes) * 16; }

XB_HD std::uint64_t ll_word(std::uint32_t data, std::uint64_t seq) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(seq)) << 32) | data;
}
XB_HD std::uint32_t ll_data(std::uint64_t word) { return static_cast<std::uint32_t>(word); }
// Whether `word` belongs to message `seq` or a later one (wrap-safe on the
// 32 bits a word carries): in bibw a fast peer may already have overwritten
// it with its next window, whose data is the same.
XB_HD bool ll_at_least(std::uint64_t word, std::uint64_t seq) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(word >> 32) - static_cast<std::uint32_t>(seq)) >= 0;
}

// Little-endian byte packing of up to 8 message bytes into two words' data.
XB_HD std::uint64_t load_tail(const unsigned char* p, std::uint64_t n) {
  std::uint64_t v = 0;
  for (std::uint64_t i = 0; i < n && i < 8; ++i) v |= static_cast<std::uint64_t>(p[i]) << (8 * i);
  return v;
}
XB_HD void store_tail(unsigned char* p, std::uint64_t v, std::uint64_t n) {
  for (std::uint64_t i = 0; i < n && i < 8; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}

}  // namespace xb::pingpong::devproto
