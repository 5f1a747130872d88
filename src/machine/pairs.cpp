#include "machine/pairs.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/names.hpp"
#include "base/units.hpp"

namespace xb {
namespace {

// splitmix64: tiny, and its output is fixed by its definition (the
// standard library's distributions are not), so seeds reproduce anywhere.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n) by rejection, n > 0.
  std::size_t below(std::size_t n) {
    const std::uint64_t bound = static_cast<std::uint64_t>(n);
    const std::uint64_t threshold = (0 - bound) % bound;
    for (;;) {
      const std::uint64_t r = next();
      if (r >= threshold) return static_cast<std::size_t>(r % bound);
    }
  }
  template <typename T>
  void shuffle(std::vector<T>& v) {
    for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[below(i)]);
  }

 private:
  std::uint64_t state_;
};

void check_gpu(int id, const std::string& text, const System& sys) {
  if (id < 0 || id >= sys.gpu_count())
    fail(ErrorKind::usage, fmt::format("invalid --pair '{}': gpu {} does not exist (this machine has {} GPU{}: 0-{})",
                                       text, id, sys.gpu_count(), sys.gpu_count() == 1 ? "" : "s",
                                       sys.gpu_count() - 1));
}

// Phase 1 of sample_pairs: one pair for each GPU not yet in a pair.
void cover_every_gpu(int n, const System& sys, Rng& rng, std::vector<GpuPair>& out, std::set<GpuPair>& chosen) {
  const int gpus = sys.gpu_count();
  std::vector<int> order(static_cast<std::size_t>(gpus));
  for (int g = 0; g < gpus; ++g) order[static_cast<std::size_t>(g)] = g;
  rng.shuffle(order);
  std::vector<bool> covered(static_cast<std::size_t>(gpus), false);
  for (const int a : order) {
    if (static_cast<int>(out.size()) >= n) return;
    if (covered[static_cast<std::size_t>(a)]) continue;
    std::vector<int> peers, fresh;
    for (const int b : order) {
      if (b == a || !(sys.link(a, b).peer_access || sys.link(b, a).peer_access)) continue;
      peers.push_back(b);
      if (!covered[static_cast<std::size_t>(b)]) fresh.push_back(b);
    }
    if (peers.empty()) continue;
    const std::vector<int>& pool = fresh.empty() ? peers : fresh;
    const int b = pool[rng.below(pool.size())];
    const bool forward = sys.link(a, b).peer_access && (!sys.link(b, a).peer_access || rng.below(2) == 0);
    const GpuPair p = forward ? GpuPair{a, b} : GpuPair{b, a};
    if (!chosen.insert(p).second) continue;
    out.push_back(p);
    covered[static_cast<std::size_t>(a)] = covered[static_cast<std::size_t>(b)] = true;
  }
}

}  // namespace

constexpr Named<PairSelection::Mode> kPairModes[] = {
    {PairSelection::Mode::all, "all"}, {PairSelection::Mode::given, "given"}, {PairSelection::Mode::sampled, "sampled"}};

const char* to_string(PairSelection::Mode m) noexcept { return lookup_name(kPairModes, m, "all"); }

bool PairSelection::selects(int from, int to) const {
  if (mode == Mode::all) return true;
  return std::find(pairs.begin(), pairs.end(), GpuPair{from, to}) != pairs.end();
}

GpuPair parse_pair(const std::string& text) {
  std::vector<int> ids;
  try {
    ids = parse_int_list(text, "--pair");
  } catch (const Error&) {
    ids.clear();
  }
  if (ids.size() != 2)
    fail(ErrorKind::usage, fmt::format("invalid --pair '{}': expected two GPU ids A,B such as 0,1", text));
  // Known wrong on any machine: said before the GPUs are looked for.
  if (ids[0] == ids[1])
    fail(ErrorKind::usage, fmt::format("invalid --pair '{}': gpu {} twice (a pair needs two GPUs)", text, ids[0]));
  return {ids[0], ids[1]};
}

std::vector<GpuPair> peer_pairs(const System& sys) {
  std::vector<GpuPair> out;
  for (int a = 0; a < sys.gpu_count(); ++a)
    for (int b = 0; b < sys.gpu_count(); ++b)
      if (a != b && sys.link(a, b).peer_access) out.push_back({a, b});
  return out;
}

PairSelection given_pairs(const std::vector<GpuPair>& pairs, const System& sys) {
  PairSelection sel;
  sel.mode = PairSelection::Mode::given;
  sel.available = static_cast<int>(peer_pairs(sys).size());
  for (const GpuPair& p : pairs) {
    const std::string text = fmt::format("{},{}", p.from, p.to);
    check_gpu(p.from, text, sys);
    check_gpu(p.to, text, sys);
    if (p.from == p.to)
      fail(ErrorKind::usage, fmt::format("invalid --pair '{}': gpu {} twice (a pair needs two GPUs)", text, p.from));
    if (!sys.link(p.from, p.to).peer_access)
      fail(ErrorKind::usage, fmt::format("invalid --pair '{}': gpu {} has no peer access to gpu {}", text, p.from, p.to));
    if (std::find(sel.pairs.begin(), sel.pairs.end(), p) == sel.pairs.end()) sel.pairs.push_back(p);
  }
  return sel;
}

PairSelection sample_pairs(int n, std::uint64_t seed, const System& sys) {
  if (n < 1) fail(ErrorKind::usage, fmt::format("invalid --sample-pairs '{}': must be at least 1", n));
  PairSelection sel;
  sel.mode = PairSelection::Mode::sampled;
  sel.requested = n;
  sel.seed = seed;
  std::vector<GpuPair> all = peer_pairs(sys);
  sel.available = static_cast<int>(all.size());
  if (n >= sel.available) {
    sel.mode = PairSelection::Mode::all;
    sel.note = fmt::format("--sample-pairs {} is not below the {} ordered GPU pairs with peer access: using all of them",
                           n, sel.available);
    return sel;
  }
  Rng rng(seed);
  std::set<GpuPair> chosen;
  cover_every_gpu(n, sys, rng, sel.pairs, chosen);
  std::vector<GpuPair> rest;
  for (const GpuPair& p : all)
    if (!chosen.count(p)) rest.push_back(p);
  rng.shuffle(rest);
  for (std::size_t i = 0; static_cast<int>(sel.pairs.size()) < n && i < rest.size(); ++i) sel.pairs.push_back(rest[i]);
  std::set<int> covered;
  for (const GpuPair& p : sel.pairs) covered.insert({p.from, p.to});
  if (static_cast<int>(covered.size()) < sys.gpu_count())
    sel.note = fmt::format("{} pairs cover {} of the {} GPUs (covering every GPU needs {} or more, or GPUs lack peers)",
                           n, covered.size(), sys.gpu_count(), (sys.gpu_count() + 1) / 2);
  return sel;
}

PairSelection select_pairs(const std::vector<GpuPair>& given, int sample, std::uint64_t seed, const System& sys) {
  if (!given.empty()) return given_pairs(given, sys);
  if (sample > 0) return sample_pairs(sample, seed, sys);
  PairSelection all;
  all.available = static_cast<int>(peer_pairs(sys).size());
  return all;
}

}  // namespace xb
