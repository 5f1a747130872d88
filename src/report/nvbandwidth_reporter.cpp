// nvbandwidth's formats (report/nvbandwidth.hpp), from xferbench result
// records: its text, case by case as each ends, and its JSON at the end;
// they render named cases only.
// Text, v0.8 layout: column widths, number formats and the order of lines
// follow nvbandwidth v0.8's output.cpp and its matrix printer. v0.10 layout:
// the same, with the differences that v0.10's output shows
// (Azure/azurehpc-health-checks, test/data/nvbandwidth_v0.10_output.txt;
// docs/nvbandwidth.md): the device-to-host and GPU <-> GPU headers, row
// indices only as wide as they need, a COEFFICIENT_OF_VARIATION line after
// each SUM, the note inside the first case. The parsers that wrap
// nvbandwidth key on exactly these.
// JSON (-j): field names and types as nvbandwidth v0.8's json_output.cpp
// writes them, with v0.9's rule that min, max and average skip cells that
// are "N/A". DCGM's nvbandwidth plugin checks these types: "CUDA Runtime
// Version" an integer, matrix values strings.
#include <algorithm>
#include <cctype>
#include <cstring>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "base/error.hpp"
#include "cases/cases.hpp"
#include "report/reporter.hpp"

namespace xb::report {
namespace {

// nvbandwidth v0.8's arrow between the row and the column for each pattern.
const char* arrow(Pattern p) {
  switch (p) {
    case Pattern::host_to_device: case Pattern::host_to_all: case Pattern::d2d_read:
    case Pattern::all_to_one_read: case Pattern::one_to_all_write:
      return "->";
    case Pattern::device_to_host: case Pattern::all_to_host: case Pattern::d2d_write:
    case Pattern::all_to_one_write: case Pattern::one_to_all_read:
      return "<-";
    default:
      return "<->";
  }
}

constexpr int kNvbandwidthCatalogue = 35;  // nvbandwidth v0.8's cases: indices 0-34

std::string capitalized(std::string s) {
  if (!s.empty()) s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
  return s;
}

// The catalogue entry of a result's case; nullptr for a name it lacks.
const CaseDef* nvb_case_def(const std::string& name) {
  for (const CaseDef& d : case_catalogue())
    if (d.name == name) return &d;
  return nullptr;
}

// What the version lines and JSON say the program is.
std::string nvb_version_text(NvbLayout layout = NvbLayout::v0_10) {
  return fmt::format("xferbench {} (nvbandwidth {} output)", XFERBENCH_VERSION,
                     layout == NvbLayout::v0_8 ? "v0.8" : "v0.10");
}

// v0.10's header where it differs from v0.8's: a device-to-host matrix is
// "GPU(row) -> CPU(column)" (v0.8: "CPU(row) <- GPU(column)"), and a
// GPU <-> GPU read points from the column to the row, a write from the row
// to the column (v0.8 the other way round). Empty where v0.10 words it as v0.8.
std::string v010_description(Pattern p, const std::string& engine) {
  switch (p) {
    case Pattern::device_to_host: case Pattern::all_to_host:
      return fmt::format("memcpy {} GPU(row) -> CPU(column) bandwidth (GB/s)", engine);
    case Pattern::d2d_read:
      return fmt::format("memcpy {} GPU(row) <- GPU(column) bandwidth (GB/s)", engine);
    case Pattern::d2d_write:
      return fmt::format("memcpy {} GPU(row) -> GPU(column) bandwidth (GB/s)", engine);
    default:
      return "";
  }
}

}  // namespace

NvbMatrixStats nvb_matrix_stats(const Matrix& m) {
  NvbMatrixStats s;
  for (const Cell& c : m.cells) {
    if (!(c.value > 0)) continue;  // nvbandwidth counts only positive cells
    s.min = s.count == 0 ? c.value : std::min(s.min, c.value);
    s.max = s.count == 0 ? c.value : std::max(s.max, c.value);
    s.sum += c.value;
    ++s.count;
    if (c.stats.count >= 2) {
      s.cov = std::max(s.cov, c.stats.cov);
      s.has_cov = true;
    }
  }
  if (s.count > 0) s.average = s.sum / s.count;
  return s;
}

NvbLayout parse_nvb_layout(const std::string& version) {
  const std::string v = !version.empty() && version[0] == 'v' ? version.substr(1) : version;
  if (v == "0.8") return NvbLayout::v0_8;
  if (v == "0.10") return NvbLayout::v0_10;
  fail(ErrorKind::usage, fmt::format("invalid --nvbandwidth-version '{}': use 0.8 or 0.10", version));
}

std::string nvb_description(const CaseResult& c, std::size_t index, NvbLayout layout) {
  if (index >= c.matrices.size()) return "";
  // nvbandwidth's own header for its 35 cases; xferbench's title for the
  // cases it adds (indices 35 and up), which nvbandwidth never printed.
  const CaseDef* def = nvb_case_def(c.name);
  if (!def || def->index >= kNvbandwidthCatalogue) return c.matrices[index].title;
  const std::string engine = def->engine == Engine::sm ? "SM" : "CE";
  if (layout == NvbLayout::v0_10)
    if (std::string v010 = v010_description(def->pattern, engine); !v010.empty()) return v010;
  switch (def->pattern) {
    case Pattern::host_device_latency: return "memory latency SM CPU(row) <-> GPU(column) (ns)";
    case Pattern::d2d_latency: return "Device to Device Latency SM GPU(row) <-> GPU(column) (ns)";
    case Pattern::local_copy: return "memcpy local GPU(column) bandwidth (GB/s)";
    case Pattern::d2d_bidir_read: case Pattern::d2d_bidir_write:
      return fmt::format("memcpy {} GPU(row) <-> GPU(column) {} bandwidth (GB/s)", engine,
                         capitalized(c.matrices[index].name));
    default:
      return fmt::format("memcpy {} {}(row) {} GPU(column) bandwidth (GB/s)", engine,
                         is_host_copy(def->pattern) ? "CPU" : "GPU", arrow(def->pattern));
  }
}

std::string nvb_key(const CaseResult& c, std::size_t index) {
  if (index >= c.matrices.size() || c.matrices[index].name.empty()) return c.name;
  return c.name + "_" + c.matrices[index].name;
}

std::string nvb_pci_address(const std::string& bus_id) {
  // "DOMAIN:BUS:DEVICE.FUNCTION"; nvbandwidth prints the domain with eight
  // hex digits and leaves the function out.
  const auto first = bus_id.find(':');
  const auto second = first == std::string::npos ? std::string::npos : bus_id.find(':', first + 1);
  if (second == std::string::npos) return bus_id;
  std::string domain = bus_id.substr(0, first);
  if (domain.size() < 8) domain.insert(0, 8 - domain.size(), '0');
  std::string out = domain + ":" + bus_id.substr(first + 1, bus_id.find('.', first) - first - 1);
  for (char& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

// --- text ------------------------------------------------------------------

namespace {

// A matrix as nvbandwidth prints it: a corner as wide as the row indices
// (v0.8: two characters; v0.10: as many as the largest index has digits),
// column indices and values ten characters wide, row indices instead of
// labels, "N/A" where nothing was measured.
void grid(std::ostream& os, const Matrix& m, NvbLayout layout) {
  const std::size_t width =
      layout == NvbLayout::v0_8 ? 2 : fmt::format("{}", m.row_labels.empty() ? 0 : m.row_labels.size() - 1).size();
  fmt::print(os, "{:{}}", "", width);
  for (std::size_t c = 0; c < m.col_labels.size(); ++c) fmt::print(os, "{:>10}", c);
  fmt::print(os, "\n");
  for (std::size_t r = 0; r < m.row_labels.size(); ++r) {
    fmt::print(os, "{:>{}}", r, width);
    for (std::size_t c = 0; c < m.col_labels.size(); ++c) {
      const Cell* cell = find_cell(m, static_cast<int>(r), static_cast<int>(c));
      fmt::print(os, "{:>10}", cell ? fmt::format("{:.2f}", cell->value) : "N/A");
    }
    fmt::print(os, "\n");
  }
}

constexpr const char* kNote =
    "NOTE: xferbench measured these values and prints them in nvbandwidth's layout.\n"
    "Other drivers, clocks or topologies can give other numbers on the same hardware.\n";

// `note_due`: print the note after this matrix's lines (v0.10), and clear it.
void matrix_block(std::ostream& os, const CaseResult& c, std::size_t index, const NvbOptions& o, bool& note_due) {
  const Matrix& m = c.matrices[index];
  const std::string key = nvb_key(c, index);
  const NvbMatrixStats s = nvb_matrix_stats(m);
  fmt::print(os, "{}\n", nvb_description(c, index, o.layout));
  grid(os, m, o.layout);
  fmt::print(os, "\n");
  if (o.perf_formatter) {
    fmt::print(os, "&&&& PERF {} {:.2f} {}\n", key, s.sum, m.metric == Metric::latency_ns ? "-ns" : "+GB/s");
  } else {
    fmt::print(os, "SUM {} {:.2f}\n", key, s.sum);
  }
  // v0.10 prints the line for every matrix; with fewer than two samples per
  // cell there is no spread to report (0.00).
  if (o.layout == NvbLayout::v0_10) fmt::print(os, "COEFFICIENT_OF_VARIATION {} {:.2f}\n", key, s.has_cov ? s.cov : 0.0);
  if (o.verbose) fmt::print(os, "MIN {} {:.2f}\nMAX {} {:.2f}\nAVG {} {:.2f}\n", key, s.min, key, s.max, key, s.average);
  if (note_due) fmt::print(os, "{}", kNote);
  note_due = false;
  fmt::print(os, "\n");
}

void print_case(std::ostream& os, const CaseResult& c, const NvbOptions& o, bool& note_due) {
  // A case the run never reached (interrupted, out of time) prints nothing,
  // as an nvbandwidth stopped before it would.
  if (std::strcmp(to_string(c.status), "not_run") == 0) return;
  if (c.status == CaseStatus::waived) return fmt::print(os, "Waived: \n");
  fmt::print(os, "Running {}.\n", c.name);
  // A failed verification or an error leaves no trustworthy numbers, so
  // the case prints its error instead of matrices (nvbandwidth stops).
  if (c.status != CaseStatus::passed) return fmt::print(os, "Error: {}\n", c.message);
  if (o.verbose) nvb_sample_lines(os, c);
  for (std::size_t i = 0; i < c.matrices.size(); ++i) matrix_block(os, c, i, o, note_due);
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

void NvbTextPrinter::header(const System& sys, std::uint64_t buffer_bytes) {
  fmt::print(os_, "nvbandwidth Version: {}\nBuilt from Git version: xferbench {}\n\n", nvb_version_text(options_.layout),
             XFERBENCH_VERSION);
  if (buffer_bytes < kNvbDefaultBufferBytes) fmt::print(os_, "{}\n", kNvbSmallBufferNote);
  fmt::print(os_, "CUDA Runtime Version: {}\nCUDA Driver Version: {}\nDriver Version: {}\n\n", sys.cuda_runtime_version,
             sys.cuda_driver_version, sys.driver_version);
  fmt::print(os_, "{}\n", sys.hostname);
  for (const GpuInfo& g : sys.gpus) fmt::print(os_, "Device {}: {} ({})\n", g.index, g.name, nvb_pci_address(g.pci_bus_id));
  fmt::print(os_, "\n");
  note_due_ = options_.layout == NvbLayout::v0_10;
  if (!note_due_) fmt::print(os_, "{}\n", kNote);
}

void NvbTextPrinter::test_case(const CaseResult& c) { print_case(os_, c, options_, note_due_); }

void nvb_text_case(std::ostream& os, const CaseResult& c, const NvbOptions& o) {
  bool no_note = false;
  print_case(os, c, o, no_note);
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

// --- JSON ------------------------------------------------------------------

namespace {

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
    entry["bandwidth_description"] = nvb_description(c, i, NvbLayout::v0_8);  // the JSON keeps v0.8's words
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

json base_object() {
  return {{"version", nvb_version_text()}, {"git_version", fmt::format("xferbench {}", XFERBENCH_VERSION)},
          {"testcases", json::array()}};
}

}  // namespace

json nvb_json(const RunResult& run) {
  json nvb = base_object();
  nvb["CUDA Runtime Version"] = run.system.cuda_runtime_version;
  nvb["Driver Version"] = run.system.driver_version;
  const System& sys = run.system;
  json& gpus = nvb["GPU Device list"] = json::array();
  for (const GpuInfo& g : sys.gpus)
    gpus.push_back(fmt::format("{}: {} ({}): ({})", g.index, g.name, nvb_pci_address(g.pci_bus_id), sys.hostname));
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

// --- the reporters ---------------------------------------------------------

namespace {

class NvbandwidthFormat : public Reporter {
 public:
  NvbandwidthFormat(const std::string& format, std::ostream& out) : Reporter(out), format_(format) {}

  bool nvbandwidth_run() const override { return true; }
  void cases() override {
    std::vector<const CaseDef*> all;
    for (const CaseDef& d : case_catalogue()) all.push_back(&d);
    nvb_text_list(out_, all);
  }
  void require(Kind kind) const override {
    if (kind == Kind::plan) fail(ErrorKind::usage, "--dry-run writes its plan as text or JSON, not --format " + format_);
    if (kind == Kind::scenario)
      fail(ErrorKind::usage, "--format " + format_ +
                               " applies to named cases (-t, -p, --suite), not to transfers (--do, --htod, --dtoh, --dtod)");
  }

 private:
  std::string format_;
};

class NvbandwidthText : public NvbandwidthFormat {
 public:
  NvbandwidthText(std::ostream& out, std::ostream& err, const ReportOptions& o)
      : NvbandwidthFormat("nvbandwidth", out), err_(err), printer_(out, o) {}

  bool streams() const override { return true; }
  void run_begin(const RunResult& header) override {
    printer_.header(header.system, header.settings.buffer_bytes);
    out_.flush();
  }
  void run_case(const CaseResult& c) override {
    printer_.test_case(c);
    out_.flush();
    if (const std::string why = nvb_waiver_line(c); !why.empty()) err_ << why << "\n";
  }

 private:
  std::ostream& err_;
  NvbTextPrinter printer_;
};

class NvbandwidthJson : public NvbandwidthFormat {
 public:
  explicit NvbandwidthJson(std::ostream& out) : NvbandwidthFormat("nvbandwidth-json", out) {}

  void run(const RunResult& r) override { out_ << nvb_json_text(nvb_json(r)); }
  // nvbandwidth -j reports a fatal error in its JSON.
  void run_failed(const std::string& message) override { out_ << nvb_json_text(nvb_json_not_found({}, message)); }
};

}  // namespace

std::unique_ptr<Reporter> nvbandwidth_reporter(const std::string& format, std::ostream& out, std::ostream& err,
                                               const ReportOptions& o) {
  if (format == "nvbandwidth") return std::make_unique<NvbandwidthText>(out, err, o);
  return std::make_unique<NvbandwidthJson>(out);
}

}  // namespace xb::report
