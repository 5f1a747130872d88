// JSON and CSV of a fleet (text: fleet_report.cpp): JSON (schema
// "xferbench-fleet", version 1: every node's full result keyed by host
// name, plus the fleet section); CSV (one row per node and cell, or per
// failed node).
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "base/error.hpp"
#include "report/formats.hpp"

namespace xb::report {
namespace {

using json = nlohmann::json;

constexpr const char* kFleetSchemaName = "xferbench-fleet";
constexpr int kFleetSchemaVersion = 1;
using fleet::Fleet;
using fleet::FleetCell;
using fleet::FleetNode;

json cell_json(const FleetCell& c) {
  return {{"test", c.test}, {"group", c.group}, {"cell", c.cell}, {"link", c.link},
          {"unit", c.unit}, {"value", c.value}, {"gpus", c.gpus}};
}

json node_json(const FleetNode& n) {
  const auto& r = n.record;
  json j = {{"host", r.node.host},
            {"ranks", r.node.ranks},
            {"status", fleet::node_status(r)},
            {"exit_code", r.exit_code},
            {"gpu_group", n.gpu_group.empty() ? json(nullptr) : json(n.gpu_group)}};
  if (!r.ok()) j["error"] = {{"kind", r.error_kind}, {"message", r.error}};
  // Assigned, not in the initializer list, which would copy the whole
  // result twice (it matters for a thousand nodes).
  j["result"] = r.result;
  return j;
}

json fleet_section(const Fleet& f) {
  json stats = json::array(), outliers = json::array(), groups = json::object(), failed = json::array();
  for (const auto& s : f.summary.stats) {
    stats.push_back({{"gpu_group", s.gpu_group}, {"test", s.test}, {"group", s.group}, {"link", s.link},
                     {"unit", s.unit}, {"lower_is_better", s.lower_is_better}, {"nodes", s.nodes},
                     {"cells", s.cells}, {"min", s.min}, {"median", s.median}, {"max", s.max},
                     {"min_node", s.min_node}, {"max_node", s.max_node}});
  }
  for (const auto& o : f.summary.outliers) {
    json c = cell_json(o.cell);
    c["node"] = o.node;
    c["gpu_group"] = o.gpu_group;
    c["fleet_median"] = o.fleet_median;
    c["ratio_to_median"] = o.ratio;
    outliers.push_back(c);
  }
  for (const auto& n : f.nodes) {
    if (n.record.ok()) groups[n.gpu_group].push_back(n.key);
    if (n.record.exit_code != 0)
      failed.push_back({{"node", n.key}, {"exit_code", n.record.exit_code},
                        {"error", n.record.ok() ? json(nullptr) : json(n.record.error)}});
  }
  return {{"threshold", f.summary.threshold},
          {"threshold_definition", "a cell is an outlier below threshold x the median of its (gpu_group, test, group, "
                                   "link) cells over all nodes; latency: above median / threshold"},
          {"main_gpu_group", f.main_gpu_group},
          {"gpu_groups", groups},
          {"stats", stats},
          {"outliers", outliers},
          {"outlier_nodes", f.summary.outlier_nodes},
          {"failed_nodes", failed},
          {"fail_on_outlier", f.fail_on_outlier}};
}

}  // namespace

json fleet_json(const Fleet& f) {
  json doc = {{"schema", kFleetSchemaName},
          {"schema_version", kFleetSchemaVersion},
          {"tool", {{"name", "xferbench"}, {"version", XFERBENCH_VERSION}}},
          {"command", f.command},
          {"command_line", f.command_line},
          {"start_time_utc", f.start_time_utc},
          {"wall_seconds", f.wall_seconds},
          {"status", fleet::fleet_status(f.exit_code)},
          {"exit_code", f.exit_code},
          {"launch", {{"processes", f.processes}, {"nodes", f.nodes.size()}}},
          {"fleet", fleet_section(f)}};
  json& nodes = doc["nodes"] = json::object();
  for (const auto& n : f.nodes) nodes[n.key] = node_json(n);
  return doc;
}

std::string fleet_csv(const Fleet& f) {
  std::string out = "node,gpu_group,status,exit_code,test,group,cell,link,unit,value,fleet_median,ratio_to_median,"
                    "outlier,error\n";
  std::map<std::tuple<std::string, std::string, std::string, std::string, std::string>, double> medians;
  for (const auto& s : f.summary.stats) medians[{s.gpu_group, s.test, s.group, s.link, s.unit}] = s.median;
  for (const auto& n : f.nodes) {
    const std::string head = fmt::format("{},{},{},{}", csv_escape(n.key), csv_escape(n.gpu_group),
                                         fleet::node_status(n.record),
                                         n.record.exit_code);
    if (!n.record.ok()) {
      out += head + ",,,,,,,,,," + csv_escape(n.record.error) + "\n";
      continue;
    }
    for (const FleetCell& c : n.cells) {
      const auto it = medians.find({n.gpu_group, c.test, c.group, c.link, c.unit});
      const double median = it == medians.end() ? 0.0 : it->second;
      const bool outlier = fleet::is_outlier(c.value, median, c.lower_is_better, f.summary.threshold);
      out += fmt::format("{},{},{},{},{},{},{:.9g},{:.9g},{:.6g},{},\n", head, csv_escape(c.test), csv_escape(c.group),
                         csv_escape(c.cell), csv_escape(c.link), c.unit, c.value, median,
                         median > 0 ? c.value / median : 0.0, outlier ? "yes" : "no");
    }
  }
  return out;
}

}  // namespace xb::report
