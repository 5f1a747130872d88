// Every lint rule of 'xferbench check', on a fake NVML and the recorded
// sysfs trees in tests/data/check_sysfs (see its README).
#include <gtest/gtest.h>

#include <algorithm>

#include "check/lint.hpp"
#include "base/error.hpp"
#include "fake_nvml.hpp"
#include "fake_system.hpp"

namespace {

using namespace xb::check;

const std::string kData = XFERBENCH_TEST_DATA_DIR "/check_sysfs/";

struct Fixture {
  xb::System sys = fake_system(2);
  FakeNvml nvml;
  LintInput in;
  std::vector<Finding> out;
  Fixture() {
    for (const auto& g : sys.gpus) nvml.healths[g.pci_bus_id] = healthy_h200();
    in.sys = &sys;
    in.nvml = &nvml;
    in.paths = {kData + "acs_off/sys", kData + "acs_off/proc"};
  }
  xb::NvmlHealth& gpu(int g) { return nvml.healths[sys.gpus[g].pci_bus_id]; }
  // Two GPUs that talk over PCIe P2P, at the bus ids of the recorded tree.
  void pcie_pair(const std::string& tree) {
    sys.gpus[0].pci_bus_id = "00000000:03:00.0";
    sys.gpus[1].pci_bus_id = "00000000:04:00.0";
    for (int a = 0; a < 2; ++a)
      for (int b = 0; b < 2; ++b)
        if (a != b) sys.links[a][b].kind = xb::LinkKind::pcie;
    in.paths = {kData + tree + "/sys", kData + tree + "/proc"};
  }
  void two_numa_nodes() {
    sys.numa = {{0, "0-31", 64ull << 30, 0, ""}, {1, "32-63", 64ull << 30, 0, ""}};
    sys.gpus[0].numa_node = 0;
    sys.gpus[1].numa_node = 1;
  }
};

void expect_skipped_without_nvml(RuleOutcome (*rule)(const LintInput&, std::vector<Finding>&)) {
  Fixture f;
  f.in.nvml = nullptr;
  f.in.nvml_error = "nvml unavailable: libnvidia-ml.so.1: cannot open shared object file";
  const RuleOutcome o = rule(f.in, f.out);
  EXPECT_EQ(o.status, RuleStatus::skipped) << o.rule;
  EXPECT_NE(o.note.find("libnvidia-ml"), std::string::npos) << o.note;
  EXPECT_TRUE(f.out.empty());
}

TEST(CheckLint, NvmlRulesAreSkippedNeverPassedWithoutNvml) {
  for (auto rule : {lint_pcie_link, lint_nvlink_count, lint_persistence_mode, lint_clocks, lint_memory_errors,
                    lint_mig_cc})
    expect_skipped_without_nvml(rule);
}

TEST(CheckLint, HealthyNodeIsClean) {
  Fixture f;
  const LintReport r = run_lint(f.in);
  EXPECT_TRUE(r.findings.empty()) << r.findings.front().evidence;
  EXPECT_FALSE(r.failed(true));
  ASSERT_EQ(r.rules.size(), lint_rule_ids().size());
  for (const auto& o : r.rules) EXPECT_NE(o.status, RuleStatus::findings) << o.rule;
}

TEST(CheckLint, PcieWidthBelowMaxIsAnError) {
  Fixture f;
  f.gpu(1).pcie_width_current = 8;
  const RuleOutcome o = lint_pcie_link(f.in, f.out);
  EXPECT_EQ(o.status, RuleStatus::findings);
  ASSERT_EQ(f.out.size(), 1u);
  EXPECT_EQ(f.out[0].severity, Severity::error);
  EXPECT_EQ(f.out[0].subject, "gpu1");
  EXPECT_EQ(f.out[0].evidence, "PCIe trained Gen5 x8 < x16");
}

TEST(CheckLint, PcieGenerationBelowMaxIsConfirmedOnlyUnderLoad) {
  Fixture f;
  f.gpu(0).pcie_gen_current = 1;  // idle power saving
  f.gpu(1).pcie_gen_current = 1;
  LintReport r = run_lint(f.in);
  ASSERT_EQ(r.findings.size(), 2u);
  EXPECT_EQ(r.findings[0].severity, Severity::warn);
  EXPECT_TRUE(r.findings[0].provisional);
  // Under load gpu0 reached Gen5, gpu1 only Gen4.
  recheck_pcie_under_load(r, f.sys, {5, 4});
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].subject, "gpu1");
  EXPECT_EQ(r.findings[0].severity, Severity::error);
  EXPECT_EQ(r.findings[0].evidence, "PCIe at Gen4 < Gen5 under load");
}

