// nvbandwidth's plain-text output, from xferbench result records. Column
// widths, number formats and the order of lines follow nvbandwidth v0.8's
// output.cpp and its matrix printer, plus v0.9's COEFFICIENT_OF_VARIATION
// line; the parsers that wrap nvbandwidth key on exactly these.
#include <cstring>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "cases/cases.hpp"
#include "report/nvbandwidth.hpp"

namespace xb::report {
namespace {

const Cell* find_cell(const Matrix& m, int row, int col) {
  for (const Cell& c : m.cells)
    if (c.row == row && c.col == col) return &c;
  return nullptr;
}

// A matrix as nvbandwidth prints it: a two-character corner, column
// indices and values ten characters wide, row indices instead of labels,
// "N/A" where nothing was measured.
void grid(std::ostream& os, const Matrix& m) {
  fmt::print(os, "  ");
  for (std::size_t c = 0; c < m.col_labels.size(); ++c) fmt::print(os, "{:>10}", c);
  fmt::print(os, "\n");
  for (std::size_t r = 0; r < m.row_labels.size(); ++r) {
    fmt::print(os, "{:>2}", r);
    for (std::size_t c = 0; c < m.col_labels.size(); ++c) {
      const Cell* cell = find_cell(m, static_cast<int>(r), static_cast<int>(c));
      if (cell) {
        fmt::print(os, "{:>10.2f}", cell->value);
      } else {
        fmt::print(os, "{:>10}", "N/A");
      }
    }
    fmt::print(os, "\n");
  }
}

void matrix_block(std::ostream& os, const CaseResult& c, std::size_t index, const NvbOptions& o) {
  const Matrix& m = c.matrices[index];
  const std::string key = nvb_key(c, index);
  const NvbMatrixStats s = nvb_matrix_stats(m);
  fmt::print(os, "{}\n", nvb_description(c, index));
  grid(os, m);
  fmt::print(os, "\n");
  if (o.perf_formatter) {
    fmt::print(os, "&&&& PERF {} {:.2f} {}\n", key, s.sum, m.metric == Metric::latency_ns ? "-ns" : "+GB/s");
  } else {
    fmt::print(os, "SUM {} {:.2f}\n", key, s.sum);
  }
  if (s.has_cov) fmt::print(os, "COEFFICIENT_OF_VARIATION {} {:.2f}\n", key, s.cov);
  if (o.verbose) fmt::print(os, "MIN {} {:.2f}\nMAX {} {:.2f}\nAVG {} {:.2f}\n", key, s.min, key, s.max, key, s.average);
  fmt::print(os, "\n");
}

// "Host -> Device 1", "Device 0 -> Device 1": what moved the bytes behind
// matrix `index`'s cell (row, col); empty for cases without such lines.
std::string endpoints(const CaseDef& d, std::size_t index, int row, int col) {
  const std::string dev_col = fmt::format("Device {}", col), dev_row = fmt::format("Device {}", row);
  switch (d.pattern) {
    case Pattern::host_to_device: case Pattern::host_to_all: case Pattern::host_to_device_bidir:
    case Pattern::host_to_all_bidir:
      return "Host -> " + dev_col;
    case Pattern::device_to_host: case Pattern::all_to_host: case Pattern::device_to_host_bidir:
    case Pattern::all_to_host_bidir:
      return dev_col + " -> Host";
    case Pattern::d2d_read: case Pattern::d2d_bidir_read:
      return index == 0 ? dev_col + " -> " + dev_row : dev_row + " -> " + dev_col;
    case Pattern::d2d_write: case Pattern::d2d_bidir_write:
      return index == 0 ? dev_row + " -> " + dev_col : dev_col + " -> " + dev_row;
    case Pattern::local_copy:
      return dev_col + " -> " + dev_col;
    default:
      return "";
  }
}

bool total_case(const CaseDef& d) {
  return d.pattern == Pattern::all_to_one_write || d.pattern == Pattern::all_to_one_read ||
         d.pattern == Pattern::one_to_all_write || d.pattern == Pattern::one_to_all_read;
}

}  // namespace

void nvb_text_header(std::ostream& os, const System& sys, std::uint64_t buffer_bytes) {
  fmt::print(os, "nvbandwidth Version: {}\nBuilt from Git version: xferbench {}\n\n", nvb_version_text(),
             XFERBENCH_VERSION);
  if (buffer_bytes < kNvbDefaultBufferBytes) fmt::print(os, "{}\n", kNvbSmallBufferNote);
  fmt::print(os, "CUDA Runtime Version: {}\nCUDA Driver Version: {}\nDriver Version: {}\n\n", sys.cuda_runtime_version,
             sys.cuda_driver_version, sys.driver_version);
  fmt::print(os, "{}\n", sys.hostname);
  for (const GpuInfo& g : sys.gpus) fmt::print(os, "Device {}: {} ({})\n", g.index, g.name, nvb_pci_address(g.pci_bus_id));
  fmt::print(os, "\nNOTE: xferbench measured these values and prints them in nvbandwidth's layout.\n"
                 "Other drivers, clocks or topologies can give other numbers on the same hardware.\n\n");
}

void nvb_text_case(std::ostream& os, const CaseResult& c, const NvbOptions& o) {
  // A case the run never reached (interrupted, out of time) prints nothing,
  // as an nvbandwidth stopped before it would.
  if (std::strcmp(to_string(c.status), "not_run") == 0) return;
  if (c.status == CaseStatus::waived) {
    fmt::print(os, "Waived: \n");
    return;
  }
  fmt::print(os, "Running {}.\n", c.name);
  // A failed verification or an error leaves no trustworthy numbers, so
  // the case prints its error instead of matrices (nvbandwidth stops).
  if (c.status != CaseStatus::passed) {
    fmt::print(os, "Error: {}\n", c.message);
    return;
  }
  if (o.verbose) nvb_sample_lines(os, c);
  for (std::size_t i = 0; i < c.matrices.size(); ++i) matrix_block(os, c, i, o);
}

std::string nvb_waiver_line(const CaseResult& c) {
  if (c.status != CaseStatus::waived) return "";
  return fmt::format("nvbandwidth (xferbench): {} waived: {}", c.name, c.message);
}

void nvb_text_list(std::ostream& os, const std::vector<const CaseDef*>& cases) {
  fmt::print(os, "Index, Name:\n\tDescription\n");
  for (const CaseDef* d : cases) fmt::print(os, "{}, {}:\n\t{}\n", d->index, d->name, d->description);
}

void nvb_sample_lines(std::ostream& os, const CaseResult& c) {
  const CaseDef* def = nvb_case_def(c.name);
  if (!def || c.matrices.empty()) return;
  const Matrix& lead = c.matrices[0];
  for (const Cell& cell : lead.cells) {
    for (std::size_t s = 0; s < cell.samples.size(); ++s) {
      if (total_case(*def)) {
        fmt::print(os, "\tSample {}: Total Bandwidth : {:.2f} GB/s\n", s, cell.samples[s]);
        continue;
      }
      for (std::size_t m = 0; m < c.matrices.size(); ++m) {
        const std::string ends = endpoints(*def, m, cell.row, cell.col);
        const Cell* same = find_cell(c.matrices[m], cell.row, cell.col);
        if (ends.empty() || c.matrices[m].name == "total" || !same || s >= same->samples.size()) continue;
        fmt::print(os, "\tSample {}: {}: {:.2f} GB/s\n", s, ends, same->samples[s]);
      }
    }
  }
}

std::string nvb_not_found_line(const std::string& name_or_index) {
  const bool index = !name_or_index.empty() &&
                     name_or_index.find_first_not_of("0123456789") == std::string::npos;
  return index ? fmt::format("ERROR: Testcase index {} out of bound!", name_or_index)
               : fmt::format("ERROR: Testcase {} not found!", name_or_index);
}

}  // namespace xb::report
