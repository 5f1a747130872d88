// Machines we cannot borrow: a topology fixture per GPU kind
// (tests/data/topology/kind-*.json, from the public documents of
// src/machine/gpu_models.cpp), and public nvbandwidth figures
// (tests/data/public/*.json, each with its issue's URL) turned into xferbench
// run records by the planner on that fixture: the records' links and peaks
// are the code's own. Each record is then judged by `check --judge` as the
// issue describes the node.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "cases/case_plan.hpp"
#include "cases/runner.hpp"
#include "check/lint.hpp"
#include "check/spec.hpp"
#include "fake_nvml.hpp"
#include "fake_source.hpp"
#include "in_process.hpp"
#include "records/run_json.hpp"
#include "records/topology_file.hpp"

namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

std::string src(const std::string& rel) { return std::string(XB_SOURCE_DIR) + "/" + rel; }
xb::System topology(const std::string& name) { return xb::load_topology_file(src("tests/data/topology/" + name)); }
json read_json(const std::string& path) { return json::parse(std::ifstream(path)); }

std::vector<std::string> public_files() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(src("tests/data/public")))
    if (e.is_regular_file() && e.path().extension() == ".json") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

// The run record of one published run: every figure placed in its case's
// planned cell on `sys`, with that cell's link and peak; above-peak cells
// marked as a measuring run marks them.
xb::RunResult record_of(const xb::System& sys, const json& run, const std::string& url) {
  xb::RunResult r;
  r.system = sys;
  r.command_line = {"xferbench", "(public figures of " + url + ")"};
  r.settings.buffer_bytes = run.at("buffer_mib").get<std::uint64_t>() << 20;
  for (const auto& [name, figures] : run.at("cases").items()) {
    const xb::CaseDef* def = xb::check::find_case(name);
    if (def == nullptr) throw std::runtime_error("no case " + name);
    const xb::CasePlan plan = xb::plan_case(*def, sys, r.settings.buffer_bytes);
    xb::CaseResult& c = r.cases.emplace_back();
    c.index = static_cast<int>(r.cases.size()) - 1;
    c.name = def->name;
    c.matrices = plan.matrices;
    for (const auto& f : figures) {
      const std::string row = f.at(0), col = f.at(1);
      const double gbps = f.at(2);
      const auto cp = std::find_if(plan.cells.begin(), plan.cells.end(), [&](const xb::CellPlan& p) {
        return plan.matrices[0].row_labels.at(p.row) == row && plan.matrices[0].col_labels.at(p.col) == col;
      });
      if (cp == plan.cells.end()) throw std::runtime_error(name + ": no planned cell " + row + " -> " + col);
      const xb::Output& o = cp->outputs.at(0);
      xb::Cell cell;
      cell.row = cp->row;
      cell.col = cp->col;
      cell.value = gbps;
      cell.samples = {gbps};
      cell.stats = xb::summarize(cell.samples);
      cell.bytes_per_copy = r.settings.buffer_bytes;
      cell.link = o.link;
      cell.peak = o.peak;
      cell.efficiency = o.peak.known() ? gbps / o.peak.gbps : 0;
      c.matrices.at(static_cast<std::size_t>(o.matrix)).cells.push_back(cell);
    }
    xb::mark_impossible_cells(c);
  }
  return r;
}

// `check --judge` on the record, in-process; its JSON report.
json judge(const xb::RunResult& r, const std::string& name) {
  const std::string path = ::testing::TempDir() + "/public-" + name + ".json";
  std::ofstream(path) << xb::records::run_json(r).dump(1);
  const InProcessRun run = run_in_process({"check", "--judge", path, "--format", "json"},
                                          [](const xb::MeasureOptions&) { return std::make_unique<FakeSource>(1); });
  EXPECT_TRUE(run.code == 0 || run.code == 1) << name << ": exit " << run.code << "\n" << run.err;
  const json doc = json::parse(run.out);
  return doc.contains("check") ? doc.at("check") : doc.at("result").at("check");
}

std::vector<std::string> failing_links(const json& check) {
  std::vector<std::string> out;
  for (const auto& l : check.at("links"))
    if (l.at("verdict") == "fail") out.push_back(l.at("link"));
  return out;
}

}  // namespace

