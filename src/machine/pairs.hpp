// Which ordered GPU pairs the pairwise cases measure: every pair (the
// default), the pairs given with --pair A,B, or a sample of N pairs
// (--sample-pairs N --seed S) that first covers every GPU and then draws
// pairs at random. Pure: no CUDA, so selection and reproducibility are
// unit-tested.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "machine/topology.hpp"

namespace xb {

struct GpuPair {
  int from = 0;  // the matrix row: the GPU that reads from / writes to `to`
  int to = 0;
  bool operator==(const GpuPair& o) const noexcept { return from == o.from && to == o.to; }
  bool operator<(const GpuPair& o) const noexcept { return from != o.from ? from < o.from : to < o.to; }
};

struct PairSelection {
  enum class Mode { all, given, sampled };
  Mode mode = Mode::all;
  std::vector<GpuPair> pairs;   // given or sampled, in selection order; empty for all
  int requested = 0;            // --sample-pairs N
  std::uint64_t seed = 0;       // --seed, for sampled
  int available = 0;            // ordered pairs with peer access on the machine
  std::string note;             // e.g. "10 requested, 2 ordered pairs exist: using all"
  bool selects(int from, int to) const;
};
const char* to_string(PairSelection::Mode m) noexcept;

// Parses "A,B" (two different GPU ids). Throws Error(usage) naming the text.
GpuPair parse_pair(const std::string& text);

// Checks given pairs against the machine: an id out of range, the same id
// twice or a pair without peer access is Error(usage) naming the id.
PairSelection given_pairs(const std::vector<GpuPair>& pairs, const System& sys);

// N ordered pairs among those with peer access. Phase 1 walks the GPUs in
// a seeded random order and gives each GPU not yet in a chosen pair one
// pair with a random peer (an uncovered peer when there is one); phase 2
// fills up with random pairs not chosen yet. The generator is splitmix64
// with a bounded draw of its own, so a seed gives the same pairs on every
// platform and compiler. N >= the number of pairs: all of them, with a note.
// N < 1 is Error(usage).
PairSelection sample_pairs(int n, std::uint64_t seed, const System& sys);

// The selection of a run: the given pairs (checked), a sample of
// `sample` pairs (> 0), or every pair.
PairSelection select_pairs(const std::vector<GpuPair>& given, int sample, std::uint64_t seed, const System& sys);

// Ordered pairs with peer access, in (from, to) order.
std::vector<GpuPair> peer_pairs(const System& sys);

}  // namespace xb
