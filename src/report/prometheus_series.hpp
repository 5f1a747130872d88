// The metric families of --format prometheus, the text they make, and a
// node's state (up, last run, last success, exit code, check verdict),
// shared by prometheus_reporter.cpp's run, check, fleet and "could not
// measure" files. docs/prometheus.md lists them.
#pragma once

#include <array>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace xb::report::prom {

using Labels = std::vector<std::pair<std::string, std::string>>;

enum class Metric : std::size_t {
  // A node (Hostname).
  up, last_run, last_success, duration, exit_code, check_pass, fleet_outlier,
  // A link (Hostname, gpu, UUID, link, link_type, peer): check only.
  link_pass, link_margin,
  // A GPU and case (Hostname, gpu, UUID, case, matrix): its worst cell; a GPU: its unusable cells.
  gpu_bandwidth, gpu_latency, gpu_efficiency, gpu_unusable,
  // A cell (--metrics-detail cells).
  bandwidth, latency, efficiency, peak, cell_valid, cell_pass,
  count
};

// Samples by family; text() gives each family that has one its HELP and
// TYPE lines. A value that is not finite is left out (no sample).
class Metrics {
 public:
  void add(Metric m, const Labels& labels, double value);
  std::string text() const;

 private:
  std::array<std::string, static_cast<std::size_t>(Metric::count)> samples_;
};

// When each host last passed, from the metrics file being replaced:
// xferbench_last_success_timestamp_seconds by Hostname; a file written
// before that metric existed gives, for a host whose exit code was 0 (label
// host), its last run's start.
using Successes = std::map<std::string, double>;
Successes read_successes(const std::string& previous_text);

struct NodeState {
  double start_unix = 0;       // NaN: unknown (no sample)
  double wall_seconds = 0;
  int exit_code = 0;
  double last_success = 0;     // NaN: never passed as far as this file knows
  std::string down_reason;     // empty: the node was measured (up 1); else why not (ErrorKind's name)
  std::optional<bool> check_pass;  // check only
};

// A node's state: its last success is this start when it passed (exit 0),
// else what `before` says.
NodeState node_state(const Successes& before, const std::string& host, double start_unix, double wall_seconds,
                     int exit_code);
void add_node_state(Metrics& m, const std::string& host, const NodeState& s);

}  // namespace xb::report::prom
