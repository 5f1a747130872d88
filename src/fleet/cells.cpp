// Each node's result document decoded once into its record (run, sweep) and
// flattened into the cells the fleet summary compares across nodes.
#include <algorithm>
#include <cctype>
#include <map>

#include <fmt/format.h>

#include "cases/sweep_json.hpp"
#include "fleet/summary.hpp"
#include "records/run_json.hpp"
#include "records/system_json.hpp"

namespace xb::fleet {
namespace {

using json = nlohmann::json;

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

// Scenario results have no decoder (nothing else reads them back): their
// few fields are read here. A stopped scenario has null values: an error.
NodeResult scenario_result(const json& doc) {
  NodeResult out;
  for (const json& t : doc.at("transfers")) {
    if (t.contains("verification") && t["verification"].value("status", "") == "failed") continue;
    FleetCell f;
    f.test = t.at("label").get<std::string>();
    f.link = t.value("link", "");
    f.unit = "GB/s";
    f.value = t.at("bandwidth_gbps").get<double>();
    add_gpus(f.test, f.gpus);
    out.cells.push_back(std::move(f));
  }
  FleetCell total;
  total.test = "aggregate";
  total.link = "all transfers";
  total.unit = "GB/s";
  total.value = doc.at("scenario").at("aggregate_bandwidth_gbps").get<double>();
  for (const FleetCell& f : out.cells) add_gpus(f.test, total.gpus);
  out.cells.push_back(std::move(total));
  out.gpu_group = gpu_group_of(records::decode_system(doc.at("environment"), "environment", false));
  return out;
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

const json& member(const json& obj, const std::string& key) {
  static const json null_value;
  if (!obj.is_object()) return null_value;
  const auto it = obj.find(key);
  return it == obj.end() ? null_value : *it;
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

NodeResult read_node_result(const json& doc) {
  const std::string schema = doc.value("schema", "");
  try {
    if (schema == records::kSchemaName) {
      const RunResult r = records::decode_run(doc, "the node's result");
      return {gpu_group_of(r.system), cells_of(r), run_failure(r),
              fmt::format("{}, {} not run", r.completion.message, r.completion.not_run.size())};
    }
    if (schema == records::kSweepSchemaName) {
      const SweepResult r = records::decode_sweep(doc, "the node's result");
      return {gpu_group_of(r.system), cells_of(r), r.messages.empty() ? "" : r.messages.front(),
              fmt::format("{}, {} not run", r.completion.message, r.completion.not_run.size())};
    }
    if (schema == "xferbench-scenario") return scenario_result(doc);
  } catch (const json::exception& e) {
    fail(ErrorKind::usage, fmt::format("malformed {} result: {}", schema, e.what()));
  }
  fail(ErrorKind::usage, fmt::format("a fleet compares run, sweep or scenario results, not '{}'", schema));
}

}  // namespace xb::fleet
