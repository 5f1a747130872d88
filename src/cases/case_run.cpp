#include "cases/case_run.hpp"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/fault.hpp"
#include "base/stop.hpp"
#include "base/time_budget.hpp"
#include "cases/cell_results.hpp"
#include "machine/hugepages.hpp"
#include "memory/memory_plan.hpp"

namespace xb {
namespace {

std::string cell_key(const CaseDef& def, const CellPlan& cp) { return fmt::format("{}[{},{}]", def.name, cp.row, cp.col); }

// Host pages a cell needs at once: every host buffer of its scenario.
std::uint64_t hugepages_needed(const CasePlan& plan) {
  std::uint64_t most = 0;
  for (const CellPlan& c : plan.cells) {
    std::uint64_t pages = 0;
    for (const Transfer& t : c.scenario.transfers)
      pages += hugepages_for(t.bytes) * ((t.src.on_host() ? 1 : 0) + (t.dst.on_host() ? 1 : 0));
    most = std::max(most, pages);
  }
  return most;
}

std::optional<std::string> hugepage_waiver(const PlannedCase& pc, const SampleSource& m) {
  if (m.options().host_kind != MemKind::hugepages || !uses_host_memory(pc.def->pattern)) return std::nullopt;
  const HugePagePool pool = read_hugepage_pool();
  if (pool.known() && pool.total > 0) return std::nullopt;
  return "--host-mem hugepages: " + hugepage_shortage(pool, std::max<std::uint64_t>(1, hugepages_needed(pc.plan)));
}

// Measures one cell into `matrices` (a copy of the plan's).
void run_cell(const CaseDef& def, const CasePlan& plan, const CellPlan& cp, SampleSource& src,
              std::vector<Matrix>& matrices, CaseResult& result, RunControl* ctl) {
  const std::string key = cell_key(def, cp);
  const FaultKind fault = ctl != nullptr ? ctl->fault({def.name, key}) : FaultKind::none;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    inject_fault(fault, key);
    std::vector<Cell> cells = measure_cell(def, plan, cp, src, fault == FaultKind::verify, result);
    for (std::size_t i = 0; i < cells.size(); ++i) matrices[cp.outputs[i].matrix].cells.push_back(std::move(cells[i]));
  } catch (const HugePagesUnavailable&) {
    throw;  // the whole case is waived (run_case_into), not this one cell
  } catch (const Error& e) {
    record_cell_error(matrices, cp, e.what(), result);
    if (e.kind() == ErrorKind::cuda) {
      // A sticky error poisons the context: no later cell could run.
      const std::string why = fault == FaultKind::cuda_sticky ? std::string(e.what()) : src.unusable_reason();
      if (!why.empty()) throw Stopped(StopReason::gpu_unusable, fmt::format("the GPU is no longer usable: {}", why));
    }
  }
  if (ctl != nullptr)
    ctl->after_cell(CellCost{def.name, static_cast<double>(cp.scenario.transfers[0].bytes), seconds_since(t0)});
}

// A case whose every cell was waived is waived; otherwise the message
// counts the waived cells unless a failure already fills it.
void note_waived_cells(std::size_t planned, CaseResult& result) {
  if (result.waived_cells.empty()) return;
  const std::string& first = result.waived_cells.front().reason;
  if (result.waived_cells.size() == planned) {
    result.status = CaseStatus::waived;
    result.message = first;
  } else if (result.message.empty()) {
    result.message = fmt::format("{} of {} cells waived: {}", result.waived_cells.size(), planned, first);
  }
}

bool waived_for_memory(const CaseResult& r, int row, int col) {
  for (const WaivedCell& w : r.waived_cells)
    if (w.row == row && w.col == col) return true;
  return false;
}

}  // namespace

