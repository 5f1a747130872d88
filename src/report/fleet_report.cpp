// Reporters for a fleet (one launch measuring many nodes): a text table
// with a row per node and the key tests as columns, outliers marked '!',
// grouped by GPU model and count; JSON (schema "xferbench-fleet", version
// 1: every node's full result keyed by host name, plus the fleet section);
// CSV (one row per node and cell, or per failed node).
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "base/stats.hpp"
#include "fleet/node_json.hpp"
#include "report/formats.hpp"

namespace xb::report {
namespace {

using fleet::Fleet;
using fleet::FleetCell;
using fleet::FleetNode;

// Cases an admin looks at first, in column order.
constexpr const char* kKeyCases[] = {
    "host_to_device_memcpy_ce", "device_to_host_memcpy_ce", "device_to_device_memcpy_read_ce",
    "device_to_device_memcpy_write_ce", "device_local_copy", "host_device_latency_sm",
    "device_to_device_latency_sm", "host_to_device_memcpy_sm", "device_to_host_memcpy_sm",
    "device_to_device_memcpy_read_sm", "device_to_device_memcpy_write_sm"};

std::string short_name(std::string s) {
  static const std::vector<std::pair<std::string, std::string>> words = {
      {"host_device_latency", "h-d lat"}, {"device_to_device_latency", "d2d lat"}, {"host_to_device", "h2d"},
      {"device_to_host", "d2h"}, {"device_to_device", "d2d"}, {"bidirectional", "bidir"}, {"_memcpy", ""},
      {"device_local_copy", "local copy"}};
  for (const auto& [from, to] : words)
    for (auto pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size())) s.replace(pos, from.size(), to);
  std::replace(s.begin(), s.end(), '_', ' ');
  return s;
}

using StatKey = std::tuple<std::string, std::string, std::string, std::string, std::string>;

std::map<StatKey, double> medians(const Fleet& f) {
  std::map<StatKey, double> out;
  for (const auto& s : f.summary.stats) out[{s.gpu_group, s.test, s.group, s.link, s.unit}] = s.median;
  return out;
}

bool is_outlier_cell(const Fleet& f, const FleetNode& n, const FleetCell& c) {
  for (const auto& o : f.summary.outliers)
    if (o.node == n.key && o.cell.test == c.test && o.cell.group == c.group && o.cell.cell == c.cell) return true;
  return false;
}

// The node's worst key cell of a test, relative to its fleet median.
struct Shown {
  bool present = false;
  double value = 0;
  std::string unit;
  bool outlier = false;
};

Shown column_value(const Fleet& f, const FleetNode& n, const std::string& test, const std::map<StatKey, double>& med) {
  Shown s;
  double worst = 0;
  for (const FleetCell& c : n.cells) {
    if (c.test != test) continue;
    s.outlier = s.outlier || is_outlier_cell(f, n, c);
    if (!c.key) continue;
    const auto it = med.find({n.gpu_group, c.test, c.group, c.link, c.unit});
    const double m = it == med.end() || it->second <= 0 ? 1.0 : it->second;
    const double ratio = c.lower_is_better ? m / c.value : c.value / m;
    if (!s.present || ratio < worst) {
      s = {true, c.value, c.unit, s.outlier};
      worst = ratio;
    }
  }
  return s;
}

std::string value_text(double v, const std::string& unit) {
  return unit == "ns" ? fmt::format("{:.0f}", v) : fmt::format("{:.2f}", v);
}

std::string shown_text(const Shown& s) {
  if (!s.present) return "-  ";
  return value_text(s.value, s.unit) + (s.outlier ? " !" : "  ");
}

std::string node_status(const Fleet& f, const FleetNode& n) {
  const auto& r = n.record;
  if (!r.ok()) return fmt::format("ERROR (exit {}): {}", r.exit_code, r.error);
  const std::string status = fleet::node_status(n);
  std::string st = "ok";
  if (status == "interrupted" || status == "partial") {
    st = fmt::format("{} (exit {}): {}", upper_case(status), r.exit_code, n.stopped);
  } else if (status == "failed") {
    st = fmt::format("FAILED (exit {}): {}", r.exit_code, n.failure);
  }
  std::set<std::string> where;
  for (const auto& o : f.summary.outliers) {
    if (o.node != n.key) continue;
    if (o.cell.gpus.empty()) where.insert(o.cell.test);
    for (const auto& g : o.cell.gpus) where.insert(g);
  }
  if (!where.empty()) {
    st += "; OUTLIER:";
    for (const auto& w : where) st += " " + w;
  }
  if (n.gpu_group != f.main_gpu_group)
    st += fmt::format("; other GPUs than most nodes ({})", f.main_gpu_group);
  return st;
}

struct Layout {
  std::vector<std::string> columns;
  std::vector<std::size_t> widths;
  std::size_t node_width = 4;
};

std::string row_text(const Layout& l, const std::string& name, const std::vector<std::string>& cells,
                     const std::string& status) {
  std::string out = fmt::format("{:<{}}", name, l.node_width);
  for (std::size_t i = 0; i < cells.size(); ++i) out += fmt::format(" {:>{}}", cells[i], l.widths[i]);
  if (status.empty()) out.erase(out.find_last_not_of(' ') + 1);
  else out += "  " + status;
  return out + "\n";
}

std::string group_rows(const Fleet& f, const Layout& l, const std::string& group) {
  const auto med = medians(f);
  std::string out;
  std::vector<std::vector<double>> per_column(l.columns.size());
  for (const FleetNode& n : f.nodes) {
    if (!n.record.ok() || n.gpu_group != group) continue;
    std::vector<std::string> cells;
    for (std::size_t i = 0; i < l.columns.size(); ++i) {
      const Shown s = column_value(f, n, l.columns[i], med);
      cells.push_back(shown_text(s));
      if (s.present) per_column[i].push_back(s.value);
    }
    out += row_text(l, n.key, cells, node_status(f, n));
  }
  std::vector<std::string> mid;
  for (std::size_t i = 0; i < l.columns.size(); ++i) {
    bool latency = false;
    for (const auto& s : f.summary.stats) latency = latency || (s.test == l.columns[i] && s.unit == "ns");
    mid.push_back(per_column[i].empty() ? "-  " : value_text(median(per_column[i]), latency ? "ns" : "GB/s") + "  ");
  }
  return out + row_text(l, "# median", mid, "");
}

// The tests shown as columns: the well-known cases first (host <-> GPU and
// GPU <-> GPU copies, local copy, latencies), then others in the order the
// results list them; at most `max_columns`.
std::vector<std::string> fleet_columns(const Fleet& f, std::size_t max_columns) {
  std::vector<std::string> seen;
  for (const auto& n : f.nodes)
    for (const auto& c : n.cells)
      if (c.key && std::find(seen.begin(), seen.end(), c.test) == seen.end()) seen.push_back(c.test);
  std::vector<std::string> out;
  for (const char* k : kKeyCases)
    if (std::find(seen.begin(), seen.end(), k) != seen.end()) out.push_back(k);
  for (const auto& t : seen)
    if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
  if (out.size() > max_columns) out.resize(max_columns);
  return out;
}

Layout make_layout(const Fleet& f) {
  Layout l;
  l.columns = fleet_columns(f, 9);
  for (const auto& n : f.nodes) l.node_width = std::max(l.node_width, n.key.size());
  l.node_width = std::max<std::size_t>(l.node_width, 8);
  for (const auto& c : l.columns) l.widths.push_back(std::max<std::size_t>(short_name(c).size() + 2, 10));
  return l;
}

std::string header_text(const Fleet& f) {
  std::string cmd;
  for (std::size_t i = 1; i < f.command_line.size(); ++i) cmd += " " + f.command_line[i];
  std::string out = fmt::format("# xferbench {} fleet: {} node{}, {} process{}; each node measured once by its first "
                                "process\n# command: xferbench{}\n",
                                XFERBENCH_VERSION, f.nodes.size(), f.nodes.size() == 1 ? "" : "s", f.processes,
                                f.processes == 1 ? "" : "es", cmd);
  out += fmt::format("# each column: the node's slowest cell of that case (GB/s; latency in ns); '!': a cell of that "
                     "case on that node is below {:.0f}% of its fleet median (latency: above median / {:.2f})\n",
                     f.summary.threshold * 100, f.summary.threshold);
  return out;
}

std::string legend_text(const Layout& l) {
  if (l.columns.empty()) return "# columns: none (no node has a result)\n";
  std::string out = "# columns:";
  for (std::size_t i = 0; i < l.columns.size(); ++i)
    out += fmt::format("{} {} = {}", i == 0 ? "" : ";", short_name(l.columns[i]), l.columns[i]);
  return out + "\n";
}

// How far an outlier is from its median, worst first: bandwidth below,
// latency above.
double badness(const fleet::Outlier& o) { return o.cell.lower_is_better ? o.ratio : 1 / o.ratio; }

std::string outlier_cell_text(const fleet::Outlier& o) {
  const FleetCell& c = o.cell;
  return fmt::format("{}{}{} over {}: {} {} = {:.1f}% of the fleet median {}", c.test, c.group.empty() ? "" : " " + c.group,
                     c.cell.empty() ? "" : " " + c.cell, c.link.empty() ? "unknown link" : c.link,
                     value_text(c.value, c.unit), c.unit, o.ratio * 100, value_text(o.fleet_median, c.unit));
}

// One line per outlier node: its GPUs, how many cells, the worst one; every
// cell is in the JSON file's fleet.outliers.
std::string outliers_text(const Fleet& f) {
  if (f.summary.outliers.empty()) return "# outliers: none\n";
  std::string out = fmt::format("# outliers: {} cell{} on {} node{} (each listed in the JSON file)\n",
                                f.summary.outliers.size(), f.summary.outliers.size() == 1 ? "" : "s",
                                f.summary.outlier_nodes.size(), f.summary.outlier_nodes.size() == 1 ? "" : "s");
  for (const auto& node : f.summary.outlier_nodes) {
    const fleet::Outlier* worst = nullptr;
    std::set<std::string> gpus;
    int cells = 0;
    for (const auto& o : f.summary.outliers) {
      if (o.node != node) continue;
      ++cells;
      gpus.insert(o.cell.gpus.begin(), o.cell.gpus.end());
      if (!worst || badness(o) > badness(*worst)) worst = &o;
    }
    std::string where;
    for (const auto& g : gpus) where += " " + g;
    out += fmt::format("#   {}{}: {} cell{}, worst {}\n", node, where, cells, cells == 1 ? "" : "s",
                       outlier_cell_text(*worst));
  }
  return out;
}

std::string footer_text(const Fleet& f) {
  const auto [failed, stopped] = failed_and_stopped(f);
  std::string word = fleet::fleet_status(f.exit_code);
  if (word != "passed") word = upper_case(word);
  return fmt::format("# {}: {} node{}, {} failed, {}{} with outliers{}; exit code {}\n", word, f.nodes.size(),
                     f.nodes.size() == 1 ? "" : "s", failed,
                     stopped > 0 ? fmt::format("{} stopped before the end, ", stopped) : "",
                     f.summary.outlier_nodes.size(), f.fail_on_outlier ? " (--fail-on-outlier)" : "", f.exit_code);
}

}  // namespace