TEST(GpuKinds, EveryKindFixtureAgreesWithTheModelTable) {
  for (const auto& e : fs::directory_iterator(src("tests/data/topology"))) {
    const std::string file = e.path().filename().string();
    if (file.rfind("kind-", 0) != 0) continue;
    const xb::System sys = topology(file);
    const xb::GpuInfo& g = sys.gpus.at(0);
    const xb::GpuModel* m = xb::find_gpu_model(g.name);
    if (file == "kind-a6000.json") {  // the cards of nvbandwidth#50: not a data-centre kind
      EXPECT_EQ(m, nullptr);
      continue;
    }
    ASSERT_NE(m, nullptr) << file << ": " << g.name;
    EXPECT_EQ(file, "kind-" + std::string(m->key) + ".json");
    EXPECT_NE(std::string(m->source).find("https://www.nvidia.com/"), std::string::npos) << m->key;
    EXPECT_EQ(g.host_link_kind, m->host_link) << file;
    const xb::Peak host = m->host_link == xb::HostLinkKind::c2c ? xb::c2c_peak(m->c2c_gbps_total, m->source)
                                                                 : xb::pcie_peak(m->pcie_gen, 16);
    EXPECT_DOUBLE_EQ(g.host_link.gbps, host.gbps) << file;
    EXPECT_EQ(g.host_link.formula, host.formula) << file;
    EXPECT_EQ(g.nvlink_count, m->nvlinks) << file;
    for (int b = 1; b < sys.gpu_count(); ++b) {
      const xb::PeerLink& l = sys.link(0, b);
      if (l.kind == xb::LinkKind::nvlink)
        EXPECT_DOUBLE_EQ(l.peak.gbps, m->nvlinks * m->nvlink_gbps_per_link) << file;
      else
        EXPECT_NE(std::string(m->nvlink_fabric), "NVSwitch") << file << ": gpu0 -> gpu" << b;
      EXPECT_EQ(l.peer_access, m->peer_access_expected || l.kind == xb::LinkKind::nvlink) << file;
    }
  }
}

TEST(GpuKinds, ModelTableMatchesCudaNames) {
  const std::vector<std::pair<std::string, std::string>> names = {
      {"NVIDIA GH200 480GB", "gh200"},    {"NVIDIA GB200", "gb200"},          {"NVIDIA B200", "b200"},
      {"NVIDIA H200 NVL", "h200-nvl"},    {"NVIDIA H200", "h200-sxm"},        {"NVIDIA H100 NVL", "h100-nvl"},
      {"NVIDIA H100 PCIe", "h100-pcie"},  {"NVIDIA H100 80GB HBM3", "h100-sxm"}, {"NVIDIA A100-SXM4-40GB", "a100-sxm"},
      {"NVIDIA A100 80GB PCIe", "a100-pcie"}, {"NVIDIA L40S", "l40s"}};
  for (const auto& [name, key] : names) {
    const xb::GpuModel* m = xb::find_gpu_model(name);
    ASSERT_NE(m, nullptr) << name;
    EXPECT_EQ(m->key, key) << name;
  }
  EXPECT_EQ(xb::find_gpu_model("NVIDIA RTX A6000"), nullptr);
}

TEST(GpuKinds, HostLinkDetectionOrder) {
  xb::GpuInfo h200;
  h200.name = "NVIDIA H200";
  h200.host_link = xb::pcie_peak(5, 16);
  xb::classify_host_link(h200, std::nullopt, false);  // a PCIe H200: unchanged
  EXPECT_EQ(h200.host_link_kind, xb::HostLinkKind::pcie);
  EXPECT_NEAR(h200.host_link.gbps, 63.015, 1e-3);
  xb::GpuInfo gh = h200;
  gh.name = "NVIDIA GH200 480GB";
  xb::classify_host_link(gh, std::nullopt, false);  // the model alone
  EXPECT_EQ(gh.host_link_kind, xb::HostLinkKind::c2c);
  EXPECT_DOUBLE_EQ(gh.host_link.gbps, 450.0);
  EXPECT_NE(gh.host_link_evidence.find("GPU model 'gh200'"), std::string::npos);
  xb::GpuInfo off = h200;
  xb::classify_host_link(off, false, true);  // NVML says C2C is off on a PCIe model: it decides
  EXPECT_EQ(off.host_link_kind, xb::HostLinkKind::pcie);
  xb::GpuInfo gh_off = gh;
  gh_off.host_link_evidence.clear();
  gh_off.host_link_kind = xb::HostLinkKind::pcie;
  xb::classify_host_link(gh_off, false, false);  // a GH200 whose NVML says off: C2C, and said so
  EXPECT_EQ(gh_off.host_link_kind, xb::HostLinkKind::c2c);
  EXPECT_NE(gh_off.host_link_evidence.find("NVML reports C2C mode off"), std::string::npos);
  xb::GpuInfo gh_on = h200;
  gh_on.name = "NVIDIA GH200 480GB";
  xb::classify_host_link(gh_on, true, false);
  EXPECT_EQ(gh_on.host_link_evidence, "NVML nvmlDeviceGetC2cModeInfoV: C2C enabled");
  xb::GpuInfo attrs = h200;
  attrs.name = "NVIDIA GB300";  // not in the table: coherent attributes say C2C, peak unknown
  xb::classify_host_link(attrs, std::nullopt, true);
  EXPECT_EQ(attrs.host_link_kind, xb::HostLinkKind::c2c);
  EXPECT_FALSE(attrs.host_link.known());
  EXPECT_EQ(xb::host_link_label(attrs), "NVLink-C2C");
}