TEST(CheckLint, PcieRuleSkipsWhenNvmlHasNoLinkState) {
  Fixture f;
  for (int g = 0; g < 2; ++g) f.gpu(g).pcie_gen_current.reset();
  const RuleOutcome o = lint_pcie_link(f.in, f.out);
  EXPECT_EQ(o.status, RuleStatus::skipped);
}

TEST(CheckLint, MissingNvlinks) {
  Fixture f;
  f.gpu(0).nvlinks_active = 16;
  RuleOutcome o = lint_nvlink_count(f.in, f.out);
  ASSERT_EQ(f.out.size(), 1u);
  EXPECT_EQ(f.out[0].evidence, "16 of 18 NVLinks active");
  EXPECT_EQ(f.out[0].severity, Severity::error);
  // The spec's count wins over what NVML says the GPU has.
  Fixture g;
  g.in.settings.nvlinks_per_gpu = 18;
  for (int i = 0; i < 2; ++i) g.gpu(i).nvlinks_present = 12;
  g.gpu(0).nvlinks_active = 12;
  g.gpu(1).nvlinks_active = 12;
  o = lint_nvlink_count(g.in, g.out);
  ASSERT_EQ(g.out.size(), 2u);
  EXPECT_NE(g.out[1].evidence.find("12 of 18"), std::string::npos);
}

TEST(CheckLint, NvlinkRuleNotApplicableWithoutLinksOrPeers) {
  Fixture f;
  for (int g = 0; g < 2; ++g) f.gpu(g).nvlinks_present = f.gpu(g).nvlinks_active = 0;
  EXPECT_EQ(lint_nvlink_count(f.in, f.out).status, RuleStatus::not_applicable);
  Fixture one;
  one.sys = fake_system(1);
  one.gpu(0).nvlinks_active = 0;  // a VM slice: links present, no peer
  EXPECT_EQ(lint_nvlink_count(one.in, one.out).status, RuleStatus::not_applicable);
  EXPECT_TRUE(one.out.empty());
}

TEST(CheckLint, PairWithoutPeerAccess) {
  Fixture f;
  f.sys.links[1][0].peer_access = false;
  const RuleOutcome o = lint_peer_access(f.in, f.out);
  EXPECT_EQ(o.status, RuleStatus::findings);
  ASSERT_EQ(f.out.size(), 1u);
  EXPECT_EQ(f.out[0].subject, "gpu0-gpu1");
  Fixture one;
  one.sys = fake_system(1);
  EXPECT_EQ(lint_peer_access(one.in, one.out).status, RuleStatus::not_applicable);
}

TEST(CheckLint, AcsRedirectOnTheSwitchPortBetweenPcieP2pGpus) {
  Fixture f;
  f.pcie_pair("acs_on");
  const RuleOutcome o = lint_pcie_acs(f.in, f.out);
  EXPECT_EQ(o.status, RuleStatus::findings);
  // Only the downstream port above gpu0; the shared upstream port (also
  // 0x001d) is above both GPUs and does not redirect their P2P traffic.
  ASSERT_EQ(f.out.size(), 1u);
  EXPECT_EQ(f.out[0].severity, Severity::error);
  EXPECT_NE(f.out[0].evidence.find("bridge 0000:02:08.0"), std::string::npos) << f.out[0].evidence;
  EXPECT_NE(f.out[0].evidence.find("0x001d (P2P request redirect, P2P completion redirect)"), std::string::npos);
  EXPECT_NE(f.out[0].fix.find("setpci -s 0000:02:08.0 ECAP_ACS+6.w=0"), std::string::npos);
}

