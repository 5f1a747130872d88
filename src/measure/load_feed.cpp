#include "measure/load_feed.hpp"

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/stop.hpp"

namespace xb {

bool feed_loaded_sample(LoadDriver& d, std::size_t ahead, double limit_s) {
  d.begin_sample();
  for (std::size_t l = 0; l < d.loads(); ++l)
    for (std::size_t j = 0; j < ahead; ++j) d.queue_copy(l);
  d.start_chase();
  while (!d.chase_done()) {
    for (std::size_t l = 0; l < d.loads(); ++l)
      while (d.queued(l) - d.ended(l) < ahead) d.queue_copy(l);
    if (d.elapsed_s() > limit_s)
      fail(ErrorKind::timeout, fmt::format("the chase under load did not end within {:.0f} s", limit_s));
    throw_if_stopped();
    d.pause();
  }
  d.finish_copies();
  return d.covered();
}

}  // namespace xb
