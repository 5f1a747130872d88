// --resume for sweeps: the rows of an earlier sweep merged with the sizes
// measured now (sweep.hpp).
#include <algorithm>

#include "cases/sweep.hpp"

namespace xb {

void merge_sweep(SweepResult& fresh, const SweepResult& old) {
  for (const SweepSeries& os : old.series) {
    auto it = std::find_if(fresh.series.begin(), fresh.series.end(), [&](const SweepSeries& s) { return s.label == os.label; });
    if (it == fresh.series.end()) {
      fresh.series.push_back(SweepSeries{os.label, os.link, os.peak, {}, {}});
      it = fresh.series.end() - 1;
    }
    for (const SweepRow& row : os.rows) {
      const bool have = std::any_of(it->rows.begin(), it->rows.end(), [&](const SweepRow& r) { return r.bytes == row.bytes; });
      if (!have) it->rows.push_back(row);
    }
    std::sort(it->rows.begin(), it->rows.end(), [](const SweepRow& a, const SweepRow& b) { return a.bytes < b.bytes; });
  }
  std::vector<std::string> messages = old.messages;
  messages.insert(messages.end(), fresh.messages.begin(), fresh.messages.end());
  fresh.messages = std::move(messages);
  if (old.status == SweepStatus::failed && fresh.status == SweepStatus::passed) fresh.status = SweepStatus::failed;
  fresh.resumed_from = old.resumed_from;
}

}  // namespace xb
