#include "report/prometheus_series.hpp"

#include <cmath>
#include <cstdlib>
#include <sstream>

#include <fmt/format.h>

#include "report/formats.hpp"

namespace xb::report {

std::string prometheus_escape(const std::string& value) {
  std::string out;
  out.reserve(value.size());
  for (const char ch : value) {
    if (ch == '\\') out += "\\\\";
    else if (ch == '"') out += "\\\"";
    else if (ch == '\n') out += "\\n";
    else out += ch;
  }
  return out;
}

namespace prom {
namespace {

struct Family {
  const char* name;
  const char* help;
};

// Fixed HELP texts: changing one breaks a site's other files (node_exporter
// refuses one metric name with two HELP texts in its directory).
constexpr std::array<Family, static_cast<std::size_t>(Metric::count)> kFamilies = {{
    {"xferbench_up", "1 when the last xferbench run or check measured this host, 0 when it could not (label reason)."},
    {"xferbench_last_run_timestamp_seconds", "When the last xferbench run or check started, in unix seconds."},
    {"xferbench_last_success_timestamp_seconds",
     "When the last xferbench run or check on this host that passed (exit code 0) started, in unix seconds."},
    {"xferbench_last_run_duration_seconds", "Wall time of the last xferbench run or check, in seconds."},
    {"xferbench_exit_code", "Exit code of the last xferbench run or check on this host (0 passed; README lists the others)."},
    {"xferbench_check_pass", "1 when xferbench check accepted the node, 0 otherwise."},
    {"xferbench_fleet_outlier", "1 when a node has a cell below the fleet threshold of its GPU group's median, else 0."},
    {"xferbench_check_link_pass", "xferbench check verdict of a link: 1 pass, 0 fail (links not judged have no sample)."},
    {"xferbench_check_link_margin_ratio",
     "The closest judged cell of a link over the limit xferbench check held it to (latency: limit over value); "
     "below 1 it failed."},
    {"xferbench_gpu_bandwidth_bytes_per_second",
     "Lowest bandwidth among a GPU's cells of an xferbench case, in bytes per second."},
    {"xferbench_gpu_latency_seconds", "Highest latency among a GPU's cells of an xferbench case, in seconds."},
    {"xferbench_gpu_efficiency_ratio",
     "Lowest bandwidth over its link's theoretical peak among a GPU's cells of an xferbench case."},
    {"xferbench_gpu_unusable_cells",
     "Cells of a GPU without a usable value (failed, invalid or not measured) in the last xferbench run or check."},
    {"xferbench_bandwidth_bytes_per_second", "Measured bandwidth of an xferbench cell, in bytes per second."},
    {"xferbench_latency_seconds", "Measured latency of an xferbench cell, in seconds."},
    {"xferbench_efficiency_ratio", "Measured bandwidth of an xferbench cell over its link's theoretical peak."},
    {"xferbench_link_peak_bytes_per_second", "Theoretical peak of the link an xferbench cell measures, in bytes per second."},
    {"xferbench_cell_valid", "1 when an xferbench cell has a valid value, 0 when it failed, was invalid or not measured."},
    {"xferbench_check_cell_pass", "xferbench check verdict of a cell: 1 pass, 0 fail (cells not judged have no sample)."},
}};

const Family& family(Metric m) { return kFamilies[static_cast<std::size_t>(m)]; }

// One sample line's labels, unescaped, and its value; false when `line`
// is not a sample of `name` with labels.
bool read_sample(const std::string& line, const std::string& name, std::map<std::string, std::string>& labels,
                 double& value) {
  if (line.compare(0, name.size() + 1, name + "{") != 0) return false;
  std::size_t i = name.size() + 1;
  while (i < line.size() && line[i] != '}') {
    const std::size_t eq = line.find("=\"", i);
    if (eq == std::string::npos) return false;
    const std::string key = line.substr(i, eq - i);
    std::string text;
    for (i = eq + 2; i < line.size() && line[i] != '"'; ++i) {
      if (line[i] != '\\' || i + 1 == line.size()) {
        text += line[i];
      } else {
        ++i;
        text += line[i] == 'n' ? '\n' : line[i];
      }
    }
    labels[key] = text;
    if (++i < line.size() && line[i] == ',') ++i;
  }
  if (i >= line.size()) return false;
  const char* start = line.c_str() + i + 1;
  char* end = nullptr;
  value = std::strtod(start, &end);
  return end != start && std::isfinite(value);
}

}  // namespace

void Metrics::add(Metric m, const Labels& labels, double value) {
  if (!std::isfinite(value)) return;
  std::string line = family(m).name;
  for (std::size_t i = 0; i < labels.size(); ++i)
    line += fmt::format("{}{}=\"{}\"", i == 0 ? "{" : ",", labels[i].first, prometheus_escape(labels[i].second));
  samples_[static_cast<std::size_t>(m)] += fmt::format("{}{} {}\n", line, labels.empty() ? "" : "}", value);
}

std::string Metrics::text() const {
  std::string out;
  for (std::size_t m = 0; m < samples_.size(); ++m) {
    if (samples_[m].empty()) continue;
    out += fmt::format("# HELP {0} {1}\n# TYPE {0} gauge\n{2}", kFamilies[m].name, kFamilies[m].help, samples_[m]);
  }
  return out;
}

Successes read_successes(const std::string& previous_text) {
  Successes found, ran, passed;
  std::istringstream lines(previous_text);
  std::string line;
  while (std::getline(lines, line)) {
    std::map<std::string, std::string> l;
    double v = 0;
    if (read_sample(line, family(Metric::last_success).name, l, v) && l.count("Hostname")) found[l["Hostname"]] = v;
    // Files of xferbench 0.1.0 and earlier: label host, no last success.
    if (read_sample(line, family(Metric::last_run).name, l, v) && l.count("host")) ran[l["host"]] = v;
    if (read_sample(line, family(Metric::exit_code).name, l, v) && l.count("host") && v == 0) passed[l["host"]] = v;
  }
  for (const auto& [host, start] : ran)
    if (passed.count(host) && !found.count(host)) found[host] = start;
  return found;
}

NodeState node_state(const Successes& before, const std::string& host, double start_unix, double wall_seconds,
                     int exit_code) {
  NodeState s;
  s.start_unix = start_unix;
  s.wall_seconds = wall_seconds;
  s.exit_code = exit_code;
  const auto it = before.find(host);
  s.last_success = exit_code == 0 ? start_unix : it != before.end() ? it->second : NAN;
  return s;
}

void add_node_state(Metrics& m, const std::string& host, const NodeState& s) {
  const Labels l = {{"Hostname", host}};
  if (s.down_reason.empty()) m.add(Metric::up, l, 1);
  else m.add(Metric::up, {{"Hostname", host}, {"reason", s.down_reason}}, 0);
  m.add(Metric::last_run, l, s.start_unix);
  m.add(Metric::last_success, l, s.last_success);
  m.add(Metric::duration, l, s.wall_seconds);
  m.add(Metric::exit_code, l, s.exit_code);
  if (s.check_pass) m.add(Metric::check_pass, l, *s.check_pass ? 1 : 0);
}

}  // namespace prom
}  // namespace xb::report