TEST(CheckLint, AcsCleanSwitchPassesAndSourceValidationIsNotRedirect) {
  Fixture f;
  f.pcie_pair("acs_off");
  EXPECT_EQ(lint_pcie_acs(f.in, f.out).status, RuleStatus::passed);
  EXPECT_TRUE(f.out.empty());
}

TEST(CheckLint, AcsSkippedWhenConfigSpaceNeedsRoot) {
  Fixture f;
  f.pcie_pair("not_root");
  const RuleOutcome o = lint_pcie_acs(f.in, f.out);
  EXPECT_EQ(o.status, RuleStatus::skipped);
  EXPECT_NE(o.note.find("needs root"), std::string::npos) << o.note;
}

TEST(CheckLint, AcsNotApplicableOverNvlink) {
  Fixture f;
  f.in.paths = {kData + "acs_on/sys", kData + "acs_on/proc"};
  EXPECT_EQ(lint_pcie_acs(f.in, f.out).status, RuleStatus::not_applicable);
}

TEST(CheckLint, IommuTranslationIsAnErrorForPcieP2pGpus) {
  Fixture f;
  f.pcie_pair("acs_on");
  const RuleOutcome o = lint_iommu(f.in, f.out);
  EXPECT_EQ(o.status, RuleStatus::findings);
  ASSERT_EQ(f.out.size(), 1u);  // gpu1's group is identity (passthrough)
  EXPECT_EQ(f.out[0].subject, "gpu0");
  EXPECT_EQ(f.out[0].severity, Severity::error);
  EXPECT_NE(f.out[0].evidence.find("DMA-FQ"), std::string::npos);
  EXPECT_NE(f.out[0].evidence.find("intel_iommu=on"), std::string::npos);
  EXPECT_NE(f.out[0].fix.find("iommu=pt"), std::string::npos);
  Fixture clean;
  clean.pcie_pair("acs_off");
  EXPECT_EQ(lint_iommu(clean.in, clean.out).status, RuleStatus::passed);
  EXPECT_NE(lint_iommu(clean.in, clean.out).note.find("iommu=pt"), std::string::npos);
}

TEST(CheckLint, NumaNodeTheProcessCannotUse) {
  Fixture f;
  f.pcie_pair("acs_on");  // Mems_allowed_list: 1
  f.two_numa_nodes();
  const RuleOutcome o = lint_numa_placement(f.in, f.out);
  EXPECT_EQ(o.status, RuleStatus::findings);
  ASSERT_EQ(f.out.size(), 1u);
  EXPECT_EQ(f.out[0].subject, "gpu0");
  EXPECT_NE(f.out[0].evidence.find("node 1 at distance 21"), std::string::npos) << f.out[0].evidence;
}

TEST(CheckLint, NumaUnknownNodeAndMemorylessNode) {
  Fixture f;
  f.two_numa_nodes();
  f.sys.gpus[0].numa_node = -1;
  f.sys.numa[1].memory_bytes = 0;
  lint_numa_placement(f.in, f.out);
  ASSERT_EQ(f.out.size(), 2u);
  EXPECT_NE(f.out[0].evidence.find("unknown"), std::string::npos);
  EXPECT_NE(f.out[1].evidence.find("node 1 has no memory"), std::string::npos);
  Fixture one_node;
  EXPECT_EQ(lint_numa_placement(one_node.in, one_node.out).status, RuleStatus::not_applicable);
}

TEST(CheckLint, PersistenceModeOff) {
  Fixture f;
  f.gpu(0).persistence_mode = false;
  EXPECT_EQ(lint_persistence_mode(f.in, f.out).status, RuleStatus::findings);
  ASSERT_EQ(f.out.size(), 1u);
  EXPECT_EQ(f.out[0].severity, Severity::warn);
}

