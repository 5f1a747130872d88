#include "fleet/summary.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "base/stats.hpp"
#include "base/stop.hpp"
#include "fleet/node_json.hpp"

namespace xb::fleet {
namespace {

using GroupKey = std::tuple<std::string, std::string, std::string, std::string, std::string>;

struct Member {
  std::size_t node;
  const FleetCell* cell;
};

struct Group {
  std::vector<Member> members;
  std::size_t first_seen = 0;
};

GroupKey key_of(const std::string& gpu_group, const FleetCell& c) {
  return {gpu_group, c.test, c.group, c.link, c.unit};
}

FleetStat stat_of(const GroupKey& key, const Group& g, const std::vector<NodeCells>& nodes) {
  FleetStat s;
  std::tie(s.gpu_group, s.test, s.group, s.link, s.unit) = key;
  s.lower_is_better = g.members.front().cell->lower_is_better;
  std::vector<double> values;
  std::set<std::size_t> node_ids;
  const Member* lo = &g.members.front();
  const Member* hi = lo;
  for (const Member& m : g.members) {
    values.push_back(m.cell->value);
    node_ids.insert(m.node);
    if (m.cell->value < lo->cell->value) lo = &m;
    if (m.cell->value > hi->cell->value) hi = &m;
  }
  s.cells = static_cast<int>(values.size());
  s.nodes = static_cast<int>(node_ids.size());
  s.median = median(values);
  s.min = lo->cell->value;
  s.max = hi->cell->value;
  s.min_node = nodes[lo->node].node;
  s.max_node = nodes[hi->node].node;
  return s;
}

// The error whose exit code a node ended with (3: no_device); a code no
// error has is a failure.
ErrorKind kind_of_exit_code(int code) {
  for (ErrorKind k : {ErrorKind::verification, ErrorKind::usage, ErrorKind::no_device, ErrorKind::resources,
                      ErrorKind::nvml, ErrorKind::comm, ErrorKind::io, ErrorKind::cuda, ErrorKind::timeout,
                      ErrorKind::internal})
    if (exit_code(k) == code) return k;
  return ErrorKind::verification;
}

}  // namespace

bool is_outlier(double value, double median_value, bool lower_is_better, double threshold) {
  if (!(median_value > 0) || !(value > 0)) return false;
  return lower_is_better ? value > median_value / threshold : value < threshold * median_value;
}

FleetSummary summarize_fleet(const std::vector<NodeCells>& nodes, double threshold) {
  FleetSummary out;
  out.threshold = threshold;
  std::map<GroupKey, Group> groups;
  std::size_t seen = 0;
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    for (const FleetCell& c : nodes[n].cells) {
      auto [it, added] = groups.try_emplace(key_of(nodes[n].gpu_group, c));
      if (added) it->second.first_seen = seen++;
      it->second.members.push_back({n, &c});
    }
  }
  // Keep the order in which the results list their cells.
  std::vector<std::pair<const GroupKey*, const Group*>> ordered;
  for (const auto& [k, g] : groups) ordered.emplace_back(&k, &g);
  std::sort(ordered.begin(), ordered.end(),
            [](const auto& a, const auto& b) { return a.second->first_seen < b.second->first_seen; });
  std::set<std::size_t> outlier_ids;
  for (const auto& [key, group] : ordered) {
    FleetStat s = stat_of(*key, *group, nodes);
    for (const Member& m : group->members) {
      if (!is_outlier(m.cell->value, s.median, s.lower_is_better, threshold)) continue;
      out.outliers.push_back({nodes[m.node].node, nodes[m.node].gpu_group, *m.cell, s.median, m.cell->value / s.median});
      outlier_ids.insert(m.node);
    }
    out.stats.push_back(std::move(s));
  }
  for (std::size_t n : outlier_ids) out.outlier_nodes.push_back(nodes[n].node);
  return out;
}

FleetEnding fleet_ending(const std::vector<FleetNode>& nodes, const FleetSummary& s, bool fail_on_outlier,
                         bool nodes_required) {
  FleetEnding e;
  std::set<int> codes;
  for (const FleetNode& n : nodes)
    if (n.record.exit_code != 0) codes.insert(n.record.exit_code);
  // A node stopped by a signal stops the job, as one process would be.
  for (int code : codes) {
    if (!is_signal(stop_of_exit_code(code))) continue;
    e.completion.status = RunStatus::interrupted;
    e.completion.stop = stop_of_exit_code(code);
    return e;
  }
  if (codes.size() == 1) {
    const int code = *codes.begin();
    if (code == kExitPartial) {
      e.completion.status = RunStatus::partial;
      e.completion.stop = StopReason::time_limit;
    } else {
      e.failure = kind_of_exit_code(code);
    }
    return e;
  }
  const bool failed = codes.size() > 1 || (fail_on_outlier && !s.outliers.empty()) || (nodes_required && nodes.empty());
  if (failed) e.failure = ErrorKind::verification;
  return e;
}

int fleet_exit_code(const std::vector<FleetNode>& nodes, const FleetSummary& s, bool fail_on_outlier,
                    bool nodes_required) {
  const FleetEnding e = fleet_ending(nodes, s, fail_on_outlier, nodes_required);
  return ending(e.completion, e.failure).exit_code;
}

std::string node_status(const FleetNode& n) {
  if (!n.record.ok()) return "error";
  if (n.record.exit_code == 0) return "passed";
  if (n.status == "interrupted" || n.status == "partial") return n.status;
  return "failed";
}

std::string fleet_status(int exit_code) {
  if (exit_code == 0) return "passed";
  const StopReason stop = stop_of_exit_code(exit_code);
  if (is_signal(stop)) return "interrupted";
  if (stop == StopReason::time_limit) return "partial";
  return "failed";
}

Fleet build_fleet(std::vector<NodeRecord> records, double threshold, bool fail_on_outlier) {
  Fleet f;
  f.fail_on_outlier = fail_on_outlier;
  std::map<std::string, int> host_count;
  for (const NodeRecord& r : records) ++host_count[r.node.host];
  std::map<std::string, int> group_nodes;
  std::vector<NodeCells> cells;
  for (NodeRecord& r : records) {
    FleetNode n;
    n.key = host_count[r.node.host] > 1 ? fmt::format("{}/rank{}", r.node.host, r.node.ranks.front()) : r.node.host;
    if (r.ok() && !r.document.empty()) {
      n.result = decode_node_result(r.document);
      static_cast<NodeResult&>(n) = read_node_result(n.result);
      ++group_nodes[n.gpu_group];
      cells.push_back({n.key, n.gpu_group, n.cells});
    }
    f.processes += static_cast<int>(r.node.ranks.size());
    n.record = std::move(r);
    f.nodes.push_back(std::move(n));
  }
  const auto most = std::max_element(group_nodes.begin(), group_nodes.end(),
                                     [](const auto& a, const auto& b) { return a.second < b.second; });
  if (most != group_nodes.end()) f.main_gpu_group = most->first;
  f.summary = summarize_fleet(cells, threshold);
  f.exit_code = fleet_exit_code(f.nodes, f.summary, fail_on_outlier);
  return f;
}

}  // namespace xb::fleet
