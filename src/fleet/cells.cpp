// Each node's result record (run, check, sweep, scenario) flattened into
// the cells the fleet summary compares across nodes.
#include <algorithm>
#include <cctype>
#include <map>

#include <fmt/format.h>

#include "cases/sweep_json.hpp"
#include "fleet/summary.hpp"
#include "records/check_verdict.hpp"
#include "records/scenario_json.hpp"

namespace xb::fleet {
namespace {

// "gpu3" tokens of a label, in order, once each.
void add_gpus(const std::string& label, std::vector<std::string>& out) {
  for (std::size_t pos = label.find("gpu"); pos != std::string::npos; pos = label.find("gpu", pos + 3)) {
    std::size_t end = pos + 3;
    while (end < label.size() && std::isdigit(static_cast<unsigned char>(label[end]))) ++end;
    if (end == pos + 3) continue;
    const std::string gpu = label.substr(pos, end - pos);
    if (std::find(out.begin(), out.end(), gpu) == out.end()) out.push_back(gpu);
  }
}

// The first case error or failure, for the node's row.
std::string run_failure(const RunResult& run) {
  for (const CaseResult& c : run.cases)
    if (c.status == CaseStatus::failed || c.status == CaseStatus::error) return fmt::format("{}: {}", c.name, c.message);
  return "";
}

// A scenario's transfers and its aggregate. A stopped scenario has no
// figures: an error, as for a malformed result.
NodeResult scenario_result(const ScenarioResult& r) {
  if (r.completion.status != RunStatus::complete || !r.completion.error.empty())
    fail(ErrorKind::usage, fmt::format("malformed {} result: the scenario was not measured ({})",
                                       records::kScenarioSchemaName, records::scenario_status(r)));
  NodeResult out;
  for (const TransferResult& t : r.transfers) {
    if (t.verification.status == Verification::Status::failed) continue;
    FleetCell f;
    f.test = t.label;
    f.link = t.link;
    f.unit = "GB/s";
    f.value = t.bandwidth_gbps;
    add_gpus(f.test, f.gpus);
    out.cells.push_back(std::move(f));
  }
  FleetCell total;
  total.test = "aggregate";
  total.link = "all transfers";
  total.unit = "GB/s";
  total.value = r.aggregate_bandwidth_gbps;
  for (const FleetCell& f : out.cells) add_gpus(f.test, total.gpus);
  out.cells.push_back(std::move(total));
  out.gpu_group = gpu_group_of(r.system);
  out.status = records::scenario_status(r);
  return out;
}

NodeResult run_result(const RunResult& r) {
  return {gpu_group_of(r.system), cells_of(r), run_failure(r),
          fmt::format("{}, {} not run", r.completion.message, r.completion.not_run.size()),
          to_string(ending(r.completion, !all_passed(r)).outcome)};
}

}  // namespace

std::string gpu_group_of(const System& sys) {
  std::map<std::string, int> models;
  for (const GpuInfo& g : sys.gpus) ++models[g.name];
  if (models.empty()) return "no GPU";
  std::string out;
  for (const auto& [name, count] : models) out += fmt::format("{}{} x {}", out.empty() ? "" : " + ", count, name);
  return out;
}

std::vector<FleetCell> cells_of(const RunResult& run) {
  std::vector<FleetCell> out;
  for (const CaseResult& c : run.cases) {
    for (const Matrix& m : c.matrices) {
      const bool latency = m.metric == Metric::latency_ns;
      for (const Cell& cell : m.cells) {
        if (cell.verification.status == Verification::Status::failed) continue;
        FleetCell f;
        f.test = c.name;
        f.group = m.name;
        const std::string& row = m.row_labels[static_cast<std::size_t>(cell.row)];
        const std::string& col = m.col_labels[static_cast<std::size_t>(cell.col)];
        f.cell = fmt::format("[{},{}]", row, col);
        f.link = cell.link;
        f.unit = latency ? "ns" : "GB/s";
        f.lower_is_better = latency;
        f.value = cell.value;
        add_gpus(row, f.gpus);
        add_gpus(col, f.gpus);
        out.push_back(std::move(f));
      }
    }
  }
  return out;
}

std::vector<FleetCell> cells_of(const SweepResult& r) {
  std::vector<FleetCell> out;
  for (const SweepSeries& s : r.series) {
    for (std::size_t i = 0; i < s.rows.size(); ++i) {
      if (s.rows[i].verification == Verification::Status::failed) continue;
      FleetCell f;
      f.test = s.label;
      f.group = fmt::format("{} B", s.rows[i].bytes);
      f.link = s.link;
      f.unit = "GB/s";
      f.value = s.rows[i].value_gbps;
      f.key = i + 1 == s.rows.size();
      add_gpus(f.test, f.gpus);
      out.push_back(std::move(f));
    }
  }
  return out;
}

NodeResult read_node_result(const ResultRecord& result) {
  if (const auto* run = std::get_if<RunResult>(&result)) return run_result(*run);
  if (const auto* checked = std::get_if<CheckedRun>(&result)) {
    NodeResult out = run_result(checked->run);
    out.status = to_string(records::outcome_of(checked->check));  // the check's, as its document's "status"
    return out;
  }
  if (const auto* sweep = std::get_if<SweepResult>(&result)) {
    const SweepResult& r = *sweep;
    return {gpu_group_of(r.system), cells_of(r), r.messages.empty() ? "" : r.messages.front(),
            fmt::format("{}, {} not run", r.completion.message, r.completion.not_run.size()),
            records::sweep_status_text(r)};
  }
  if (const auto* scenario = std::get_if<ScenarioResult>(&result)) return scenario_result(*scenario);
  return {};
}

}  // namespace xb::fleet