TEST(CheckLint, ThrottledClocksNameNvmlsReason) {
  Fixture f;
  f.gpu(1).clock_reasons = xb::clock_reason::gpu_idle | xb::clock_reason::hw_slowdown | xb::clock_reason::sw_thermal;
  lint_clocks(f.in, f.out);
  ASSERT_EQ(f.out.size(), 1u);
  EXPECT_EQ(f.out[0].severity, Severity::error);
  EXPECT_NE(f.out[0].evidence.find("hw_slowdown, sw_thermal_slowdown"), std::string::npos) << f.out[0].evidence;
  EXPECT_EQ(f.out[0].evidence.find("gpu_idle"), std::string::npos);
}

TEST(CheckLint, ApplicationClocksLockedLow) {
  Fixture f;
  f.gpu(0).app_sm_clock_mhz = 1200;
  f.gpu(0).app_mem_clock_mhz = 1600;
  lint_clocks(f.in, f.out);
  ASSERT_EQ(f.out.size(), 2u);
  EXPECT_EQ(f.out[0].evidence, "applications SM clock locked at 1200 MHz < default 1980 MHz");
  EXPECT_EQ(f.out[1].evidence, "applications memory clock locked at 1600 MHz < max 3201 MHz");
}

TEST(CheckLint, MemoryErrorsPending) {
  Fixture f;
  f.gpu(0).ecc_uncorrected_volatile = 3;
  f.gpu(0).row_remap_pending = true;
  f.gpu(1).row_remap_failure = true;
  f.gpu(1).retired_pages_pending = true;
  f.gpu(1).ecc_pending_change = true;
  lint_memory_errors(f.in, f.out);
  ASSERT_EQ(f.out.size(), 5u);
  EXPECT_EQ(f.out[0].evidence, "3 uncorrected ECC errors since the last driver load");
  EXPECT_EQ(f.out[1].evidence, "row remap pending (takes effect at the next reset)");
  EXPECT_EQ(f.out[4].severity, Severity::warn);  // a pending ECC mode change
}

TEST(CheckLint, MigAndConfidentialComputing) {
  Fixture f;
  f.gpu(1).mig_enabled = true;
  f.nvml.cc = true;
  lint_mig_cc(f.in, f.out);
  ASSERT_EQ(f.out.size(), 2u);
  EXPECT_EQ(f.out[0].subject, "gpu1");
  EXPECT_EQ(f.out[1].subject, "host");
  Fixture unknown;
  for (int g = 0; g < 2; ++g) unknown.gpu(g).mig_enabled.reset();
  EXPECT_EQ(lint_mig_cc(unknown.in, unknown.out).status, RuleStatus::skipped);
}

TEST(CheckLint, SeverityOverrideAndStrict) {
  Fixture f;
  f.gpu(0).persistence_mode = false;
  LintReport r = run_lint(f.in);
  EXPECT_FALSE(r.failed(false));
  EXPECT_TRUE(r.failed(true));  // --strict: a warning fails
  f.in.settings.severity_override["persistence_mode"] = Severity::error;
  r = run_lint(f.in);
  EXPECT_TRUE(r.failed(false));
}

TEST(CheckLint, UnansweredGpuIsNoted) {
  Fixture f;
  f.nvml.healths.erase(f.sys.gpus[1].pci_bus_id);
  const RuleOutcome o = lint_persistence_mode(f.in, f.out);
  EXPECT_EQ(o.status, RuleStatus::passed);
  EXPECT_NE(o.note.find("gpu1"), std::string::npos);
}

TEST(CheckLint, SysfsBusIdFromCudaSpelling) {
  EXPECT_EQ(sysfs_bus_id("00000000:1A:00.0"), "0000:1a:00.0");
  EXPECT_EQ(sysfs_bus_id("0000:1a:00.0"), "0000:1a:00.0");
}

TEST(CheckLint, SeverityParsing) {
  EXPECT_EQ(parse_severity("warn", "x"), Severity::warn);
  EXPECT_THROW(parse_severity("fatal", "x"), xb::Error);
}

}  // namespace
