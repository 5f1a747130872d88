// Reporters for first-touch results: the seed's per-sub-iteration lines
// plus `#` summary tables (text), JSON (schema "xferbench-first-touch",
// version 1, units in field names, one row per variant so `xferbench plot`
// can draw a sweep) and CSV (one row per variant). They read
// firsttouch::Result only and are the only code that formats its numbers.
#pragma once

#include <string>
#include <vector>

#include "firsttouch/result.hpp"

namespace xb::report {


std::string first_touch_text(const firsttouch::Result& r);

// The text format piece by piece, so a run can be printed as it is
// measured. next() returns what `so_far` adds to what this stream returned
// before: the head (up to "[-1] time"; a sweep's table header), each
// variant's "Doing" line, each iteration's "[i:j] time" lines, and in a
// sweep a variant's row once it is complete (`last_complete`: the last
// variant of `so_far` has all its iterations; earlier ones always do).
// finish() returns the rest: the last rows, summaries, phases and the
// completion lines. first_touch_text() is finish() on a fresh stream, so
// the streamed text and the whole text are the same bytes.
class FirstTouchTextStream {
 public:
  std::string next(const firsttouch::Result& so_far, bool last_complete);
  std::string finish(const firsttouch::Result& r);

 private:
  bool head_ = false;
  std::size_t opened_ = 0;  // variants whose "Doing" line is out
  std::size_t closed_ = 0;  // variants that are complete (a sweep's row is out)
  std::size_t lines_ = 0;   // iterations of variant closed_ whose lines are out
};

// `text` without its '#' lines: gpudirect_p2p_overalloc's own lines
// (--format seed), also for a piece of a stream.
std::string without_annotations(const std::string& text);
std::string first_touch_csv(const firsttouch::Result& r);

}  // namespace xb::report
