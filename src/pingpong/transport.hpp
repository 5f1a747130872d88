// One rank's end of a measured connection between two ranks. A transport
// owns its buffers (a send and a receive buffer of the largest message
// size); the runner (runner.cpp) drives it the same way for every path:
// construct (local work only), connect (exchange with the peer), then per
// size prepare / run / received. In a pingpong round trip both ranks send
// from their send buffer and receive into their receive buffer, unless
// PairContext::echo asks the responder to send back from the buffer it has
// just received into.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "comm/communicator.hpp"
#include "memory/memory.hpp"
#include "pingpong/options.hpp"

namespace xb::pingpong {

// Message tags used between the two ranks of a pair.
enum Tag : int {
  kTagData = 1,
  kTagAck = 2,
  kTagSync = 3,
  kTagStatus = 4,
  kTagVerify = 5,
  kTagConnect = 6,
  kTagDescribe = 7,
  kTagSlice = 8
};

struct PairContext {
  comm::Communicator* comm = nullptr;
  int peer = -1;
  bool initiator = false;  // sends first; holds dev1's buffer
  int my_device = -1;      // -1: host buffers
  int peer_device = -1;
  std::size_t max_bytes = 0;
  comm::Seconds timeout{30};
  std::uint64_t ll_max_bytes = 0;       // device transport: largest LL message
  std::uint64_t stage_chunk_bytes = 0;  // staged transport: pipeline chunk
  bool echo = false;  // pingpong: the responder sends from its receive buffer (--buffers echo)
  bool same_host = false;  // both ranks on one host (they can share memory)
};

class Transport {
 public:
  virtual ~Transport() = default;
  // Exchanges what the peer needs (IPC handles, NCCL id); collective over the pair.
  virtual void connect() {}
  // Fills the send buffer's first `bytes` with the pattern of `seed` and
  // overwrites the receive buffer, so stale data cannot pass verification.
  virtual void prepare(std::size_t bytes, std::uint64_t seed) = 0;
  // Runs `reps` repetitions of `mode` (a round trip, or a window of
  // `window` messages plus an acknowledgement) back to back; returns the
  // seconds of each repetition as seen by this rank.
  virtual std::vector<double> run(Mode mode, std::size_t bytes, int reps, int window) = 0;
  // The receive buffer's first `bytes`, copied to the host.
  virtual std::vector<unsigned char> received(std::size_t bytes) = 0;
  // How the path moves data, for the report ("" when the name says it all).
  virtual std::string describe() const { return ""; }
};

// What prepare() writes over a receive buffer: data that never arrives
// leaves this byte, which no pattern holds throughout, so it fails verification.
constexpr unsigned char kFiller = 0xA5;

// A rank's send and receive buffers: on its GPU, or in pageable host memory (device < 0).
inline Location buffer_location(int device) {
  return device >= 0 ? device_memory(device) : host_memory(MemKind::pageable, kNoNumaPlacement);
}

// prepare() on a rank's own buffers: the pattern of `seed` into the send
// buffer's first `bytes`, the filler into the receive buffer's.
inline void load_pattern(Buffer& send, Buffer& recv, std::size_t bytes, std::uint64_t seed) {
  fill_buffer(send, bytes, seed, send.location().device);
  fill_bytes(recv, bytes, kFiller);
}

// received() on a rank's own receive buffer.
inline std::vector<unsigned char> host_copy(const Buffer& recv, std::size_t bytes) {
  std::vector<unsigned char> out(bytes);
  copy_to_host(recv, out.data(), bytes);
  return out;
}

std::unique_ptr<Transport> make_mpi_transport(const PairContext& ctx);
// Pipelined staging through pinned host chunks (transport_staged.cpp); a
// host side sends the same chunks straight from its buffer.
std::unique_ptr<Transport> make_staged_transport(const PairContext& ctx);
std::unique_ptr<Transport> make_ipc_transport(const PairContext& ctx);
std::unique_ptr<Transport> make_nccl_transport(const PairContext& ctx);
// Device-initiated: a persistent kernel per GPU (or a CPU thread for a host
// buffer) stores into the peer's memory and raises flags (transport_device.cpp).
std::unique_ptr<Transport> make_device_transport(const PairContext& ctx);

std::unique_ptr<Transport> make_transport(TransportKind kind, const PairContext& ctx);

}  // namespace xb::pingpong