TEST(GpuKinds, C2cMachinesHaveGraceAndGpuMemoryNodes) {
  const xb::System gh = topology("kind-gh200.json");
  ASSERT_EQ(gh.numa.size(), 2u);
  EXPECT_EQ(gh.numa[0].kind, "grace_lpddr5x");
  EXPECT_EQ(gh.numa[1].kind, "gpu_memory");
  EXPECT_EQ(gh.gpus[0].memory_numa_node, 1);
  EXPECT_TRUE(gh.gpus[0].memory_visible_to_cpu);
  xb::System again = gh;
  for (auto& n : again.numa) n.kind.clear();
  xb::classify_numa_nodes(again);
  EXPECT_EQ(again.numa[1].kind, "gpu_memory");
  // A PCIe machine's nodes keep no kind (its records are unchanged).
  xb::System h200 = topology("h200x2.json");
  xb::classify_numa_nodes(h200);
  EXPECT_EQ(h200.numa.at(0).kind, "");
  xb::RunResult r;
  r.system = h200;
  const std::string text = xb::records::run_json(r).dump();
  EXPECT_NE(text.find("\"peak_host_link\""), std::string::npos);
  for (const char* key : {"\"host_link\"", "\"memory_numa_node\"", "\"kind\":\"grace"}) EXPECT_EQ(text.find(key), std::string::npos) << key;
  r.system = gh;
  EXPECT_NE(xb::records::run_json(r).dump().find("\"host_link\":\"nvlink_c2c\""), std::string::npos);
}

TEST(GpuKinds, DryRunPlansEveryKind) {
  for (const auto& e : fs::directory_iterator(src("tests/data/topology"))) {
    const std::string file = e.path().filename().string();
    if (file.rfind("kind-", 0) != 0) continue;
    const InProcessRun run = run_in_process({"run", "--dry-run", "--topology", e.path().string()}, {});
    EXPECT_EQ(run.code, 0) << file << "\n" << run.err;
    EXPECT_NE(run.out.find("host_to_device_memcpy_ce"), std::string::npos) << file;
  }
}

TEST(PublicResults, NoPublishedFigureIsAboveItsLinksPeak) {
  int figures = 0;
  for (const std::string& path : public_files()) {
    const json doc = read_json(path);
    ASSERT_EQ(doc.at("url").get<std::string>().rfind("https://github.com/NVIDIA/nvbandwidth/issues/", 0), 0u);
    const xb::System sys = topology(doc.at("topology"));
    for (const json& run : doc.at("runs")) {
      const xb::RunResult r = record_of(sys, run, doc.at("url"));
      for (const auto& c : r.cases) {
        EXPECT_EQ(c.status, xb::CaseStatus::passed) << path << " " << c.name << ": " << c.message;
        for (const auto& m : c.matrices)
          for (const auto& cell : m.cells) {
            ++figures;
            ASSERT_TRUE(cell.peak.known()) << path << " " << c.name;
            EXPECT_LE(cell.value, cell.peak.gbps) << path << " " << c.name << " " << cell.link;
            EXPECT_FALSE(cell.invalid) << cell.invalid_reason;
          }
      }
    }
  }
  EXPECT_GE(figures, 52);
}

// The records, as files a user can judge (tests/data/public/records): each
// must be what the planner makes of its figures today, the tool's version
// aside; XFERBENCH_UPDATE_GOLDEN=1 rewrites them.
void expect_committed(const xb::RunResult& r, const std::string& name) {
  const std::string path = src("tests/data/public/records/" + name + ".json");
  json fresh = xb::records::run_json(r);
  const char* update = std::getenv("XFERBENCH_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream(path) << fresh.dump(1) << "\n";
    return;
  }
  ASSERT_TRUE(fs::exists(path)) << path << " is missing; write it with XFERBENCH_UPDATE_GOLDEN=1";
  json committed = read_json(path);
  fresh.erase("tool");
  committed.erase("tool");
  EXPECT_EQ(fresh, committed) << path << " differs from its figures planned today (XFERBENCH_UPDATE_GOLDEN=1 rewrites it)";
}

