// The check verdict: what 'xferbench check' concluded about a node, as its
// result document's "check" section states it (docs/check.md). It is built
// from the check's own result (report::check_verdict_record) and read back
// from a node's document by a fleet of checks, so the fleet's table, JUnit
// and Prometheus reporters read fields, not keys. Words stay words here
// ("pass", "nvlink"): their enums belong to check/, above this layer.
//
// The codec, both ways, is check_verdict_json.hpp.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "records/completion.hpp"

namespace xb::records {

struct CheckRule {
  std::string id, title, status, note;
};

struct CheckFinding {
  std::string rule, severity, subject, evidence, fix;
};

struct CheckLink {
  std::string link, label, verdict;  // "gpu0<->gpu1", "NVLink x18", "pass"
  int cells = 0, failed = 0, unjudged = 0;
  std::string reason;                // of the link's closest (or first failed) cell
};

struct CheckCellVerdict {
  std::string key, case_name, matrix, row, col;
  std::string link, link_label, link_class;  // "host<->gpu0", "PCIe Gen5 x16", "pcie"
  bool latency = false;                      // value and threshold in ns, else GB/s
  double value = 0;
  std::string verdict, basis, reason;        // "pass" / "fail" / "unjudged", "spec" / "baseline" / ...
  bool throttled = false, remeasured = false;
  double threshold = 0;                      // 0: none (null in the document)
  double threshold_pct = 0;                  // 0: the threshold is not a percentage of the peak
  std::string source, why, throttle_reasons;
};

struct CheckProblem {
  std::string case_name, status, message;
};

// One GPU's NVML reading; a field NVML could not answer stays empty.
struct TelemetrySample {
  std::optional<unsigned> sm_clock_mhz, mem_clock_mhz;
  std::optional<std::string> clock_reasons;  // "sw_power_cap,hw_slowdown"
  std::optional<int> pcie_gen, pcie_width;
};

struct TelemetryGpu {
  int gpu = 0;
  TelemetrySample before, after;
};

struct TelemetryWindow {
  std::string case_name;
  int row = 0, col = 0;
  std::vector<int> gpus_used;
  bool throttled = false;
  std::string slowdown_reasons;
  std::uint64_t power_throttle_ns = 0, thermal_throttle_ns = 0;
  std::vector<TelemetryGpu> gpus;
};

struct CheckVerdict {
  std::string verdict;      // "pass", "fail", "partial", "interrupted"
  int exit_code = 0;
  std::string summary;      // the one-line summary ("xferbench check: PASS ...")
  std::string hostname;
  double wall_seconds = 0;
  bool strict = false;
  std::string spec_file, baseline_file;               // "": none
  std::map<std::string, double> builtin_min_pct;      // link class -> percent of its peak
  std::vector<CheckRule> rules;
  std::vector<CheckFinding> findings;
  std::vector<CheckLink> links;
  std::vector<CheckCellVerdict> cells;
  std::vector<CheckProblem> problems;
  std::vector<std::string> remeasured_cases;
  std::vector<TelemetryWindow> telemetry;
};

// The verdict's outcome: "pass" is passed, "fail" failed, the others by
// their names.
Outcome outcome_of(const CheckVerdict& v);

}  // namespace xb::records
