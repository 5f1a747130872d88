// nvbandwidth's JSON (-j), from xferbench result records: field names and
// types as nvbandwidth v0.8's json_output.cpp writes them, with v0.9's rule
// that min, max and average skip cells that are "N/A". DCGM's nvbandwidth
// plugin checks these types: "CUDA Runtime Version" an integer, matrix
// values strings.
#include <cstring>

#include <fmt/format.h>

#include "report/nvbandwidth.hpp"

namespace xb::report {
namespace {

using json = nlohmann::json;

const Cell* find_cell(const Matrix& m, int row, int col) {
  for (const Cell& c : m.cells)
    if (c.row == row && c.col == col) return &c;
  return nullptr;
}

// Values as nvbandwidth streams a double (six significant digits).
json matrix_rows(const Matrix& m) {
  json rows = json::array();
  for (std::size_t r = 0; r < m.row_labels.size(); ++r) {
    json row = json::array();
    for (std::size_t c = 0; c < m.col_labels.size(); ++c) {
      const Cell* cell = find_cell(m, static_cast<int>(r), static_cast<int>(c));
      row.push_back(cell && cell->value > 0 ? fmt::format("{:g}", cell->value) : std::string("N/A"));
    }
    rows.push_back(row);
  }
  return rows;
}

// nvbandwidth adds each matrix of a case to the same entry: the rows of a
// bidirectional case's three matrices follow one another, and the
// description and aggregates are those of the last (the total).
json passed_case(const CaseResult& c) {
  json entry = {{"name", c.name}, {"status", "Passed"}};
  json rows = json::array();
  for (std::size_t i = 0; i < c.matrices.size(); ++i) {
    for (const json& row : matrix_rows(c.matrices[i])) rows.push_back(row);
    const NvbMatrixStats s = nvb_matrix_stats(c.matrices[i]);
    entry["bandwidth_description"] = nvb_description(c, i);
    entry["sum"] = s.sum;
    entry["min"] = s.min;
    entry["max"] = s.max;
    entry["average"] = s.average;
  }
  entry["bandwidth_matrix"] = rows;
  return entry;
}

json case_entry(const CaseResult& c) {
  if (c.status == CaseStatus::passed) return passed_case(c);
  if (c.status == CaseStatus::waived) {
    json entry = {{"name", c.name}, {"status", "Waived"}};
    if (!c.message.empty()) entry["warning"] = c.message;
    return entry;
  }
  // Failed verification and errors leave no numbers to trust.
  return {{"name", c.name}, {"status", "Error"}, {"error", c.message}};
}

json device_list(const System& sys) {
  json list = json::array();
  for (const GpuInfo& g : sys.gpus)
    list.push_back(fmt::format("{}: {} ({}): ({})", g.index, g.name, nvb_pci_address(g.pci_bus_id), sys.hostname));
  return list;
}

json base_object() {
  return {{"version", nvb_version_text()}, {"git_version", fmt::format("xferbench {}", XFERBENCH_VERSION)},
          {"testcases", json::array()}};
}

}  // namespace

json nvb_json(const RunResult& run) {
  json nvb = base_object();
  nvb["CUDA Runtime Version"] = run.system.cuda_runtime_version;
  nvb["Driver Version"] = run.system.driver_version;
  nvb["GPU Device list"] = device_list(run.system);
  if (run.settings.buffer_bytes < kNvbDefaultBufferBytes) nvb["warning"] = kNvbSmallBufferNote;
  for (const CaseResult& c : run.cases) {
    // Cases the run never reached are left out, as from a stopped nvbandwidth.
    if (std::strcmp(to_string(c.status), "not_run") == 0) continue;
    nvb["testcases"].push_back(case_entry(c));
  }
  return {{"nvbandwidth", nvb}};
}

json nvb_json_not_found(const std::vector<std::string>& names, const std::string& error) {
  json nvb = base_object();
  for (const std::string& n : names) {
    std::string line = nvb_not_found_line(n);
    line.erase(0, std::strlen("ERROR: "));
    nvb["testcases"].push_back({{"name", n}, {"status", "Not Found"}, {"error", line}});
  }
  if (!error.empty()) nvb["error"] = error;
  return {{"nvbandwidth", nvb}};
}

std::string nvb_json_text(const json& doc) { return doc.dump(3) + "\n"; }

}  // namespace xb::report
