#include "pingpong/staged_pipeline.hpp"

#include <algorithm>
#include <chrono>

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

StagedPipeline::StagedPipeline(comm::Communicator& comm, int peer, int tag, comm::Seconds timeout,
                               PipelineShape shape, Stager* stager, unsigned char* out_ring, unsigned char* in_ring)
    : comm_(comm), peer_(peer), tag_(tag), timeout_(timeout), shape_(shape), stager_(stager), out_ring_(out_ring),
      in_ring_(in_ring) {}

// Sending side: a = chunks whose GPU -> host copy has started (a slot is
// free again once the send of the chunk before it in that slot completed),
// b = chunks handed to MPI (their copy is done), c = sends completed.
bool StagedPipeline::step_send(Side& s, const unsigned char* src, std::size_t bytes) {
  const auto slots = static_cast<std::uint64_t>(shape_.slots);
  bool moved = false;
  for (; s.a < s.total && s.a - s.c < slots; ++s.a, moved = true) {
    const ChunkSpan span = chunk_span(s.a, bytes, shape_.chunk);
    if (stager_ != nullptr) {
      s.tickets[s.a % slots] = stager_->to_host(out_ring_ + (s.a % slots) * shape_.chunk, src + span.offset, span.bytes);
    }
  }
  for (; s.b < s.a && (stager_ == nullptr || stager_->done(s.tickets[s.b % slots])); ++s.b, moved = true) {
    const ChunkSpan span = chunk_span(s.b, bytes, shape_.chunk);
    const unsigned char* from = stager_ != nullptr ? out_ring_ + (s.b % slots) * shape_.chunk : src + span.offset;
    s.requests[s.b % slots] = comm_.isend(peer_, tag_, from, span.bytes);
  }
  for (; s.c < s.b && comm_.test(s.requests[s.c % slots]); ++s.c) moved = true;
  return moved;
}

// Receiving side: a = receives posted (a slot is free again once the
// host -> GPU copy of the chunk before it in that slot finished), b =
// receives completed (their host -> GPU copy has started), c = chunks landed.
bool StagedPipeline::step_receive(Side& s, unsigned char* dst, std::size_t bytes) {
  const auto slots = static_cast<std::uint64_t>(shape_.slots);
  bool moved = false;
  for (; s.a < s.total && s.a - s.c < slots; ++s.a, moved = true) {
    const ChunkSpan span = chunk_span(s.a, bytes, shape_.chunk);
    unsigned char* into = stager_ != nullptr ? in_ring_ + (s.a % slots) * shape_.chunk : dst + span.offset;
    s.requests[s.a % slots] = comm_.irecv(peer_, tag_, into, span.bytes);
  }
  for (; s.b < s.a && comm_.test(s.requests[s.b % slots]); ++s.b, moved = true) {
    if (stager_ == nullptr) continue;
    const ChunkSpan span = chunk_span(s.b, bytes, shape_.chunk);
    s.tickets[s.b % slots] = stager_->to_device(dst + span.offset, in_ring_ + (s.b % slots) * shape_.chunk, span.bytes);
  }
  for (; s.c < s.b && (stager_ == nullptr || stager_->done(s.tickets[s.c % slots])); ++s.c) moved = true;
  return moved;
}

void StagedPipeline::exchange(const unsigned char* src, int sends, unsigned char* dst, int receives,
                              std::size_t bytes) {
  const std::uint64_t per_msg = chunks_per_message(bytes, shape_.chunk);
  const auto slots = static_cast<std::size_t>(shape_.slots);
  Side out, in;
  out.total = per_msg * static_cast<std::uint64_t>(sends);
  in.total = per_msg * static_cast<std::uint64_t>(receives);
  for (Side* s : {&out, &in}) {
    s->tickets.assign(slots, 0);
    s->requests.assign(slots, comm::Request{});
  }
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
    if ((idle & 63U) == 0 && Clock::now() > deadline) give_up(out, in);
  }
}

void StagedPipeline::give_up(Side& out, Side& in) {
  // wait_all with no patience left cancels what is still posted, so no late
  // message lands in a buffer that is freed after the error.
  std::vector<comm::Request> pending;
  for (Side* s : {&in, &out}) {
    for (auto& r : s->requests) {
      if (r.active) pending.push_back(r);
    }
  }
  try {
    if (!pending.empty()) comm_.wait_all(pending.data(), pending.size(), comm::Seconds(0));
  } catch (const Error&) {
    // Expected: the requests were still pending; the timeout below says why.
  }
  fail(ErrorKind::timeout, comm::timeout_message(comm_.rank(), peer_, tag_, timeout_) + " (in the staged pipeline)");
}

}  // namespace xb::pingpong
