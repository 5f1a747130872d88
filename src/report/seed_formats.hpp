// What the seed tools print, for xferbench run under their names (bwtest;
// nvbandwidth has report/nvbandwidth.hpp, CUts' lines are in
// report/scenario_report.hpp, gpudirect_p2p_overalloc's are the first-touch
// text without_annotations, report/first_touch_report.hpp). Layouts follow the examples in
// the seeds' READMEs, so scripts that read those tools keep working.
#pragma once

#include <ostream>
#include <string>

#include "cases/concurrent.hpp"
#include "machine/topology.hpp"

namespace xb::report {

// multi-gpu-bwtest after a run: one "Allocating buffers......DONE" per
// --do, the per-transfer table (Transfer size in binary units, Time
// elapsed of one copy in µs, Bandwidth) and the four totals. As in
// bwtest, bandwidth is bytes per microsecond (1e6 B/s) under the label
// "MiB/s"; "Aggregated total time" is the sum of the per-transfer times,
// "Estimated elapsed time" the span of all transfers, per copy.
void bwtest_text(std::ostream& os, const ScenarioResult& r);

// multi-gpu-bwtest --list: ID, name, IO address (bus:device.function),
// compute capability, managed / unified / mappable memory and the number
// of copy engines ("#").
void bwtest_list(std::ostream& os, const System& sys);

// "1.00 KiB", "6.38 MiB": bwtest's transfer sizes.
std::string bwtest_size(std::uint64_t bytes);

}  // namespace xb::report
