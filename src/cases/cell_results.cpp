#include "cases/cell_results.hpp"

#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/error.hpp"
#include "base/stats.hpp"
#include "measure/latency.hpp"
#include "measure/migration.hpp"

namespace xb {

double output_value(const Output& out, const Scenario& sc, const ScenarioSamples& s, std::size_t i) {
  const double copies = s.copies_per_sample;
  auto moved = [&](const Transfer& t) { return static_cast<double>(t.bytes) * t.repeat * copies; };
  auto bw = [&](int t) { return gbps(moved(sc.transfers[t]), s.transfers[t].seconds[i]); };
  switch (out.kind) {
    case Output::Kind::transfer: return out.scale * bw(out.first);
    case Output::Kind::sum: {
      double sum = 0;
      for (int t = out.first; t < out.first + out.count; ++t) sum += bw(t);
      return sum;
    }
    case Output::Kind::total: {
      double bytes = 0;
      for (const auto& t : sc.transfers) bytes += moved(t);
      return gbps(bytes, s.total_seconds[i]);
    }
  }
  return 0;
}

namespace {

// Samples of one of a bandwidth cell's scenarios, gated on its first output.
ScenarioSamples run_lead(SampleSource& src, const CellPlan& cp, const Scenario& sc) {
  return src.run(sc, [&cp, &sc](const ScenarioSamples& ss, std::size_t i) {
    return output_value(cp.outputs[0], sc, ss, i);
  });
}

std::vector<double> output_values(const Output& out, const Scenario& sc, const ScenarioSamples& s) {
  std::vector<double> values;
  for (std::size_t i = 0; i < s.total_seconds.size(); ++i) values.push_back(output_value(out, sc, s, i));
  return values;
}

// A cell at `cp`'s place with `o`'s link and peak, nothing measured yet.
Cell blank_cell(const CellPlan& cp, const Output& o) {
  Cell cell;
  cell.row = cp.row;
  cell.col = cp.col;
  cell.link = o.link;
  cell.peak = o.peak;
  return cell;
}

Cell make_cell(const CellPlan& cp, const Output& o, std::vector<double> samples, Statistic statistic) {
  Cell cell = blank_cell(cp, o);
  cell.stats = summarize(samples);
  cell.value = value_of(cell.stats, statistic);
  cell.samples = std::move(samples);
  cell.efficiency = o.peak.known() ? cell.value / o.peak.gbps : 0.0;
  return cell;
}

// Failed verification anywhere in the scenario fails the cell and the case.
void note_failures(const ScenarioSamples& s, const Scenario& sc, Cell& cell, CaseResult& result) {
  for (std::size_t t = 0; t < s.transfers.size(); ++t) {
    const Verification& v = s.transfers[t].verification;
    if (v.status != Verification::Status::failed) continue;
    cell.verification = v;
    if (result.status != CaseStatus::failed) {
      result.status = CaseStatus::failed;
      result.message = fmt::format("verification failed: {} at byte offset {}", sc.transfers[t].label, v.first_bad_offset);
    }
  }
}

void record_verification(const ScenarioSamples& s, const Scenario& sc, Cell& cell, CaseResult& result) {
  cell.verification.status = s.transfers.empty() ? Verification::Status::skipped : s.transfers[0].verification.status;
  note_failures(s, sc, cell, result);
}

// The cell measured nvbandwidth's way too (CellPlan::nvbandwidth), one
// NvbandwidthWay per output; its data is verified like the cell's own.
void add_nvbandwidth_way(const CellPlan& cp, SampleSource& src, std::vector<Cell>& cells, CaseResult& result) {
  const Scenario& sc = *cp.nvbandwidth;
  const ScenarioSamples s = run_lead(src, cp, sc);
  for (std::size_t i = 0; i < cp.outputs.size(); ++i) {
    NvbandwidthWay w;
    w.samples = output_values(cp.outputs[i], sc, s);
    w.stats = summarize(w.samples);
    w.value = value_of(w.stats, src.options().statistic);
    w.ratio = cells[i].value > 0 ? w.value / cells[i].value : 0;
    w.differs = std::abs(w.ratio - 1) > kMethodsDiffer;
    w.why = cp.nvbandwidth_why;
    cells[i].nvbandwidth = std::move(w);
    note_failures(s, sc, cells[i], result);
  }
}


// The three cells of a migration column (one per matrix, in output order).
// `fail_check` (fault injection) marks the pattern check failed as a real
// mismatch at offset 0 would.
std::vector<Cell> migration_cells(const CaseDef& def, const CellPlan& cp, SampleSource& src, bool fail_check,
                                  CaseResult& result) {
  const int gpu = cp.scenario.transfers[0].exec_device;
  const std::uint64_t bytes = cp.scenario.transfers[0].bytes;
  const auto dir = def.pattern == Pattern::managed_migration_to_device ? MigrationDirection::to_device
                                                                        : MigrationDirection::to_host;
  MigrationSamples ms = src.migration(gpu, dir, bytes);
  if (fail_check) {
    ms.verified = false;
    ms.first_bad_offset = 0;
  }
  std::vector<double>* series[3] = {&ms.dense_gbps, &ms.ns_per_4k_page, &ms.ns_per_2m_page};
  const std::uint64_t touched[3] = {ms.dense_bytes, ms.small_page_bytes, ms.large_page_bytes};
  std::vector<Cell> cells;
  for (int m = 0; m < 3; ++m) {
    Cell cell = make_cell(cp, cp.outputs[m], std::move(*series[m]), src.options().statistic);
    cell.bytes_per_copy = touched[m];
    cell.copies_per_sample = 1;
    cell.verification.status = ms.verified ? Verification::Status::passed : Verification::Status::failed;
    cell.verification.first_bad_offset = ms.first_bad_offset;
    cells.push_back(std::move(cell));
  }
  if (!ms.verified && result.status != CaseStatus::failed) {
    result.status = CaseStatus::failed;
    result.message = fmt::format("verification failed: managed memory of gpu{} at byte offset {}", gpu,
                                 ms.first_bad_offset);
  }
  return cells;
}

// Bytes of one load copy (all load transfers have the cell's size).
std::uint64_t load_bytes(const CellPlan& cp) {
  return cp.scenario.transfers.size() > 1 ? cp.scenario.transfers[1].bytes : 0;
}

std::vector<std::string> transfer_labels(const std::vector<Transfer>& ts) {
  std::vector<std::string> out;
  for (const Transfer& t : ts) out.push_back(t.label);
  return out;
}

Cell latency_cell(const CaseDef& def, const CellPlan& cp, SampleSource& src, bool fail_check,
                  CaseResult& result) {
  const Transfer& t = cp.scenario.transfers[0];
  const LatencySamples ls =
      src.latency(t.exec_device, t.src, def.engine == Engine::tma ? ChaseKind::tma : ChaseKind::load);
  Cell cell = make_cell(cp, cp.outputs[0], ls.ns_per_access, src.options().statistic);
  cell.bytes_per_copy = ls.buffer_bytes;
  cell.copies_per_sample = static_cast<int>(ls.accesses_per_sample);
  cell.host_page_bytes = ls.host_page_bytes;
  if (fail_check) {
    cell.verification.status = Verification::Status::failed;
    result.status = CaseStatus::failed;
    result.message = fmt::format("verification failed: {} at byte offset 0", t.label);
  }
  return cell;
}

// The three cells of a loaded-latency cell: the loaded chase (with the
// LoadedLatency record), the idle chase, and the load's bandwidth.
std::vector<Cell> loaded_latency_cells(const CellPlan& cp, SampleSource& src, bool fail_check, CaseResult& result) {
  const Transfer& chase = cp.scenario.transfers[0];
  const std::vector<Transfer> loads(cp.scenario.transfers.begin() + 1, cp.scenario.transfers.end());
  LoadedLatencySamples ls = src.loaded_latency(chase.exec_device, chase.src, loads);
  const Statistic st = src.options().statistic;
  auto chase_cell = [&](const Output& o, LatencySamples& s) {
    Cell cell = make_cell(cp, o, std::move(s.ns_per_access), st);
    cell.bytes_per_copy = s.buffer_bytes;
    cell.copies_per_sample = static_cast<int>(s.accesses_per_sample);
    cell.host_page_bytes = s.host_page_bytes;
    return cell;
  };
  std::vector<Cell> cells;
  cells.push_back(chase_cell(cp.outputs[0], ls.loaded));
  cells.push_back(chase_cell(cp.outputs[1], ls.idle));
  const Output& lo = cp.outputs[2];
  Cell load = make_cell(cp, lo, std::move(ls.load_gbps), st);
  load.bytes_per_copy = load_bytes(cp);
  load.copies_per_sample = ls.load_copies;
  load.verification.status = Verification::Status::skipped;
  for (std::size_t i = 0; i < ls.load_verification.size(); ++i) {
    Verification v = ls.load_verification[i];
    if (fail_check && i == 0) v = {Verification::Status::failed, 0};
    if (i == 0 || v.status == Verification::Status::failed) load.verification = v;
    if (v.status == Verification::Status::failed && result.status != CaseStatus::failed) {
      result.status = CaseStatus::failed;
      result.message = fmt::format("verification failed: {} at byte offset {}", loads[i].label, v.first_bad_offset);
    }
  }
  LoadedLatency l;
  l.idle_ns = cells[1].value;
  l.loaded_ns = cells[0].value;
  l.ratio = l.idle_ns > 0 ? l.loaded_ns / l.idle_ns : 0;
  l.load = fmt::format("{}, copy engine", fmt::join(transfer_labels(loads), " and "));
  l.load_gbps = load.value;
  l.load_link = lo.link;
  l.load_peak = lo.peak;
  l.load_pct = load.efficiency * 100;
  l.weak = lo.peak.known() && load.efficiency < kWeakLoadShare;
  if (l.weak)
    cells[0].note = fmt::format("weak load: {:.1f} GB/s is {:.0f}% of the {} peak, under {:.0f}%: the ratio does not show "
                                "the link loaded", l.load_gbps, l.load_pct, lo.link, kWeakLoadShare * 100);
  cells[0].loaded = l;
  cells.push_back(std::move(load));
  return cells;
}

}  // namespace

std::vector<Cell> measure_cell(const CaseDef& def, const CasePlan& plan, const CellPlan& cp, SampleSource& src,
                               bool fail_check, CaseResult& result) {
  if (plan.migration) return migration_cells(def, cp, src, fail_check, result);
  if (plan.latency && plan.load != LatencyLoad::none) return loaded_latency_cells(cp, src, fail_check, result);
  if (plan.latency) return {latency_cell(def, cp, src, fail_check, result)};
  std::vector<Cell> cells;
  ScenarioSamples s = run_lead(src, cp, cp.scenario);
  if (fail_check && !s.transfers.empty()) s.transfers[0].verification = {Verification::Status::failed, 0};
  for (const Output& o : cp.outputs) {
    Cell cell = make_cell(cp, o, output_values(o, cp.scenario, s), src.options().statistic);
    cell.bytes_per_copy = cp.scenario.transfers[o.first].bytes;
    cell.copies_per_sample = s.copies_per_sample;
    cell.gated = s.gated;
    cell.host_page_bytes = s.host_page_bytes;
    record_verification(s, cp.scenario, cell, result);
    cells.push_back(std::move(cell));
  }
  if (cp.nvbandwidth && src.options().nvbandwidth_way) add_nvbandwidth_way(cp, src, cells, result);
  return cells;
}

void record_cell_error(std::vector<Matrix>& matrices, const CellPlan& cp, const std::string& message,
                       CaseResult& result) {
  for (const Output& o : cp.outputs) {
    Cell cell = blank_cell(cp, o);
    cell.bytes_per_copy = cp.scenario.transfers[o.first].bytes;
    cell.error = message;
    matrices[o.matrix].cells.push_back(std::move(cell));
  }
  if (result.status == CaseStatus::passed) {
    result.status = CaseStatus::error;
    result.message = fmt::format("[{},{}]: {}", cp.row, cp.col, message);
  }
}

double measure_one_cell(const CaseDef& def, const CasePlan& plan, SampleSource& src, int row, int col) {
  const CellPlan* cp = find_cell(plan, row, col);
  if (cp == nullptr || plan.latency || plan.migration)
    fail(ErrorKind::usage, fmt::format("{} has no bandwidth cell [{},{}] on this machine", def.name, row, col));
  return median(output_values(cp->outputs[0], cp->scenario, run_lead(src, *cp, cp->scenario)));
}

}  // namespace xb