TEST(PublicResults, CheckJudgesEachRunAsItsIssueSaid) {
  for (const std::string& path : public_files()) {
    const json doc = read_json(path);
    const xb::System sys = topology(doc.at("topology"));
    for (const json& run : doc.at("runs")) {
      const std::string name = fs::path(path).stem().string() + "-" + run.at("buffer_mib").dump() + "mib";
      const xb::RunResult r = record_of(sys, run, doc.at("url"));
      expect_committed(r, name);
      const json check = judge(r, name);
      EXPECT_EQ(check.at("verdict"), run.at("expect")) << name << " (" << doc.at("url") << ")";
      EXPECT_EQ(failing_links(check), run.at("failing_links").get<std::vector<std::string>>()) << name;
    }
  }
}

TEST(PublicResults, Gh200HostCellsAtTheirShareOfC2cAndAbovePcie) {
  const json doc = read_json(src("tests/data/public/nvbandwidth-23-gh200.json"));
  const json& run = doc.at("runs").at(0);
  const xb::RunResult c2c = record_of(topology("kind-gh200.json"), run, doc.at("url"));
  for (const auto& c : c2c.cases) {
    const xb::Cell& cell = c.matrices.at(0).cells.at(0);
    EXPECT_EQ(cell.link, "NVLink-C2C");
    EXPECT_DOUBLE_EQ(cell.peak.gbps, 450.0);
    EXPECT_EQ(cell.peak.formula, "NVLink-C2C: 900 GB/s both directions / 2");
    EXPECT_NEAR(cell.efficiency, cell.value / 450.0, 1e-12);
    EXPECT_GT(cell.efficiency, 0.75);
  }
  const json check = judge(c2c, "gh200-c2c");
  EXPECT_EQ(check.at("verdict"), "pass");
  int host_cells = 0;
  for (const auto& c : check.at("cells")) {
    EXPECT_EQ(c.at("link_class"), "c2c");
    EXPECT_EQ(c.at("link_label"), "NVLink-C2C");
    const double pct = 100 * c.at("value_gbps").get<double>() / 450.0;
    EXPECT_TRUE(std::abs(pct - 346.0 / 4.5) < 0.01 || std::abs(pct - 342.0 / 4.5) < 0.01) << pct;
    ++host_cells;
  }
  EXPECT_EQ(host_cells, 2);
  // The same figures on a GH200 modelled as PCIe Gen5 x16: above the peak,
  // so the cases fail and the check with them (the old protection stays).
  xb::System pcie = topology("kind-gh200.json");
  pcie.gpus[0].host_link_kind = xb::HostLinkKind::pcie;
  pcie.gpus[0].host_link = xb::pcie_peak(5, 16);
  pcie.gpus[0].pcie_gen_max = 5;
  pcie.gpus[0].pcie_width_max = 16;
  const xb::RunResult r = record_of(pcie, run, doc.at("url"));
  for (const auto& c : r.cases) {
    EXPECT_EQ(c.status, xb::CaseStatus::failed) << c.name;
    ASSERT_EQ(c.matrices.at(0).cells.size(), 1u);
    EXPECT_TRUE(c.matrices[0].cells[0].invalid);
    EXPECT_NE(c.message.find("% of the theoretical peak 63.02 GB/s"), std::string::npos) << c.message;
  }
  const json under_pcie = judge(r, "gh200-pcie");
  EXPECT_EQ(under_pcie.at("verdict"), "fail");
  EXPECT_EQ(under_pcie.at("case_problems").size(), 2u);
}

