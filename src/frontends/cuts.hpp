// CUts (CUDA Transfer Streams) command-line model, mapped onto the same
// TransferRequests as the multi-gpu-bwtest specs, so both front-ends share
// one expansion and one runner.
//
// CUts flags and their meaning here:
//   --htod=ID, --dtoh=ID   one HtoD / DtoH transfer with GPU ID (repeatable)
//   --dtod=DST,SRC         a peer copy from SRC to DST; the first id is the
//                          destination, as in CUts, and SRC issues the copy
//   --size=BYTES           bytes per copy (default 1 GiB)
//   --iter=N               repetitions; a run parameter, not part of a request
//   --no-numa-affinity     host buffers get numa = kNoNumaPlacement instead
//                          of the GPU's own node
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "frontends/spec.hpp"

namespace xb {

inline constexpr std::uint64_t kCutsDefaultBytes = 1ull << 30;  // 1 GiB
inline constexpr int kCutsDefaultIterations = 100;

struct CutsOptions {
  std::vector<int> htod;
  std::vector<int> dtoh;
  std::vector<std::pair<int, int>> dtod;  // (dst, src), as CUts orders them
  // The kind of each transfer flag in command-line order (htod, dtoh or
  // dtod), so rows come out in the order typed, as CUts prints them. Empty:
  // every --htod, then every --dtoh, then every --dtod.
  std::vector<Direction> order;
  std::uint64_t size = kCutsDefaultBytes;
  int iterations = kCutsDefaultIterations;
  bool no_numa_affinity = false;
};

// One request per flag, in `order` (all transfers start together, so the
// order only decides the row order and the transfer numbers). Each request's
// spec text is the CUts flag ("--dtod=1,0"), so later errors name what the
// user typed. Throws Error(usage) for a negative id, a --dtod pair naming one
// GPU twice, a zero size or fewer than 1 iteration; Error(internal) for an
// `order` that does not match the flag counts (a front-end bug).
std::vector<TransferRequest> cuts_to_requests(const CutsOptions& options);

// "1,0" -> {1, 0}: (destination, source). Throws Error(usage), e.g.
// "invalid --dtod '1': expected DST,SRC such as 1,0".
std::pair<int, int> parse_cuts_pair(const std::string& text);

}  // namespace xb
