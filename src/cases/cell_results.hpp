// Turns a planned cell's samples into result cells: the values of its
// outputs, their statistics, the data check and the nvbandwidth-way and
// loaded-latency records. The plan itself is case_plan.hpp's.
#pragma once

#include <string>
#include <vector>

#include "cases/case_plan.hpp"
#include "measure/sample_source.hpp"
#include "records/result.hpp"

namespace xb {

// Per-sample value of an output, in GB/s.
double output_value(const Output& out, const Scenario& sc, const ScenarioSamples& s, std::size_t sample);

// The cells one planned cell reports (one per output, in output order),
// measured through `src`; a failed data check fails `result`.
// `fail_check` (fault injection) marks the data check failed as a real
// mismatch at offset 0 would.
std::vector<Cell> measure_cell(const CaseDef& def, const CasePlan& plan, const CellPlan& cp, SampleSource& src,
                               bool fail_check, CaseResult& result);

// A cell that could not be measured: no value, its error, in every matrix
// of `matrices` it reports to; the case is an error unless it already
// failed a check.
void record_cell_error(std::vector<Matrix>& matrices, const CellPlan& cp, const std::string& message,
                       CaseResult& result);

// Measures one cell (row, col of the first matrix) of a planned bandwidth
// case on its own and returns the median of its first output, in GB/s.
// Throws Error(usage) when the plan has no such cell; a stop request
// throws Stopped.
double measure_one_cell(const CaseDef& def, const CasePlan& plan, SampleSource& src, int row, int col);

}  // namespace xb
