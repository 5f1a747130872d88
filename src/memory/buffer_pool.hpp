// Buffers kept across cells and cases within a memory budget.
//
// Creating buffers is not free (page-locking 512 MiB of host memory costs
// more than copying it), so buffers are reused by place and size. Keeping
// every buffer ever used made the footprint grow with the number of cases
// and GPUs; the pool instead holds at most a budget per GPU and for the
// host, and frees the least recently used buffers first to stay inside it.
//
// The pool is a template over the buffer type so its bookkeeping is tested
// with fake allocations; BufferPool (measure.hpp) is the real one.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/memory_types.hpp"
#include "base/model.hpp"
#include "base/units.hpp"

namespace xb {

// One buffer a scenario needs. Sources prefer a buffer that still holds its
// own pattern, so it is not refilled.
struct BufferRequest {
  Location loc;             // host locations with their NUMA node resolved
  std::uint64_t bytes = 0;
  bool source = false;
};

// Footprint of a set of requests that must coexist.
MemoryAmount memory_need(const std::vector<BufferRequest>& requests);

// Buf needs: bytes(), seed(), content_seed().
template <class Buf>
class BasicBufferPool {
 public:
  using Allocator = std::function<std::unique_ptr<Buf>(const Location&, std::uint64_t)>;

  explicit BasicBufferPool(Allocator allocate) : allocate_(std::move(allocate)) {}

  // fixed = true (--max-memory): requests that need more than the budget
  // are refused. Otherwise a group's budget rises to the largest need seen,
  // so the pool never holds more than one cell of the run needed at once.
  void set_budget(const MemoryAmount& budget, bool fixed) {
    budget_ = budget;
    fixed_ = fixed;
  }
  const MemoryAmount& budget() const noexcept { return budget_; }
  bool fixed() const noexcept { return fixed_; }

  // One distinct buffer per request, valid until the next acquire() or
  // clear(). Reuses held buffers of the same place and size; frees the least
  // recently used others until new ones fit the budget. Throws
  // Error(resources) when the requests exceed a fixed budget (the budget is
  // then untouched) or an allocation fails even after freeing every buffer
  // not in this set.
  std::vector<Buf*> acquire(const std::vector<BufferRequest>& requests);

  std::uint64_t held(int group) const noexcept {
    std::uint64_t sum = 0;
    for (const auto& e : entries_)
      if (e.group == group) sum += e.footprint;
    return sum;
  }
  std::uint64_t held_kind(MemKind kind) const noexcept {
    std::uint64_t sum = 0;
    for (const auto& e : entries_)
      if (e.loc.kind == kind) sum += e.footprint;
    return sum;
  }
  std::uint64_t allocations() const noexcept { return stats_.host_allocations + stats_.gpu_allocations; }
  const PoolStats& stats() const noexcept { return stats_; }
  void clear() noexcept { entries_.clear(); }

 private:
  struct Entry {
    std::unique_ptr<Buf> buf;
    Location loc;
    std::uint64_t bytes = 0, footprint = 0, last_use = 0;
    int group = kHostGroup;
    bool in_use = false;
  };
  static bool same_place(const Location& a, const Location& b) {
    return a.kind == b.kind && a.device == b.device && a.numa == b.numa;
  }
  using Clock = std::chrono::steady_clock;
  static double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }
  Entry* match(const BufferRequest& r);
  void make_room(int group, std::uint64_t footprint);
  Entry& allocate(const BufferRequest& r);
  void check_budget(const MemoryAmount& need);

  Allocator allocate_;
  std::vector<Entry> entries_;
  MemoryAmount budget_;
  bool fixed_ = false;
  std::uint64_t clock_ = 0;
  PoolStats stats_;
};

// Why `need` exceeds a --max-memory budget; nullopt when it fits.
std::optional<std::string> budget_shortfall(const MemoryAmount& need, const MemoryAmount& budget);

template <class Buf>
void BasicBufferPool<Buf>::check_budget(const MemoryAmount& need) {
  if (!fixed_) budget_ = max_of(budget_, need);
  else if (auto why = budget_shortfall(need, budget_)) fail(ErrorKind::resources, *why);
}

template <class Buf>
typename BasicBufferPool<Buf>::Entry* BasicBufferPool<Buf>::match(const BufferRequest& r) {
  Entry* best = nullptr;
  int best_score = -1;
  for (auto& e : entries_) {
    if (e.in_use || e.bytes != r.bytes || !same_place(e.loc, r.loc)) continue;
    // Sources prefer a buffer holding its own pattern, destinations one that
    // does not, which leaves the others for later sources.
    const bool own = e.buf->content_seed() == e.buf->seed();
    const int score = own == r.source ? 1 : 0;
    if (score > best_score) {
      best = &e;
      best_score = score;
    }
  }
  return best;
}

template <class Buf>
void BasicBufferPool<Buf>::make_room(int group, std::uint64_t footprint) {
  while (held(group) + footprint > budget_.get(group)) {
    auto lru = entries_.end();
    for (auto it = entries_.begin(); it != entries_.end(); ++it)
      if (!it->in_use && it->group == group && (lru == entries_.end() || it->last_use < lru->last_use)) lru = it;
    if (lru == entries_.end()) return;  // only buffers of this request set are left
    const auto t0 = Clock::now();
    entries_.erase(lru);
    stats_.eviction_seconds += since(t0);
    ++stats_.evictions;
  }
}

template <class Buf>
typename BasicBufferPool<Buf>::Entry& BasicBufferPool<Buf>::allocate(const BufferRequest& r) {
  Entry e;
  e.loc = r.loc;
  e.bytes = r.bytes;
  e.footprint = footprint_bytes(r.loc, r.bytes);
  e.group = memory_group(r.loc);
  make_room(e.group, e.footprint);
  const auto t0 = Clock::now();
  try {
    e.buf = allocate_(r.loc, r.bytes);
  } catch (const Error& err) {
    if (err.kind() != ErrorKind::resources) throw;
    // Someone else took memory meanwhile: free every buffer this set does
    // not use and try once more.
    entries_.erase(std::remove_if(entries_.begin(), entries_.end(), [&](const Entry& x) { return !x.in_use; }),
                   entries_.end());
    e.buf = allocate_(r.loc, r.bytes);
  }
  const bool host = e.group == kHostGroup;
  (host ? stats_.host_allocation_seconds : stats_.gpu_allocation_seconds) += since(t0);
  ++(host ? stats_.host_allocations : stats_.gpu_allocations);
  e.in_use = true;
  entries_.push_back(std::move(e));
  return entries_.back();
}

template <class Buf>
std::vector<Buf*> BasicBufferPool<Buf>::acquire(const std::vector<BufferRequest>& requests) {
  check_budget(memory_need(requests));
  for (auto& e : entries_) e.in_use = false;
  ++clock_;
  // Reuse first, so no buffer this set could reuse is freed to make room.
  std::vector<Buf*> out(requests.size(), nullptr);
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (Entry* e = match(requests[i])) {
      e->in_use = true;
      e->last_use = clock_;
      out[i] = e->buf.get();
    }
  }
  // Entries move while others are erased or added; pointers to buffers do not.
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (out[i]) continue;
    Entry& e = allocate(requests[i]);
    e.last_use = clock_;
    out[i] = e.buf.get();
  }
  return out;
}

}  // namespace xb
