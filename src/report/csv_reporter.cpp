// The CSV format: a header row, then one row per cell (or transfer, size,
// node), at the end.
#include <fmt/format.h>

#include "base/error.hpp"
#include "cases/cases.hpp"
#include "report/fabric_report.hpp"
#include "report/reporter.hpp"

namespace xb::report {

std::string csv_escape(const std::string& field) {
  if (field.find_first_of(",\"\n") == std::string::npos) return field;
  std::string out = "\"";
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

namespace {

// One row per measured cell, with a header row.
std::string run_csv(const RunResult& run) {
  std::string out =
      "case_index,case,status,matrix,metric,row,col,value,median,mean,min,max,stddev,cov,samples,"
      "bytes_per_copy,copies_per_sample,link,peak_gbps,efficiency,verification,outlier,invalid,invalid_reason,error,"
      "p50,p95,p99\n";
  for (const auto& c : run.cases) {
    if (c.matrices.empty()) {
      out += fmt::format("{},{},{},,,,,,,,,,,,,,,,,,,,,,{},,,\n", c.index, c.name, to_string(c.status),
                         csv_escape(c.status == CaseStatus::waived ? std::string() : c.message));
      continue;
    }
    for (const auto& m : c.matrices) {
      for (const auto& cell : m.cells) {
        out += fmt::format("{},{},{},{},{},{},{},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{},{},{},{},{},{},{},{},{},{},{},{:.6g},{:.6g},{:.6g}\n",
                           c.index, c.name, to_string(c.status), csv_escape(m.name), to_string(m.metric),
                           csv_escape(m.row_labels[cell.row]), csv_escape(m.col_labels[cell.col]), cell.value,
                           cell.stats.median, cell.stats.mean, cell.stats.min, cell.stats.max, cell.stats.stddev,
                           cell.stats.cov, cell.stats.count, cell.bytes_per_copy, cell.copies_per_sample,
                           csv_escape(cell.link), cell.peak.known() ? fmt::format("{:.6g}", cell.peak.gbps) : "",
                           cell.peak.known() ? fmt::format("{:.6g}", cell.efficiency) : "",
                           to_string(cell.verification.status), cell.outlier ? "true" : "false",
                           cell.invalid ? "true" : "false", csv_escape(cell.invalid_reason), csv_escape(cell.error),
                           cell.stats.median, cell.stats.p95, cell.stats.p99);
      }
    }
  }
  return out;
}

std::string peak_fields(const Peak& p) {
  if (!p.known()) return ",,";
  return fmt::format("{:.9g},{},{}", p.gbps, csv_escape(p.formula), csv_escape(p.source));
}

std::string link_row(const std::string& from, const std::string& to, const std::string& kind, const std::string& link,
                     int nvlinks, bool peer_access, const Peak& peak) {
  return fmt::format("link,,,,,,,,,,,,,{},{},{},{},{},{},{}\n", from, to, kind, csv_escape(link), nvlinks,
                     peer_access ? "true" : "false", peak_fields(peak));
}

std::string gpu_row(const GpuInfo& g) {
  return fmt::format("gpu,{},{},{},{}.{},{},{},{},Gen{} x{},Gen{} x{},{},,,,,,,{},,,,\n", g.index, csv_escape(g.name),
                     csv_escape(g.pci_bus_id), g.cc_major, g.cc_minor, g.sm_count, g.memory_bytes, g.numa_node,
                     g.pcie_gen_current, g.pcie_width_current, g.pcie_gen_max, g.pcie_width_max, g.copy_engines,
                     g.nvlink_count);
}

// 'xferbench list' as CSV: one table with a `record` column, because it
// holds three kinds of rows (GPUs, links with their theoretical peaks, NUMA
// nodes); columns that do not apply to a record are empty.
// record=gpu: id, name, pci_bus_id, compute_capability, sm_count,
//   memory_bytes, numa_node, pcie_current, pcie_max, nvlinks, copy_engines.
// record=link: from, to, kind (pcie|memory|nvlink|none), link, nvlinks,
//   peer_access, peak_gbps, peak_formula, peak_source: host->gpuN over
//   PCIe, gpuN->gpuN device memory, gpuA->gpuB for every pair.
// record=numa: id, cpus, memory_bytes, free_bytes.
std::string system_csv(const System& sys) {
  std::string out =
      "record,id,name,pci_bus_id,compute_capability,sm_count,memory_bytes,numa_node,pcie_current,pcie_max,copy_engines,"
      "free_bytes,cpus,from,to,kind,link,nvlinks,peer_access,peak_gbps,peak_formula,peak_source\n";
  for (const auto& g : sys.gpus) out += gpu_row(g);
  for (const auto& g : sys.gpus) {
    const std::string gpu = fmt::format("gpu{}", g.index);
    out += link_row("host", gpu, to_string(g.host_link_kind), host_link_label(g), 0, false, g.host_link);
    out += link_row(gpu, gpu, "memory", "device memory", 0, true, g.memory);
  }
  for (int a = 0; a < sys.gpu_count(); ++a) {
    for (int b = 0; b < sys.gpu_count(); ++b) {
      if (a == b) continue;
      const PeerLink& l = sys.link(a, b);
      const std::string name = l.kind == LinkKind::nvlink ? fmt::format("NVLink x{}", l.nvlinks)
                               : l.kind == LinkKind::pcie ? "PCIe peer" : "none";
      out += link_row(fmt::format("gpu{}", a), fmt::format("gpu{}", b), to_string(l.kind), name, l.nvlinks,
                      l.peer_access, l.peak);
    }
  }
  for (const auto& n : sys.numa)
    out += fmt::format("numa,{},,,,,{},,,,,{},{},,,,,,,,,\n", n.id, n.memory_bytes, n.free_bytes, csv_escape(n.cpus));
  return out;
}

// 'xferbench cases' as CSV: index, name, engine, description.
std::string cases_csv() {
  std::string out = "index,name,engine,description,name_origin\n";
  for (const auto& d : case_catalogue())
    out += fmt::format("{},{},{},{},{}\n", d.index, csv_escape(d.name), to_string(d.engine), csv_escape(d.description),
                       csv_escape(d.origin));
  return out;
}

class CsvReporter : public Reporter {
 public:
  using Reporter::Reporter;

  void require(Kind kind) const override {
    if (kind == Kind::plan) fail(ErrorKind::usage, "--dry-run writes its plan as text or JSON, not CSV");
  }
  void run(const RunResult& r) override { out_ << run_csv(r); }
  void cases() override { out_ << cases_csv(); }
  void system(const System& sys) override { out_ << system_csv(sys); }
  void sweep(const SweepResult& r) override { out_ << sweep_csv(r); }
  void sm_sweep(const SmSweepResult& r) override { out_ << sm_sweep_csv(r); }
  void scenario(const ScenarioResult& r) override { out_ << scenario_csv(r); }
  void scenario_resumed(const std::string&, const ScenarioResult&) override {
    fail(ErrorKind::usage, "--resume of a complete scenario result writes JSON; use --format json");
  }
  void pingpong(const pingpong::Result& r, const std::vector<std::string>&) override { out_ << pingpong_csv(r); }
  void first_touch(const firsttouch::Result& r, const std::vector<std::string>&) override {
    out_ << first_touch_csv(r);
  }
  void compare(const CompareResult& r, const std::string&, const std::string&) override { out_ << compare_csv(r); }
  void fleet(const fleet::Fleet& f) override { out_ << fleet_csv(f); }
  void fabric(const fabric::Result& r) override { out_ << fabric_csv(r); }
};

}  // namespace

std::unique_ptr<Reporter> csv_reporter(std::ostream& out) { return std::make_unique<CsvReporter>(out); }

}  // namespace xb::report
