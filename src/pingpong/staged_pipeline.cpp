#include "pingpong/staged_pipeline.hpp"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "base/error.hpp"

namespace xb::pingpong {
namespace {

struct ChunkSpan {
  std::size_t offset, bytes;
};

// Chunk c of a stream of equal messages: message c / per_msg, piece c % per_msg.
ChunkSpan chunk_span(std::uint64_t c, std::size_t bytes, std::size_t chunk) {
  const std::uint64_t per_msg = chunks_per_message(bytes, chunk);
  const std::size_t offset = static_cast<std::size_t>(c % per_msg) * chunk;
  return ChunkSpan{offset, std::min(chunk, bytes - offset)};
}

}  // namespace

std::uint64_t chunks_per_message(std::size_t bytes, std::size_t chunk) {
  return bytes == 0 ? 1 : (bytes + chunk - 1) / chunk;
}

MpiChunkLink::MpiChunkLink(comm::Communicator& comm, int peer, int tag, comm::Seconds timeout, PipelineShape shape,
                           unsigned char* out_ring, unsigned char* in_ring)
    : comm_(comm), peer_(peer), tag_(tag), timeout_(timeout), shape_(shape), out_ring_(out_ring), in_ring_(in_ring),
      sends_(static_cast<std::size_t>(shape.slots)), receives_(static_cast<std::size_t>(shape.slots)) {}

void MpiChunkLink::send(std::uint64_t n, const unsigned char* from, std::size_t bytes) {
  sends_[slot(n)] = comm_.isend(peer_, tag_, from, bytes);
}

void MpiChunkLink::receive(std::uint64_t n, unsigned char* into, std::size_t bytes) {
  receives_[slot(n)] = comm_.irecv(peer_, tag_, into, bytes);
}

void MpiChunkLink::give_up() {
  // wait_all with no patience left cancels what is still posted, so no late
  // message lands in a buffer that is freed after the error.
  std::vector<comm::Request> pending;
  for (auto* list : {&receives_, &sends_})
    for (auto& r : *list)
      if (r.active) pending.push_back(r);
  try {
    if (!pending.empty()) comm_.wait_all(pending.data(), pending.size(), comm::Seconds(0));
  } catch (const Error&) {
    // Expected: the requests were still pending; the timeout below says why.
  }
  fail(ErrorKind::timeout, comm::timeout_message(comm_.rank(), peer_, tag_, timeout_) + " (in the staged pipeline)");
}

std::size_t SharedRing::bytes(const PipelineShape& shape) {
  const auto slots = static_cast<std::size_t>(shape.slots);
  return 2 * slots * sizeof(Flags) + 2 * slots * shape.chunk;
}

SharedRing::SharedRing(unsigned char* base, PipelineShape shape, int direction)
    : base_(base), shape_(shape), out_(direction) {}

SharedRing::Flags& SharedRing::flags(int direction, std::size_t slot) const {
  auto* all = reinterpret_cast<Flags*>(base_);
  return all[static_cast<std::size_t>(direction) * static_cast<std::size_t>(shape_.slots) + slot];
}

unsigned char* SharedRing::data(int direction, std::size_t slot) const {
  const auto slots = static_cast<std::size_t>(shape_.slots);
  return base_ + 2 * slots * sizeof(Flags) + (static_cast<std::size_t>(direction) * slots + slot) * shape_.chunk;
}

SharedChunkLink::SharedChunkLink(SharedRing ring, comm::Seconds timeout, std::string what)
    : ring_(ring), timeout_(timeout), what_(std::move(what)) {}

// The GPU -> host copy of the chunk is done (it is in the slot): say so.
void SharedChunkLink::send(std::uint64_t n, const unsigned char*, std::size_t) {
  const std::uint64_t seq = out_base_ + n;
  ring_.flags(ring_.out(), slot(seq)).full.store(seq + 1, std::memory_order_release);
}

bool SharedChunkLink::sent(std::uint64_t n) {
  const std::uint64_t seq = out_base_ + n;
  return ring_.flags(ring_.out(), slot(seq)).free.load(std::memory_order_acquire) >= seq + 1;
}

bool SharedChunkLink::received(std::uint64_t n) {
  const std::uint64_t seq = in_base_ + n;
  return ring_.flags(ring_.in(), slot(seq)).full.load(std::memory_order_acquire) >= seq + 1;
}

void SharedChunkLink::release(std::uint64_t n) {
  const std::uint64_t seq = in_base_ + n;
  ring_.flags(ring_.in(), slot(seq)).free.store(seq + 1, std::memory_order_release);
}

void SharedChunkLink::finish(std::uint64_t sent, std::uint64_t received) {
  out_base_ += sent;
  in_base_ += received;
}

void SharedChunkLink::give_up() {
  fail(ErrorKind::timeout, fmt::format("{} did not move a chunk within {:g} s (in the staged pipeline's shared ring)",
                                       what_, timeout_.count()));
}

StagedPipeline::StagedPipeline(ChunkLink& link, PipelineShape shape, Stager* stager, comm::Seconds timeout)
    : link_(link), shape_(shape), stager_(stager), timeout_(timeout) {}

// Sending side: a = chunks whose GPU -> host copy has started (a slot is
// free again once the chunk before it in that slot was sent), b = chunks
// handed to the link (their copy is done), c = sends completed.
bool StagedPipeline::step_send(Side& s, const unsigned char* src, std::size_t bytes) {
  const auto slots = static_cast<std::uint64_t>(shape_.slots);
  bool moved = false;
  for (; s.a < s.total && s.a - s.c < slots; ++s.a, moved = true) {
    const ChunkSpan span = chunk_span(s.a, bytes, shape_.chunk);
    if (stager_ != nullptr) s.tickets[s.a % slots] = stager_->to_host(link_.out_slot(s.a), src + span.offset, span.bytes);
  }
  for (; s.b < s.a && (stager_ == nullptr || stager_->done(s.tickets[s.b % slots])); ++s.b, moved = true) {
    const ChunkSpan span = chunk_span(s.b, bytes, shape_.chunk);
    link_.send(s.b, stager_ != nullptr ? link_.out_slot(s.b) : src + span.offset, span.bytes);
  }
  for (; s.c < s.b && link_.sent(s.c); ++s.c) moved = true;
  return moved;
}

// Receiving side: a = receives asked for (a slot is free again once the
// host -> GPU copy of the chunk before it in that slot finished), b =
// receives completed (their host -> GPU copy has started), c = chunks landed.
bool StagedPipeline::step_receive(Side& s, unsigned char* dst, std::size_t bytes) {
  const auto slots = static_cast<std::uint64_t>(shape_.slots);
  bool moved = false;
  for (; s.a < s.total && s.a - s.c < slots; ++s.a, moved = true) {
    const ChunkSpan span = chunk_span(s.a, bytes, shape_.chunk);
    link_.receive(s.a, stager_ != nullptr ? link_.in_slot(s.a) : dst + span.offset, span.bytes);
  }
  for (; s.b < s.a && link_.received(s.b); ++s.b, moved = true) {
    if (stager_ == nullptr) continue;
    const ChunkSpan span = chunk_span(s.b, bytes, shape_.chunk);
    s.tickets[s.b % slots] = stager_->to_device(dst + span.offset, link_.in_slot(s.b), span.bytes);
  }
  for (; s.c < s.b && (stager_ == nullptr || stager_->done(s.tickets[s.c % slots])); ++s.c, moved = true)
    link_.release(s.c);
  return moved;
}

void StagedPipeline::exchange(const unsigned char* src, int sends, unsigned char* dst, int receives,
                              std::size_t bytes) {
  const std::uint64_t per_msg = chunks_per_message(bytes, shape_.chunk);
  Side out, in;
  out.total = per_msg * static_cast<std::uint64_t>(sends);
  in.total = per_msg * static_cast<std::uint64_t>(receives);
  for (Side* s : {&out, &in}) s->tickets.assign(static_cast<std::size_t>(shape_.slots), 0);
  using Clock = std::chrono::steady_clock;
  const auto patience = std::chrono::duration_cast<Clock::duration>(timeout_);
  auto deadline = Clock::now() + patience;
  for (unsigned idle = 0; out.c < out.total || in.c < in.total;) {
    // Receives first: posting them early lets the peer's chunks match at once.
    const bool moved = step_receive(in, dst, bytes) | step_send(out, src, bytes);
    if (moved) {
      idle = 0;
      continue;
    }
    // Only an idle loop reads the clock (every 64 idle polls); any progress
    // restarts the timeout, so only a peer that stops answering ends it.
    if (++idle == 1) deadline = Clock::now() + patience;
    if ((idle & 63U) == 0 && Clock::now() > deadline) link_.give_up();
  }
  link_.finish(out.total, in.total);
}

}  // namespace xb::pingpong