std::pair<int, int> failed_and_stopped(const Fleet& f) {
  int failed = 0, stopped = 0;
  for (const auto& n : f.nodes) {
    const std::string st = fleet::node_status(n);
    if (st == "interrupted" || st == "partial") ++stopped;
    else if (st != "passed") ++failed;
  }
  return {failed, stopped};
}

std::string fleet_text(const Fleet& f) {
  const Layout l = make_layout(f);
  std::string out = header_text(f) + "\n";
  std::vector<std::string> headers;
  for (const auto& c : l.columns) headers.push_back(short_name(c) + "  ");  // values end in "  " or " !
  out += row_text(l, "node", headers, "status");
  std::map<std::string, int> groups;
  for (const auto& n : f.nodes)
    if (n.record.ok()) ++groups[n.gpu_group];
  std::vector<std::string> order = {f.main_gpu_group};
  for (const auto& [g, count] : groups)
    if (g != f.main_gpu_group) order.push_back(g);
  for (const auto& g : order) {
    if (!groups.count(g)) continue;
    out += fmt::format("# {} node{} with {}\n", groups[g], groups[g] == 1 ? "" : "s", g);
    out += group_rows(f, l, g);
  }
  bool header = false;
  for (const auto& n : f.nodes) {
    if (n.record.ok()) continue;
    if (!header) out += "# nodes without a result\n";
    header = true;
    out += row_text(l, n.key, std::vector<std::string>(l.columns.size(), "-  "), node_status(f, n));
  }
  return out + legend_text(l) + outliers_text(f) + footer_text(f);
}

