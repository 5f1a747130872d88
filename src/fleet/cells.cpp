// Extractors: result documents (run, sweep, scenario JSON) flattened into
// the cells the fleet summary compares across nodes.
#include <algorithm>
#include <cctype>
#include <map>

#include <fmt/format.h>

#include "fleet/summary.hpp"

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

bool verification_failed(const json& v) {
  return v.contains("verification") && v["verification"].value("status", "") == "failed";
}

void run_cells(const json& doc, std::vector<FleetCell>& out) {
  for (const json& c : doc.at("cases")) {
    const json& matrices = member(c, "matrices");
    if (!matrices.is_array()) continue;
    for (const json& m : matrices) {
      const bool latency = m.value("metric", "") == "latency_ns";
      const auto& rows = m.at("row_labels");
      const auto& cols = m.at("col_labels");
      for (const json& cell : m.at("cells")) {
        if (verification_failed(cell)) continue;
        FleetCell f;
        f.test = c.at("name").get<std::string>();
        f.group = m.value("name", "");
        const std::string row = rows.at(cell.at("row").get<std::size_t>()).get<std::string>();
        const std::string col = cols.at(cell.at("col").get<std::size_t>()).get<std::string>();
        f.cell = fmt::format("[{},{}]", row, col);
        f.link = cell.value("link", "");
        f.unit = latency ? "ns" : "GB/s";
        f.lower_is_better = latency;
        f.value = cell.at(latency ? "value_ns" : "value_gbps").get<double>();
        add_gpus(row, f.gpus);
        add_gpus(col, f.gpus);
        out.push_back(std::move(f));
      }
    }
  }
}

void sweep_cells(const json& doc, std::vector<FleetCell>& out) {
  for (const json& s : doc.at("series")) {
    const auto& rows = s.at("rows");
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (verification_failed(rows[i])) continue;
      FleetCell f;
      f.test = s.at("label").get<std::string>();
      f.group = fmt::format("{} B", rows[i].at("bytes").get<std::uint64_t>());
      f.link = s.value("link", "");
      f.unit = "GB/s";
      f.value = rows[i].at("value_gbps").get<double>();
      f.key = i + 1 == rows.size();
      add_gpus(f.test, f.gpus);
      out.push_back(std::move(f));
    }
  }
}

void scenario_cells(const json& doc, std::vector<FleetCell>& out) {
  for (const json& t : doc.at("transfers")) {
    if (verification_failed(t)) continue;
    FleetCell f;
    f.test = t.at("label").get<std::string>();
    f.link = t.value("link", "");
    f.unit = "GB/s";
    f.value = t.at("bandwidth_gbps").get<double>();
    add_gpus(f.test, f.gpus);
    out.push_back(std::move(f));
  }
  FleetCell total;
  total.test = "aggregate";
  total.link = "all transfers";
  total.unit = "GB/s";
  total.value = doc.at("scenario").at("aggregate_bandwidth_gbps").get<double>();
  for (const FleetCell& f : out) add_gpus(f.test, total.gpus);
  out.push_back(std::move(total));
}

}  // namespace

const json& member(const json& obj, const std::string& key) {
  static const json null_value;
  if (!obj.is_object()) return null_value;
  const auto it = obj.find(key);
  return it == obj.end() ? null_value : *it;
}

std::vector<FleetCell> cells_of(const json& doc) {
  const std::string schema = doc.value("schema", "");
  std::vector<FleetCell> out;
  try {
    if (schema == "xferbench-run") run_cells(doc, out);
    else if (schema == "xferbench-sweep") sweep_cells(doc, out);
    else if (schema == "xferbench-scenario") scenario_cells(doc, out);
    else fail(ErrorKind::usage, fmt::format("a fleet compares run, sweep or scenario results, not '{}'", schema));
  } catch (const json::exception& e) {
    fail(ErrorKind::usage, fmt::format("malformed {} result: {}", schema, e.what()));
  }
  return out;
}

std::string gpu_group_of(const json& doc) {
  std::map<std::string, int> models;
  const json& gpus = member(member(doc, "environment"), "gpus");
  if (gpus.is_array())
    for (const json& g : gpus) ++models[g.value("name", "unknown GPU")];
  if (models.empty()) return "no GPU";
  std::string out;
  for (const auto& [name, count] : models) out += fmt::format("{}{} x {}", out.empty() ? "" : " + ", count, name);
  return out;
}

}  // namespace xb::fleet
