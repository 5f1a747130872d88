// Round-robin pairing for --all-pairs: every pair of ranks meets exactly
// once, and the pairs of one round are disjoint so they can be measured at
// the same time without sharing a rank.
#pragma once

#include <utility>
#include <vector>

namespace xb::pingpong {

using Pair = std::pair<int, int>;  // (lower rank, higher rank)

// Circle method. With an odd rank count one rank sits out (a "bye") in each
// round; n ranks give n - 1 rounds (n even) or n rounds (n odd).
std::vector<std::vector<Pair>> round_robin(int ranks);

}  // namespace xb::pingpong
