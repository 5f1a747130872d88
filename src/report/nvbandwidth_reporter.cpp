// nvbandwidth's formats (report/nvbandwidth.hpp), from xferbench result
// records: its text, case by case as each ends, and its JSON at the end;
// they render named cases only.
// Text: column widths, number formats and the order of lines as real
// nvbandwidth output shows them, v0.8's (bench/results/2026-11-23-h200/
// nvbandwidth-v0.8.txt, and its output.cpp) and v0.10.0's
// (tests/data/nvbandwidth-v0.10.0-public/, two public reports). The two
// differ in the preamble and in v0.10's COEFFICIENT_OF_VARIATION line; the
// parsers that wrap nvbandwidth key on exactly these lines.
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
                     layout == NvbLayout::v0_8 ? "v0.8" : "v0.10.0");
}

// "13.0 (13000)": a CUDA version number as v0.10 prints it.
std::string cuda_version_text(int v) { return fmt::format("{}.{} ({})", v / 1000, v % 1000 / 10, v); }

}  // namespace

NvbMatrixStats nvb_matrix_stats(const Matrix& m) {
  NvbMatrixStats s;
  for (const Cell& c : m.cells) {
    // What nvbandwidth would print: the figure measured its way where the
    // cell has one (records/result.hpp, NvbandwidthWay).
    const double v = nvbandwidth_value(c);
    const Summary& st = nvbandwidth_stats(c);
    if (!(v > 0)) continue;  // nvbandwidth counts only positive cells
    s.min = s.count == 0 ? v : std::min(s.min, v);
    s.max = s.count == 0 ? v : std::max(s.max, v);
    s.sum += v;
    ++s.count;
    if (st.count >= 2) {
      s.cov = std::max(s.cov, st.cov);
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

std::string nvb_description(const CaseResult& c, std::size_t index) {
  if (index >= c.matrices.size()) return "";
  // nvbandwidth's own header for its 35 cases; xferbench's title for the
  // cases it adds (indices 35 and up), which nvbandwidth never printed.
  const CaseDef* def = nvb_case_def(c.name);
  if (!def || def->index >= kNvbandwidthCatalogue) return c.matrices[index].title;
  const std::string engine = def->engine == Engine::sm ? "SM" : "CE";
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

// A matrix as nvbandwidth prints it: a two-character corner, column
// indices and values ten characters wide, row indices two characters wide
// instead of labels, "N/A" where nothing was measured.
void grid(std::ostream& os, const Matrix& m) {
  fmt::print(os, "  ");
  for (std::size_t c = 0; c < m.col_labels.size(); ++c) fmt::print(os, "{:>10}", c);
  fmt::print(os, "\n");
  for (std::size_t r = 0; r < m.row_labels.size(); ++r) {
    fmt::print(os, "{:>2}", r);
    for (std::size_t c = 0; c < m.col_labels.size(); ++c) {
      const Cell* cell = find_cell(m, static_cast<int>(r), static_cast<int>(c));
      fmt::print(os, "{:>10}", cell ? fmt::format("{:.2f}", nvbandwidth_value(*cell)) : "N/A");
    }
    fmt::print(os, "\n");
  }
}

// nvbandwidth's note after the last case, word for word: clients that
// follow its output see the lines they expect. The version lines say that
// xferbench measured.
constexpr const char* kNote =
    "NOTE: The reported results may not reflect the full capabilities of the platform.\n"
    "Performance can vary with software drivers, hardware clocks, and system topology.\n";

// v0.10 prints COEFFICIENT_OF_VARIATION once per case, after the SUM of its
// last matrix (a bidirectional GPU <-> GPU case: after "_total"), and not
// for the GPU <-> GPU latency case.
bool cov_after(const CaseResult& c, std::size_t index, const NvbOptions& o) {
  if (o.layout != NvbLayout::v0_10 || index + 1 != c.matrices.size()) return false;
  const CaseDef* def = nvb_case_def(c.name);
  return !def || def->pattern != Pattern::d2d_latency;
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
  // With fewer than two samples per cell there is no spread to report (0.00).
  if (cov_after(c, index, o)) fmt::print(os, "COEFFICIENT_OF_VARIATION {} {:.2f}\n", key, s.has_cov ? s.cov : 0.0);
  if (o.verbose) fmt::print(os, "MIN {} {:.2f}\nMAX {} {:.2f}\nAVG {} {:.2f}\n", key, s.min, key, s.max, key, s.average);
  fmt::print(os, "\n");
}

void print_case(std::ostream& os, const CaseResult& c, const NvbOptions& o) {
  // A case the run never reached (interrupted, out of time) prints nothing,
  // as an nvbandwidth stopped before it would.
  if (std::strcmp(to_string(c.status), "not_run") == 0) return;
  if (c.status == CaseStatus::waived) return fmt::print(os, "Waived: \n");
  fmt::print(os, "Running {}.\n", c.name);
  // A failed verification or an error leaves no trustworthy numbers, so
  // the case prints its error instead of matrices (nvbandwidth stops).
  if (c.status != CaseStatus::passed) return fmt::print(os, "Error: {}\n", c.message);
  if (o.verbose) nvb_sample_lines(os, c);
  for (std::size_t i = 0; i < c.matrices.size(); ++i) matrix_block(os, c, i, o);
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
  const bool v08 = options_.layout == NvbLayout::v0_8;
  fmt::print(os_, "nvbandwidth Version: {}\nBuilt from Git version: xferbench {}\n\n", nvb_version_text(options_.layout),
             XFERBENCH_VERSION);
  if (buffer_bytes < kNvbDefaultBufferBytes) fmt::print(os_, "{}\n", kNvbSmallBufferNote);
  if (v08) {
    fmt::print(os_, "CUDA Runtime Version: {}\nCUDA Driver Version: {}\n", sys.cuda_runtime_version,
               sys.cuda_driver_version);
  } else {
    fmt::print(os_, "CUDA Runtime Version: {}\nCUDA Driver Version (API): {}\n", cuda_version_text(sys.cuda_runtime_version),
               cuda_version_text(sys.cuda_driver_version));
  }
  fmt::print(os_, "Driver Version: {}\n\n", sys.driver_version);
  if (!v08) return;  // v0.10.0 names neither the host nor the GPUs
  fmt::print(os_, "{}\n", sys.hostname);
  for (const GpuInfo& g : sys.gpus) fmt::print(os_, "Device {}: {} ({})\n", g.index, g.name, nvb_pci_address(g.pci_bus_id));
  fmt::print(os_, "\n");
}

void NvbTextPrinter::not_found_lines(std::size_t before) {
  for (; reported_ < options_.not_found.size() && options_.not_found[reported_].before <= before; ++reported_)
    fmt::print(os_, "{}\n", nvb_not_found_line(options_.not_found[reported_].name));
}

void NvbTextPrinter::test_case(const CaseResult& c) {
  not_found_lines(cases_++);
  print_case(os_, c, options_);
}

void NvbTextPrinter::footer() {
  not_found_lines(static_cast<std::size_t>(-1));
  // v0.8 ends with a blank line after the note; the v0.10.0 files end with the note.
  fmt::print(os_, "{}{}", kNote, options_.layout == NvbLayout::v0_8 ? "\n" : "");
}

void nvb_text_case(std::ostream& os, const CaseResult& c, const NvbOptions& o) { print_case(os, c, o); }

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
    const std::vector<double>& samples = nvbandwidth_samples(cell);
    for (std::size_t s = 0; s < samples.size(); ++s) {
      if (total_case(*def)) {
        fmt::print(os, "\tSample {}: Total Bandwidth : {:.2f} GB/s\n", s, samples[s]);
        continue;
      }
      for (std::size_t m = 0; m < c.matrices.size(); ++m) {
        const std::string ends = endpoints(*def, m, cell.row, cell.col);
        const Cell* same = find_cell(c.matrices[m], cell.row, cell.col);
        if (ends.empty() || c.matrices[m].name == "total" || !same || s >= nvbandwidth_samples(*same).size()) continue;
        fmt::print(os, "\tSample {}: {}: {:.2f} GB/s\n", s, ends, nvbandwidth_samples(*same)[s]);
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
      row.push_back(cell && nvbandwidth_value(*cell) > 0 ? fmt::format("{:g}", nvbandwidth_value(*cell))
                                                         : std::string("N/A"));
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
  // DCGM rejects the whole document for an empty matrix; a case without rows has none.
  if (!rows.empty()) entry["bandwidth_matrix"] = rows;
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

// The keys nvbandwidth always writes (DCGM's plugin rejects a document
// without any of them), from what is known of the machine.
json base_object(const System& sys) {
  return {{"CUDA Runtime Version", sys.cuda_runtime_version}, {"Driver Version", sys.driver_version},
          {"version", nvb_version_text()}, {"git_version", fmt::format("xferbench {}", XFERBENCH_VERSION)},
          {"testcases", json::array()}};
}

json not_found_entry(const NvbNotFound& n) {
  std::string line = nvb_not_found_line(n.name);
  line.erase(0, std::strlen("ERROR: "));
  return {{"name", n.name}, {"status", "Not Found"}, {"error", line}};
}

}  // namespace

json nvb_json(const RunResult& run, const std::vector<NvbNotFound>& not_found) {
  json nvb = base_object(run.system);
  const System& sys = run.system;
  json& gpus = nvb["GPU Device list"] = json::array();
  for (const GpuInfo& g : sys.gpus)
    gpus.push_back(fmt::format("{}: {} ({}): ({})", g.index, g.name, nvb_pci_address(g.pci_bus_id), sys.hostname));
  if (run.settings.buffer_bytes < kNvbDefaultBufferBytes) nvb["warning"] = kNvbSmallBufferNote;
  auto next = not_found.begin();
  for (std::size_t i = 0; i < run.cases.size(); ++i) {
    for (; next != not_found.end() && next->before <= i; ++next) nvb["testcases"].push_back(not_found_entry(*next));
    // Cases the run never reached are left out, as from a stopped nvbandwidth.
    if (std::strcmp(to_string(run.cases[i].status), "not_run") == 0) continue;
    nvb["testcases"].push_back(case_entry(run.cases[i]));
  }
  for (; next != not_found.end(); ++next) nvb["testcases"].push_back(not_found_entry(*next));
  return {{"nvbandwidth", nvb}};
}

json nvb_json_unmeasured(const System& sys, const std::vector<NvbNotFound>& not_found, const std::string& error) {
  json nvb = base_object(sys);
  for (const NvbNotFound& n : not_found) nvb["testcases"].push_back(not_found_entry(n));
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
  void run(const RunResult&) override { printer_.footer(); }

 private:
  std::ostream& err_;
  NvbTextPrinter printer_;
};

class NvbandwidthJson : public NvbandwidthFormat {
 public:
  NvbandwidthJson(std::ostream& out, const ReportOptions& o)
      : NvbandwidthFormat("nvbandwidth-json", out), not_found_(o.not_found) {}

  void run_begin(const RunResult& header) override { system_ = header.system; }
  void run(const RunResult& r) override { out_ << nvb_json_text(nvb_json(r, not_found_)); }
  // nvbandwidth -j reports a fatal error in its JSON, with the machine's
  // versions when it was read before the error.
  void run_failed(const std::string& message) override {
    out_ << nvb_json_text(nvb_json_unmeasured(system_, not_found_, message));
  }

 private:
  std::vector<NvbNotFound> not_found_;
  System system_;
};

}  // namespace

std::unique_ptr<Reporter> nvbandwidth_reporter(const std::string& format, std::ostream& out, std::ostream& err,
                                               const ReportOptions& o) {
  if (format == "nvbandwidth") return std::make_unique<NvbandwidthText>(out, err, o);
  return std::make_unique<NvbandwidthJson>(out, o);
}

}  // namespace xb::report
