// Shared parts of the device transport's two sides (transport_device.cpp):
// the connect handshake, the run bookkeeping (run numbers and sequence
// counters that both sides advance identically) and the layout of the
// mailboxes in shared memory when a side's buffer is in host memory.
#pragma once

#include <cstdint>
#include <string>

#include <cuda_runtime_api.h>

#include "pingpong/device_protocol.hpp"
#include "pingpong/shm.hpp"
#include "pingpong/transport.hpp"

namespace xb::pingpong {

// Two mailboxes in one shared segment: box 0 is the initiator's inbound
// one, box 1 the responder's. Each: flags, LL words, a data area for the
// largest message; every section starts on a page. With `host_send` (a
// host <-> GPU pair) the host side's send buffer follows, where the GPU
// fetches its messages.
struct ShmLayout {
  std::size_t ll_offset = 0, data_offset = 0, box_bytes = 0, send_offset = 0, total = 0;
};
ShmLayout shm_layout(std::uint64_t ll_max_bytes, std::uint64_t max_bytes, bool host_send = false);
devproto::BoxView box_at(unsigned char* base, const ShmLayout& layout, int index);

// What each side tells the other when connecting.
struct Hello {
  std::uint32_t max_parts = 1;  // blocks this side splits a large message into, at most
  std::uint64_t ll_max = 0;     // must match on both sides
  char shm_name[64] = {};       // the initiator's shared segment, when a side is the host
  cudaIpcMemHandle_t box{};     // GPU <-> GPU: this side's mailbox (flags, LL words)
  cudaIpcMemHandle_t recv{};    // GPU <-> GPU: this side's receive buffer
};

class DeviceTransportBase : public Transport {
 protected:
  DeviceTransportBase(const PairContext& ctx, std::uint32_t max_parts);

  bool uses_shm() const { return ctx_.my_device < 0 || ctx_.peer_device < 0; }
  // A host side and a GPU side: the GPU fetches the host's large messages.
  bool pulls() const { return (ctx_.my_device < 0) != (ctx_.peer_device < 0); }
  int my_box() const { return ctx_.initiator ? 0 : 1; }

  // Fills in this side's parts and --ll-max; the initiator creates the
  // shared segment (when a side is the host) and puts its name in `mine`;
  // both sides then swap hellos; the responder maps the segment by name.
  // Error(usage) when the sides disagree on --ll-max.
  Hello connect_hello(Hello mine);
  // The spec of the next run; commit() after it succeeded.
  devproto::RunSpec next_spec(Mode mode, std::size_t bytes, int reps, int window);
  void commit(const devproto::RunSpec& spec) { counters_ = devproto::counters_after(spec); }
  // Error(timeout) naming this rank, its buffer, the peer and what was awaited.
  [[noreturn]] void fail_late(const std::string& what) const;

  PairContext ctx_;
  std::uint32_t my_max_parts_ = 1, peer_max_parts_ = 1;
  SharedSegment shm_;
  ShmLayout layout_;

 private:
  devproto::Counters counters_;
  std::uint64_t runs_ = 0;
};

std::unique_ptr<Transport> make_device_gpu_side(const PairContext& ctx);

}  // namespace xb::pingpong
