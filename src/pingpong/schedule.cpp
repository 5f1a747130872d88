#include "pingpong/schedule.hpp"

#include <algorithm>

namespace xb::pingpong {

std::vector<std::vector<Pair>> round_robin(int ranks) {
  std::vector<std::vector<Pair>> rounds;
  if (ranks < 2) return rounds;
  // An odd count gets a phantom rank; whoever meets it has the bye.
  const int m = ranks + (ranks % 2);
  std::vector<int> circle(m);
  for (int i = 0; i < m; ++i) circle[i] = i;
  for (int round = 0; round < m - 1; ++round) {
    std::vector<Pair> pairs;
    for (int i = 0; i < m / 2; ++i) {
      const int a = circle[i], b = circle[m - 1 - i];
      if (a < ranks && b < ranks) pairs.emplace_back(std::min(a, b), std::max(a, b));
    }
    std::sort(pairs.begin(), pairs.end());
    rounds.push_back(std::move(pairs));
    // Keep position 0 fixed and rotate the others by one.
    std::rotate(circle.begin() + 1, circle.end() - 1, circle.end());
  }
  return rounds;
}

}  // namespace xb::pingpong
