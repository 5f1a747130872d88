// The lint driver and the rules that read NVML and CUDA facts. The rules
// that read sysfs and procfs live in lint_host.cpp.
#include "check/lint.hpp"

#include <algorithm>
#include <functional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/error.hpp"
#include "base/names.hpp"

namespace xb::check {
namespace {

using Rule = std::function<RuleOutcome(const LintInput&, std::vector<Finding>&)>;

struct RuleDef {
  const char* id;
  Rule fn;
};

const std::vector<RuleDef>& rules() {
  static const std::vector<RuleDef> r = {
      {"pcie_link", lint_pcie_link},       {"c2c_link", lint_c2c_link},
      {"nvlink_count", lint_nvlink_count},
      {"peer_access", lint_peer_access},   {"pcie_acs", lint_pcie_acs},
      {"iommu", lint_iommu},               {"numa_placement", lint_numa_placement},
      {"persistence_mode", lint_persistence_mode}, {"clocks", lint_clocks},
      {"memory_errors", lint_memory_errors}, {"mig_cc", lint_mig_cc}};
  return r;
}

RuleOutcome outcome(const char* rule, const char* title) {
  RuleOutcome o;
  o.rule = rule;
  o.title = title;
  return o;
}

// Rules that need NVML are skipped, never passed, without it.
bool nvml_missing(const LintInput& in, RuleOutcome& o) {
  if (in.nvml) return false;
  o.status = RuleStatus::skipped;
  o.note = in.nvml_error.empty() ? "NVML unavailable" : in.nvml_error;
  return true;
}

std::string gpu_name(int g) { return fmt::format("gpu{}", g); }

void settle(RuleOutcome& o, std::size_t before, const std::vector<Finding>& out) {
  if (o.status == RuleStatus::skipped) return;
  if (out.size() > before) o.status = RuleStatus::findings;
}

Finding& add(std::vector<Finding>& out, const char* rule, Severity s, std::string subject, std::string evidence,
             std::string fix) {
  Finding f{rule, s, std::move(subject), std::move(evidence), std::move(fix)};
  if (f.subject.rfind("gpu", 0) == 0 && f.subject.find('-') == std::string::npos) f.gpu = std::stoi(f.subject.substr(3));
  out.push_back(std::move(f));
  return out.back();
}

// A rule over every GPU's NVML health: skipped without NVML. `has` says
// whether a GPU reports what the rule reads (`what`); `check` adds the
// findings of each GPU that does. The outcome is skipped when no GPU
// answered, noted when some did not.
using GpuCheck = std::function<void(const NvmlHealth&, const std::string& gpu)>;

RuleOutcome per_gpu(const LintInput& in, std::vector<Finding>& out, RuleOutcome o, const char* what,
                    const std::function<bool(const NvmlHealth&)>& has, const GpuCheck& check) {
  if (nvml_missing(in, o)) return o;
  const std::size_t before = out.size();
  std::vector<std::string> silent;
  for (std::size_t g = 0; g < in.sys->gpus.size(); ++g) {
    const NvmlHealth h = in.nvml->health(in.sys->gpus[g].pci_bus_id);
    if (h.found && has(h)) {
      check(h, gpu_name(static_cast<int>(g)));
    } else {
      silent.push_back(gpu_name(in.sys->gpus[g].index));
    }
  }
  if (silent.size() == in.sys->gpus.size()) {
    o.status = RuleStatus::skipped;
    o.note = fmt::format("NVML does not report {} on this machine", what);
  } else if (!silent.empty()) {
    o.note = fmt::format("NVML does not report {} for {}", what, fmt::join(silent, ", "));
  }
  settle(o, before, out);
  return o;
}

}  // namespace

constexpr Named<Severity> kSeverities[] = {
    {Severity::info, "info"}, {Severity::warn, "warn"}, {Severity::error, "error"}};
constexpr Named<RuleStatus> kRuleStatuses[] = {{RuleStatus::passed, "passed"},
                                               {RuleStatus::findings, "findings"},
                                               {RuleStatus::not_applicable, "not_applicable"},
                                               {RuleStatus::skipped, "skipped"}};

const char* to_string(Severity s) noexcept { return lookup_name(kSeverities, s); }
const char* to_string(RuleStatus s) noexcept { return lookup_name(kRuleStatuses, s); }

Severity parse_severity(const std::string& text, const std::string& what) {
  if (const auto s = lookup_value(kSeverities, text)) return *s;
  fail(ErrorKind::usage, fmt::format("{}: unknown severity '{}' (expected info, warn or error)", what, text));
}

bool LintReport::failed(bool strict) const {
  return std::any_of(findings.begin(), findings.end(), [strict](const Finding& f) {
    return f.severity == Severity::error || (strict && f.severity == Severity::warn);
  });
}

const std::vector<std::string>& lint_rule_ids() {
  static const std::vector<std::string> ids = [] {
    std::vector<std::string> v;
    for (const auto& r : rules()) v.push_back(r.id);
    return v;
  }();
  return ids;
}

LintReport run_lint(const LintInput& in) {
  LintReport report;
  for (const auto& r : rules()) {
    const std::size_t first = report.findings.size();
    report.rules.push_back(r.fn(in, report.findings));
    const auto ov = in.settings.severity_override.find(r.id);
    if (ov == in.settings.severity_override.end()) continue;
    for (std::size_t i = first; i < report.findings.size(); ++i) report.findings[i].severity = ov->second;
  }
  return report;
}

namespace {
// Whether the GPU a per_gpu check names ("gpu3") reaches the host over C2C.
bool on_c2c(const System& sys, const std::string& who) {
  const int g = std::stoi(who.substr(3));
  return g >= 0 && g < sys.gpu_count() && sys.gpus[static_cast<std::size_t>(g)].host_link_kind == HostLinkKind::c2c;
}
}  // namespace

RuleOutcome lint_pcie_link(const LintInput& in, std::vector<Finding>& out) {
  const auto has = [](const NvmlHealth& h) {
    return h.pcie_gen_current && h.pcie_gen_max && h.pcie_width_current && h.pcie_width_max;
  };
  RuleOutcome o = outcome("pcie_link", "PCIe link trained at its maximum generation and width");
  const bool all_c2c = std::all_of(in.sys->gpus.begin(), in.sys->gpus.end(),
                                   [](const GpuInfo& g) { return g.host_link_kind == HostLinkKind::c2c; });
  if (all_c2c && !in.sys->gpus.empty()) {
    o.status = RuleStatus::not_applicable;
    o.note = "every GPU reaches the host over NVLink-C2C (rule c2c_link)";
    return o;
  }
  return per_gpu(in, out, o, "the PCIe link state", has, [&](const NvmlHealth& h, const std::string& who) {
    if (on_c2c(*in.sys, who)) return;
    const int gen = *h.pcie_gen_current, gen_max = *h.pcie_gen_max;
    const int width = *h.pcie_width_current, width_max = *h.pcie_width_max;
    if (width < width_max)
      add(out, "pcie_link", Severity::error, who, fmt::format("PCIe trained Gen{} x{} < x{}", gen, width, width_max),
          "reseat the GPU or its riser/cable, check the slot's lane setting in the BIOS, then reboot");
    if (gen < gen_max)
      add(out, "pcie_link", Severity::warn, who,
          fmt::format("PCIe at Gen{} < Gen{} before any transfer (links idle at a low generation; "
                      "rechecked under load)", gen, gen_max),
          "if it stays low under load: check the slot's generation setting in the BIOS and the riser/retimer")
          .provisional = true;
  });
}

RuleOutcome lint_c2c_link(const LintInput& in, std::vector<Finding>& out) {
  RuleOutcome o = outcome("c2c_link", "NVLink-C2C host link enabled with every link active");
  const bool any_c2c = std::any_of(in.sys->gpus.begin(), in.sys->gpus.end(),
                                   [](const GpuInfo& g) { return g.host_link_kind == HostLinkKind::c2c; });
  if (!any_c2c) {
    o.status = RuleStatus::not_applicable;
    o.note = "no GPU reaches the host over NVLink-C2C";
    return o;
  }
  const auto has = [](const NvmlHealth& h) { return h.c2c_enabled.has_value() || h.c2c_links.has_value(); };
  return per_gpu(in, out, o, "the NVLink-C2C state", has, [&](const NvmlHealth& h, const std::string& who) {
    if (!on_c2c(*in.sys, who)) return;
    const char* fix = "check 'nvidia-smi c2c -s' and the kernel log; reset the GPU, and if it stays, the superchip "
                      "needs service";
    if (!h.c2c_enabled.value_or(true))
      add(out, "c2c_link", Severity::error, who, "NVML reports NVLink-C2C mode off on a GPU modelled as C2C", fix);
    if (h.c2c_links && h.c2c_links_active && *h.c2c_links_active < *h.c2c_links)
      add(out, "c2c_link", Severity::error, who,
          fmt::format("{} of {} NVLink-C2C links active", *h.c2c_links_active, *h.c2c_links), fix);
  });
}

RuleOutcome lint_nvlink_count(const LintInput& in, std::vector<Finding>& out) {
  RuleOutcome o = outcome("nvlink_count", "every NVLink the GPU model has is active");
  if (in.sys->gpu_count() < 2) {
    // A single visible GPU (a VM slice of a baseboard) has no peer to link to.
    o.status = RuleStatus::not_applicable;
    o.note = "one GPU visible: its NVLinks have no peer here";
    return o;
  }
  bool any_links = in.settings.nvlinks_per_gpu.value_or(0) > 0;
  const auto has = [](const NvmlHealth& h) { return h.nvlinks_present && h.nvlinks_active; };
  o = per_gpu(in, out, o, "NVLink states", has, [&](const NvmlHealth& h, const std::string& who) {
    const int active = *h.nvlinks_active;
    // The spec's count, else what NVML says the GPU has, raised to the
    // model's count on a switched baseboard (gpu_models.cpp: every link is
    // wired there) when NVML reports some links but fewer.
    const GpuModel* m = find_gpu_model(in.sys->gpus[static_cast<std::size_t>(std::stoi(who.substr(3)))].name);
    const bool by_model = !in.settings.nvlinks_per_gpu && m && std::string(m->nvlink_fabric) == "NVSwitch" &&
                          *h.nvlinks_present > 0 && *h.nvlinks_present < m->nvlinks;
    const int expected = in.settings.nvlinks_per_gpu.value_or(by_model ? m->nvlinks : *h.nvlinks_present);
    any_links = any_links || expected > 0;
    if (active < expected)
      add(out, "nvlink_count", Severity::error, who,
          fmt::format("{} of {} NVLinks active{}", active, expected,
                      in.settings.nvlinks_per_gpu ? " (the spec's count for this model)"
                      : by_model ? fmt::format(" (the {} count, {})", m->key, m->source) : ""),
          "run 'nvidia-smi nvlink -s' and the fabric manager log; reset the GPU or reseat the baseboard");
  });
  // No GPU has links to check (then none was found missing either).
  if (o.status != RuleStatus::skipped && !any_links) {
    o.status = RuleStatus::not_applicable;
    o.note = "no GPU has NVLinks";
  }
  return o;
}

RuleOutcome lint_peer_access(const LintInput& in, std::vector<Finding>& out) {
  RuleOutcome o = outcome("peer_access", "every GPU pair has peer access");
  const System& sys = *in.sys;
  if (sys.gpu_count() < 2) {
    o.status = RuleStatus::not_applicable;
    o.note = fmt::format("{} GPU", sys.gpu_count());
    return o;
  }
  const std::size_t before = out.size();
  for (int a = 0; a < sys.gpu_count(); ++a) {
    for (int b = a + 1; b < sys.gpu_count(); ++b) {
      if (sys.link(a, b).peer_access && sys.link(b, a).peer_access) continue;
      // Kinds whose public specification promises no peer-to-peer (L40S).
      const GpuModel* ma = find_gpu_model(sys.gpus[static_cast<std::size_t>(a)].name);
      const GpuModel* mb = find_gpu_model(sys.gpus[static_cast<std::size_t>(b)].name);
      const bool expected = !(ma && !ma->peer_access_expected) && !(mb && !mb->peer_access_expected);
      add(out, "peer_access", expected ? Severity::error : Severity::info, fmt::format("gpu{}-gpu{}", a, b),
          fmt::format("no peer access between gpu{} and gpu{} (cudaDeviceCanAccessPeer){}", a, b,
                      expected ? "" : fmt::format("; {} does not list peer-to-peer", ma && !ma->peer_access_expected
                                                                                        ? ma->key : mb->key)),
          "check that both GPUs share a PCIe root or NVLink, that ACS/IOMMU allow P2P, and the driver's P2P "
          "settings (nvidia-smi topo -p2p r)");
    }
  }
  settle(o, before, out);
  return o;
}

RuleOutcome lint_persistence_mode(const LintInput& in, std::vector<Finding>& out) {
  const auto has = [](const NvmlHealth& h) { return h.persistence_mode.has_value(); };
  return per_gpu(in, out, outcome("persistence_mode", "persistence mode on"), "persistence mode", has,
                 [&](const NvmlHealth& h, const std::string& who) {
    if (!*h.persistence_mode)
      add(out, "persistence_mode", Severity::warn, who, "persistence mode off",
          "enable nvidia-persistenced (or 'nvidia-smi -pm 1') so the driver stays initialised between jobs");
  });
}

RuleOutcome lint_clocks(const LintInput& in, std::vector<Finding>& out) {
  const auto has = [](const NvmlHealth& h) { return h.clock_reasons.has_value(); };
  return per_gpu(in, out, outcome("clocks", "clocks not throttled, applications clocks not locked low"),
                 "clock event reasons", has, [&](const NvmlHealth& h, const std::string& who) {
    const std::uint64_t slow = *h.clock_reasons & clock_reason::slowdown;
    if (slow)
      add(out, "clocks", Severity::error, who,
          fmt::format("clocks throttled before any transfer: {} (SM {} MHz)", clock_reason_names(slow),
                      h.sm_clock_mhz.value_or(0)),
          "check cooling, power supply and 'nvidia-smi -q -d PERFORMANCE'; a hardware slowdown needs service");
    if (h.app_sm_clock_mhz && h.default_app_sm_clock_mhz && *h.app_sm_clock_mhz < *h.default_app_sm_clock_mhz)
      add(out, "clocks", Severity::warn, who,
          fmt::format("applications SM clock locked at {} MHz < default {} MHz", *h.app_sm_clock_mhz,
                      *h.default_app_sm_clock_mhz),
          "reset with 'nvidia-smi -rac' (and 'nvidia-smi -rgc' for locked clocks)");
    if (h.app_mem_clock_mhz && h.mem_clock_max_mhz && *h.app_mem_clock_mhz < *h.mem_clock_max_mhz)
      add(out, "clocks", Severity::warn, who,
          fmt::format("applications memory clock locked at {} MHz < max {} MHz", *h.app_mem_clock_mhz,
                      *h.mem_clock_max_mhz),
          "reset with 'nvidia-smi -rac' (and 'nvidia-smi -rmc' for locked memory clocks)");
  });
}

RuleOutcome lint_memory_errors(const LintInput& in, std::vector<Finding>& out) {
  const auto has = [](const NvmlHealth& h) {
    return h.ecc_enabled || h.ecc_uncorrected_volatile || h.retired_pages_pending || h.row_remap_pending;
  };
  const char* reset = "drain the node and reset the GPU ('nvidia-smi -r'); if it recurs, RMA";
  return per_gpu(in, out, outcome("memory_errors", "no pending ECC, retired-page or row-remap action"),
                 "ECC or row-remap state", has, [&](const NvmlHealth& h, const std::string& who) {
    if (h.ecc_uncorrected_volatile.value_or(0) > 0)
      add(out, "memory_errors", Severity::error, who,
          fmt::format("{} uncorrected ECC errors since the last driver load", *h.ecc_uncorrected_volatile), reset);
    if (h.retired_pages_pending.value_or(false))
      add(out, "memory_errors", Severity::error, who, "retired pages pending (take effect at the next reset)", reset);
    if (h.row_remap_pending.value_or(false))
      add(out, "memory_errors", Severity::error, who, "row remap pending (takes effect at the next reset)", reset);
    if (h.row_remap_failure.value_or(false))
      add(out, "memory_errors", Severity::error, who, "row remapping failed: no spare rows left",
          "the GPU needs service (RMA)");
    if (h.ecc_pending_change.value_or(false))
      add(out, "memory_errors", Severity::warn, who,
          fmt::format("ECC mode change pending (now {})", h.ecc_enabled.value_or(false) ? "on" : "off"),
          "reboot or reset the GPU so the ECC mode takes effect");
  });
}

RuleOutcome lint_mig_cc(const LintInput& in, std::vector<Finding>& out) {
  RuleOutcome o = outcome("mig_cc", "MIG and confidential-computing modes off");
  if (nvml_missing(in, o)) return o;
  const std::optional<bool> cc = in.nvml->confidential_compute();
  const auto has = [cc](const NvmlHealth& h) { return h.mig_enabled.has_value() || cc.has_value(); };
  o = per_gpu(in, out, o, "MIG or confidential-computing mode", has, [&](const NvmlHealth& h, const std::string& who) {
    if (h.mig_enabled.value_or(false))
      add(out, "mig_cc", Severity::error, who,
          "MIG mode on: the GPU is partitioned and whole-GPU bandwidth cannot be measured",
          "disable with 'nvidia-smi -i N -mig 0' and reset the GPU, or check a node meant for MIG separately");
  });
  if (!cc.value_or(false)) return o;
  add(out, "mig_cc", Severity::error, "host",
      "confidential-computing mode on: host<->GPU copies go through encrypted bounce buffers",
      "turn CC mode off ('nvidia-smi conf-compute') for bandwidth acceptance, or judge with a CC-specific spec");
  settle(o, out.size() - 1, out);
  return o;
}

void recheck_pcie_under_load(LintReport& report, const System& sys, const std::vector<int>& gen_under_load) {
  auto& f = report.findings;
  std::vector<Finding> confirmed;
  for (auto it = f.begin(); it != f.end();) {
    const int g = it->rule == "pcie_link" && it->provisional ? it->gpu : -1;
    if (g < 0 || g >= sys.gpu_count() || static_cast<std::size_t>(g) >= gen_under_load.size() ||
        gen_under_load[g] < 0) {
      ++it;
      continue;
    }
    const int gen_max = sys.gpus[g].pcie_gen_max;
    if (gen_under_load[g] < gen_max)
      confirmed.push_back(Finding{"pcie_link", Severity::error, it->subject,
                                  fmt::format("PCIe at Gen{} < Gen{} under load", gen_under_load[g], gen_max),
                                  "check the slot's generation setting in the BIOS and the riser/retimer; "
                                  "reseat the GPU", g});
    it = f.erase(it);
  }
  f.insert(f.end(), confirmed.begin(), confirmed.end());
  for (auto& r : report.rules) {
    if (r.rule != "pcie_link" || r.status == RuleStatus::skipped) continue;
    const bool any = std::any_of(f.begin(), f.end(), [](const Finding& x) { return x.rule == "pcie_link"; });
    r.status = any ? RuleStatus::findings : RuleStatus::passed;
    r.note += r.note.empty() ? "generation rechecked under load" : "; generation rechecked under load";
  }
}

}  // namespace xb::check
