// Runs one planned case (case_plan.hpp's PlannedCase) into a CaseResult:
// cell by cell, under a RunControl, with the memory preflight and the
// waivers; and lists the planned cells a result lacks.
#pragma once

#include <string>
#include <vector>

#include "base/run_control.hpp"
#include "cases/case_plan.hpp"
#include "measure/sample_source.hpp"
#include "records/result.hpp"

namespace xb {

// Runs one planned case into `r` through a sample source, under a
// RunControl (stops, time limit, faults, resume); errors inside become data
// (status error / failed). A stop request throws Stopped out of it with the
// cells measured so far in `r`. Only the cells of `pc.plan` are measured
// (the pair selection is applied when planning).
void run_case_into(const PlannedCase& pc, SampleSource& src, CaseResult& r, RunControl* ctl = nullptr,
                   const CellHook& on_cell = {});

// Keys "CASE[ROW,COL]" of the planned cells `r` holds no cell for and did
// not waive for memory.
std::vector<std::string> missing_cells(const PlannedCase& pc, const CaseResult& r);

}  // namespace xb
