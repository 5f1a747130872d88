// Environment lint for node acceptance: rules that inspect the machine
// before any transfer (PCIe training, NVLinks, peer access, ACS, IOMMU,
// NUMA placement, persistence mode, clocks, memory errors, MIG / CC). Each
// finding carries a severity, the evidence and a fix hint. The rules read
// only their inputs (a System, an NvmlQueries, a sysfs/proc root), so unit
// tests drive them with a fake NVML and a recorded sysfs tree.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "machine/nvml.hpp"
#include "machine/topology.hpp"

namespace xb::check {

enum class Severity { info, warn, error };
const char* to_string(Severity s) noexcept;
// Throws Error(usage) naming `what` for anything but info, warn, error.
Severity parse_severity(const std::string& text, const std::string& what);

struct Finding {
  std::string rule;      // "pcie_link"
  Severity severity = Severity::warn;
  std::string subject;   // "gpu3", "gpu0-gpu1", "host"
  std::string evidence;  // "PCIe trained Gen5 x8 < x16"
  std::string fix;       // what to do about it
  int gpu = -1;          // the GPU it is about, -1 for the host or a pair
  bool provisional = false;  // to be confirmed by a reading under load
};

// passed: the rule looked and found nothing; not_applicable: nothing to look
// at (one GPU, no NVLink); skipped: it could not look (no NVML, no root).
enum class RuleStatus { passed, findings, not_applicable, skipped };
const char* to_string(RuleStatus s) noexcept;

struct RuleOutcome {
  std::string rule;
  std::string title;
  RuleStatus status = RuleStatus::passed;
  std::string note;  // why skipped / not applicable, or GPUs NVML could not answer for
};

struct LintReport {
  std::vector<RuleOutcome> rules;
  std::vector<Finding> findings;
  // An error finding fails the check; with `strict`, a warning does too.
  bool failed(bool strict) const;
};

// Where the kernel's views live: /sys and /proc, or a recorded tree in tests.
struct SysPaths {
  std::string sys = "/sys";
  std::string proc = "/proc";
};

struct LintSettings {
  std::optional<int> nvlinks_per_gpu;                 // from a spec: the model's link count
  std::map<std::string, Severity> severity_override;  // rule -> severity of all its findings
};

struct LintInput {
  const System* sys = nullptr;
  const NvmlQueries* nvml = nullptr;  // null: NVML unavailable
  std::string nvml_error;             // why, for the skipped rules
  SysPaths paths;
  LintSettings settings;
};

// The rule ids in the order they run.
const std::vector<std::string>& lint_rule_ids();

LintReport run_lint(const LintInput& in);

// Re-judges the PCIe generation with readings taken while host transfers
// ran: links idle at a low generation to save power, so a generation below
// the maximum seen before any transfer is only a warning until the highest
// generation seen under load (per GPU, -1 = no reading) confirms it.
void recheck_pcie_under_load(LintReport& report, const System& sys, const std::vector<int>& gen_under_load);

// The rules, one function each (lint.cpp: NVML and CUDA facts; lint_host.cpp:
// sysfs and procfs). Each returns its outcome and appends its findings.
RuleOutcome lint_pcie_link(const LintInput& in, std::vector<Finding>& out);
RuleOutcome lint_nvlink_count(const LintInput& in, std::vector<Finding>& out);
RuleOutcome lint_c2c_link(const LintInput& in, std::vector<Finding>& out);
RuleOutcome lint_peer_access(const LintInput& in, std::vector<Finding>& out);
RuleOutcome lint_pcie_acs(const LintInput& in, std::vector<Finding>& out);
RuleOutcome lint_iommu(const LintInput& in, std::vector<Finding>& out);
RuleOutcome lint_numa_placement(const LintInput& in, std::vector<Finding>& out);
RuleOutcome lint_persistence_mode(const LintInput& in, std::vector<Finding>& out);
RuleOutcome lint_clocks(const LintInput& in, std::vector<Finding>& out);
RuleOutcome lint_memory_errors(const LintInput& in, std::vector<Finding>& out);
RuleOutcome lint_mig_cc(const LintInput& in, std::vector<Finding>& out);

// sysfs name of a PCI device ("0000:18:00.0") from CUDA's or NVML's spelling.
std::string sysfs_bus_id(const std::string& pci_bus_id);

}  // namespace xb::check