namespace {

using fleet::kFleetSchemaName;
using fleet::kFleetSchemaVersion;

json cell_json(const FleetCell& c) {
  return {{"test", c.test}, {"group", c.group}, {"cell", c.cell}, {"link", c.link},
          {"unit", c.unit}, {"value", c.value}, {"gpus", c.gpus}};
}

json node_json(const FleetNode& n) {
  const auto& r = n.record;
  json j = {{"host", r.node.host},
            {"ranks", r.node.ranks},
            {"status", fleet::node_status(n)},
            {"exit_code", r.exit_code},
            {"gpu_group", n.gpu_group.empty() ? json(nullptr) : json(n.gpu_group)}};
  if (!r.ok()) j["error"] = {{"kind", r.error_kind}, {"message", r.error}};
  // The node's document as it wrote it; assigned, not in the initializer
  // list, which would copy the whole result twice (it matters for a
  // thousand nodes).
  j["result"] = fleet::document_json(r.document);
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
  const std::map<StatKey, double> med = medians(f);
  for (const auto& n : f.nodes) {
    const std::string head = fmt::format("{},{},{},{}", csv_escape(n.key), csv_escape(n.gpu_group),
                                         fleet::node_status(n),
                                         n.record.exit_code);
    if (!n.record.ok()) {
      out += head + ",,,,,,,,,," + csv_escape(n.record.error) + "\n";
      continue;
    }
    for (const FleetCell& c : n.cells) {
      const auto it = med.find({n.gpu_group, c.test, c.group, c.link, c.unit});
      const double median = it == med.end() ? 0.0 : it->second;
      const bool outlier = fleet::is_outlier(c.value, median, c.lower_is_better, f.summary.threshold);
      out += fmt::format("{},{},{},{},{},{},{:.9g},{:.9g},{:.6g},{},\n", head, csv_escape(c.test), csv_escape(c.group),
                         csv_escape(c.cell), csv_escape(c.link), c.unit, c.value, median,
                         median > 0 ? c.value / median : 0.0, outlier ? "yes" : "no");
    }
  }
  return out;
}

}  // namespace xb::report