std::vector<std::string> missing_cells(const PlannedCase& pc, const CaseResult& r) {
  std::vector<std::string> out;
  for (const CellPlan& cp : pc.plan.cells) {
    if (waived_for_memory(r, cp.row, cp.col)) continue;
    const std::size_t m = static_cast<std::size_t>(cp.outputs[0].matrix);
    bool have = false;
    if (m < r.matrices.size())
      for (const Cell& c : r.matrices[m].cells) have = have || (c.row == cp.row && c.col == cp.col);
    if (!have) out.push_back(cell_key(*pc.def, cp));
  }
  return out;
}

namespace {

// Measures every planned cell and stores cells and status in `result`. A
// cell whose buffers do not fit now (SampleSource::preflight) is waived
// with the reason (result.waived_cells). A cell whose measurement throws
// Error gets that error (no value) and the others still run; after a CUDA
// error that leaves the GPU unusable it throws Stopped(gpu_unusable).
// `on_cell` is called around every cell measured. With `ctl`: stop
// requests (Stopped, the cells measured so far kept in `result`), the time
// limit (cells that would not fit are left out: case status not_run),
// faults, resume.
void run_case_plans(const PlannedCase& pc, SampleSource& src, CaseResult& result, RunControl* ctl,
                    const CellHook& on_cell) {
  const CaseDef& def = *pc.def;
  const CasePlan& plan = pc.plan;
  if (plan.cells.empty()) {
    result.status = CaseStatus::waived;
    result.message = kNoCellLeft;
    return;
  }
  std::vector<Matrix> matrices = plan.matrices;
  std::size_t over_time = 0;
  try {
    for (const CellPlan& cp : plan.cells) {
      const CellCost next{def.name, static_cast<double>(cp.scenario.transfers[0].bytes), 0};
      const auto decision = ctl != nullptr ? ctl->before_cell(cell_key(def, cp), next) : RunControl::Decision::run;
      if (decision == RunControl::Decision::over_time) ++over_time;
      if (decision != RunControl::Decision::run) continue;
      // Checked before any buffer of the cell is allocated, so a cell that
      // cannot fit is waived with the numbers instead of failing midway.
      if (auto why = src.preflight(memory_need(cell_requests(plan, cp)))) {
        result.waived_cells.push_back({cp.row, cp.col, *why});
        continue;
      }
      if (on_cell) on_cell(def, cp.row, cp.col, true, nullptr);
      run_cell(def, plan, cp, src, matrices, result, ctl);
      if (on_cell) on_cell(def, cp.row, cp.col, false, &matrices);
    }
  } catch (const Stopped&) {
    result.matrices = std::move(matrices);  // the cells measured before the stop are kept
    throw;
  }
  result.matrices = std::move(matrices);
  note_waived_cells(plan.cells.size(), result);
  if (over_time > 0 && result.status == CaseStatus::passed) {
    result.status = CaseStatus::not_run;
    result.message = fmt::format("{} of {} cells not run: they would not end within the time limit", over_time,
                                 plan.cells.size());
  }
}

}  // namespace

void run_case_into(const PlannedCase& pc, SampleSource& src, CaseResult& r, RunControl* ctl, const CellHook& on_cell) {
  const auto t0 = std::chrono::steady_clock::now();
  const CaseDef& def = *pc.def;
  r.index = def.index;
  r.name = def.name;
  r.description = def.description;
  auto why = pc.waived;
  if (!why) why = hugepage_waiver(pc, src);
  if (why) {
    r.status = CaseStatus::waived;
    r.message = *why;
    return;
  }
  // Set also when a stop request leaves the case unfinished.
  struct WallTime {
    std::chrono::steady_clock::time_point t0;
    CaseResult& r;
    ~WallTime() { r.wall_seconds = seconds_since(t0); }
  } wall{t0, r};
  try {
    run_case_plans(pc, src, r, ctl, on_cell);
  } catch (const HugePagesUnavailable& e) {
    r.status = CaseStatus::waived;
    r.message = std::string("--host-mem hugepages: ") + e.what();
    r.matrices.clear();
  } catch (const Error& e) {
    r.status = CaseStatus::error;
    r.message = e.what();
  }
}

}  // namespace xb