TEST(PublicResults, SpecFilesOfUnmeasuredKindsSayWhereTheirNumbersCameFrom) {
  for (const char* name : {"gh200.toml", "gb200.toml", "b200.toml"}) {
    const std::string path = src(std::string("share/xferbench/check/") + name);
    const xb::check::CheckSpec spec = xb::check::parse_spec_file(path);
    std::ifstream f(path);
    const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("NOT FROM A RUN OF OURS"), std::string::npos) << name;
    EXPECT_EQ(spec.lint.nvlinks_per_gpu, 18) << name;
    for (const auto& e : spec.expect) EXPECT_NE(e.why.find("NVIDIA/nvbandwidth#23"), std::string::npos) << name;
  }
  // nvbandwidth#23's figures pass the GH200 spec.
  const json doc = read_json(src("tests/data/public/nvbandwidth-23-gh200.json"));
  const std::string path = ::testing::TempDir() + "/public-gh200-spec.json";
  std::ofstream(path) << xb::records::run_json(record_of(topology("kind-gh200.json"), doc.at("runs").at(0),
                                                          doc.at("url"))).dump(1);
  const InProcessRun run = run_in_process(
      {"check", "--judge", path, "--spec", src("share/xferbench/check/gh200.toml"), "--summary"},
      [](const xb::MeasureOptions&) { return std::make_unique<FakeSource>(1); });
  EXPECT_EQ(run.code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("PASS"), std::string::npos) << run.out;
}

TEST(GpuKindsLint, C2cLinkRuleOnGh200AndPcieRuleStandsAside) {
  using namespace xb::check;
  const xb::System gh = topology("kind-gh200.json");
  FakeNvml nvml;
  xb::NvmlHealth h = healthy_h200();
  h.pcie_width_current = 8;  // what NVML says of PCIe does not matter on C2C
  h.c2c_enabled = true;
  h.c2c_links = 10;
  h.c2c_links_active = 10;
  nvml.healths[gh.gpus[0].pci_bus_id] = h;
  LintInput in;
  in.sys = &gh;
  in.nvml = &nvml;
  std::vector<Finding> out;
  EXPECT_EQ(lint_c2c_link(in, out).status, RuleStatus::passed);
  EXPECT_EQ(lint_pcie_link(in, out).status, RuleStatus::not_applicable);
  EXPECT_TRUE(out.empty());
  nvml.healths[gh.gpus[0].pci_bus_id].c2c_links_active = 9;
  EXPECT_EQ(lint_c2c_link(in, out).status, RuleStatus::findings);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].severity, Severity::error);
  EXPECT_EQ(out[0].evidence, "9 of 10 NVLink-C2C links active");
  out.clear();
  nvml.healths[gh.gpus[0].pci_bus_id].c2c_enabled = false;
  lint_c2c_link(in, out);
  ASSERT_FALSE(out.empty());
  EXPECT_NE(out[0].evidence.find("C2C mode off"), std::string::npos);
  // A PCIe machine: not applicable, and pcie_link still judges.
  const xb::System h200 = topology("h200x2.json");
  in.sys = &h200;
  out.clear();
  EXPECT_EQ(lint_c2c_link(in, out).status, RuleStatus::not_applicable);
  in.nvml = nullptr;
  EXPECT_EQ(lint_c2c_link(in, out).status, RuleStatus::not_applicable);
}

TEST(GpuKindsLint, MissingPeerAccessIsInfoOnL40sAndAnErrorElsewhere) {
  using namespace xb::check;
  for (const auto& [file, severity] : {std::pair{"kind-l40s.json", Severity::info},
                                       std::pair{"kind-a6000.json", Severity::error}}) {
    xb::System sys = topology(file);
    for (auto& row : sys.links)
      for (auto& l : row)
        if (l.kind != xb::LinkKind::self) l.peer_access = false;
    LintInput in;
    in.sys = &sys;
    std::vector<Finding> out;
    lint_peer_access(in, out);
    ASSERT_FALSE(out.empty()) << file;
    for (const auto& f : out) EXPECT_EQ(f.severity, severity) << file << ": " << f.evidence;
  }
}

TEST(GpuKindsLint, NvlinkCountExpectsTheModelsLinksOnASwitchedBaseboard) {
  using namespace xb::check;
  const xb::System b200 = topology("kind-b200.json");
  FakeNvml nvml;
  for (const auto& g : b200.gpus) {
    xb::NvmlHealth h = healthy_h200();
    h.nvlinks_present = 16;  // NVML short of links: the model's 18 still count
    h.nvlinks_active = 16;
    nvml.healths[g.pci_bus_id] = h;
  }
  LintInput in;
  in.sys = &b200;
  in.nvml = &nvml;
  std::vector<Finding> out;
  EXPECT_EQ(lint_nvlink_count(in, out).status, RuleStatus::findings);
  ASSERT_EQ(out.size(), 8u);
  EXPECT_NE(out[0].evidence.find("16 of 18 NVLinks active (the b200 count"), std::string::npos) << out[0].evidence;
  in.settings.nvlinks_per_gpu = 16;  // a spec's count wins
  out.clear();
  EXPECT_EQ(lint_nvlink_count(in, out).status, RuleStatus::passed);
}
