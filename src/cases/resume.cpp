#include "cases/resume.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/build_info.hpp"
#include "base/error.hpp"
#include "base/input_file.hpp"

namespace xb {

using json = nlohmann::json;

namespace {

[[noreturn]] void bad(const std::string& message) { fail(ErrorKind::usage, message); }

// Options whose value may differ between the interrupted run and its resume.
bool neutral_with_value(const std::string& a) {
  return a == "--resume" || a == "--time-limit" || a == "-o" || a == "--output" || a == "--format";
}

bool neutral_flag(const std::string& a) {
  static const char* const prefixes[] = {"--resume=", "--time-limit=", "--output=", "--format=", "-o"};
  if (a == "-j" || a == "--json" || a == "-q" || a == "--quiet") return true;
  for (const char* p : prefixes)
    if (a.rfind(p, 0) == 0 && a.size() > std::string(p).size()) return true;
  return false;
}

std::string strip_uuid(GpuIdentity g) {
  g.uuid.clear();
  return g.text();
}

Cell cell_from_json(const json& j, Metric metric) {
  const std::string unit = metric == Metric::bandwidth_gbps ? "gbps" : "ns";
  Cell c;
  c.row = j.at("row").get<int>();
  c.col = j.at("col").get<int>();
  c.value = j.at("value_" + unit).get<double>();
  c.samples = j.at("samples_" + unit).get<std::vector<double>>();
  c.stats = summary_from_json(j.at("stats"), unit, j.value("samples", 0));
  c.link = j.value("link", "");
  c.outlier = j.value("outlier", false);
  c.note = j.value("note", "");
  c.error = j.value("error", "");
  c.invalid = j.value("invalid", false);
  c.invalid_reason = j.value("invalid_reason", "");
  if (metric == Metric::bandwidth_gbps) {
    c.bytes_per_copy = j.value("bytes_per_copy", std::uint64_t{0});
    c.copies_per_sample = j.value("copies_per_sample", 0);
    c.gated = j.value("gated", true);
    c.peak = peak_from_json(j.value("peak", json()));
    c.efficiency = j.value("efficiency", json()).is_number() ? j["efficiency"].get<double>() : 0.0;
    const std::string v = j.at("verification").value("status", "skipped");
    c.verification.status = v == "passed"   ? Verification::Status::passed
                            : v == "failed" ? Verification::Status::failed
                                            : Verification::Status::skipped;
    c.verification.first_bad_offset = j.at("verification").value("first_bad_offset", std::uint64_t{0});
  } else {
    c.bytes_per_copy = j.value("buffer_bytes", std::uint64_t{0});
    c.copies_per_sample = j.value("accesses_per_sample", 0);
  }
  return c;
}

CaseStatus case_status_from(const std::string& s, const std::string& name) {
  for (CaseStatus c : {CaseStatus::passed, CaseStatus::failed, CaseStatus::waived, CaseStatus::error, CaseStatus::not_run})
    if (s == to_string(c)) return c;
  bad(fmt::format("{}: unknown case status '{}'", name, s));
}

CaseResult case_from_json(const json& j, const std::string& name) {
  CaseResult c;
  c.index = j.at("index").get<int>();
  c.name = j.at("name").get<std::string>();
  c.description = j.value("description", "");
  c.status = case_status_from(j.value("status", "passed"), name);
  c.message = j.value("message", "");
  c.wall_seconds = j.value("wall_seconds", 0.0);
  for (const json& mj : j.at("matrices")) {
    Matrix m;
    m.name = mj.value("name", "");
    m.title = mj.value("title", "");
    m.metric = mj.value("metric", "bandwidth_gbps") == "latency_ns" ? Metric::latency_ns : Metric::bandwidth_gbps;
    m.row_labels = mj.at("row_labels").get<std::vector<std::string>>();
    m.col_labels = mj.at("col_labels").get<std::vector<std::string>>();
    for (const json& cj : mj.at("cells")) m.cells.push_back(cell_from_json(cj, m.metric));
    c.matrices.push_back(std::move(m));
  }
  return c;
}

bool parse_key(const std::string& key, std::string& name, int& row, int& col) {
  const auto open = key.rfind('[');
  const auto comma = key.find(',', open);
  if (open == std::string::npos || comma == std::string::npos || key.back() != ']') return false;
  name = key.substr(0, open);
  try {
    row = std::stoi(key.substr(open + 1, comma - open - 1));
    col = std::stoi(key.substr(comma + 1));
  } catch (const std::exception&) {
    return false;
  }
  return true;
}

const Cell* find_cell(const Matrix& m, int row, int col) {
  for (const Cell& c : m.cells)
    if (c.row == row && c.col == col) return &c;
  return nullptr;
}

int badness(CaseStatus s) {
  return s == CaseStatus::error ? 2 : s == CaseStatus::failed ? 1 : 0;
}

// `fresh` skipped the cells `old` has: old's cells go first (they were
// measured first), the case keeps the worse verdict of the two.
void merge_case(CaseResult& fresh, const CaseResult& old) {
  if (fresh.status == CaseStatus::waived) return;
  if (fresh.matrices.size() < old.matrices.size()) fresh.matrices.resize(old.matrices.size());
  for (std::size_t m = 0; m < old.matrices.size(); ++m) {
    Matrix& into = fresh.matrices[m];
    if (into.title.empty()) into = Matrix{old.matrices[m].name, old.matrices[m].title, old.matrices[m].metric,
                                          old.matrices[m].row_labels, old.matrices[m].col_labels, {}};
    std::vector<Cell> cells = old.matrices[m].cells;
    for (Cell& c : into.cells)
      if (!find_cell(old.matrices[m], c.row, c.col)) cells.push_back(std::move(c));
    into.cells = std::move(cells);
  }
  fresh.wall_seconds += old.wall_seconds;
  if (badness(old.status) > badness(fresh.status)) {
    fresh.status = old.status;
    fresh.message = old.message;
  } else if (fresh.status == CaseStatus::not_run && old.status == CaseStatus::not_run && fresh.matrices.empty()) {
    fresh.message = old.message;
  }
}

}  // namespace

std::string GpuIdentity::text() const {
  return fmt::format("gpu{} {}{} {}", index, name, uuid.empty() ? "" : " " + uuid, bus_id);
}

Summary summary_from_json(const json& stats, const std::string& unit, int count) {
  Summary s;
  s.count = count;
  s.median = stats.value("median_" + unit, 0.0);
  s.mean = stats.value("mean_" + unit, 0.0);
  s.min = stats.value("min_" + unit, 0.0);
  s.max = stats.value("max_" + unit, 0.0);
  s.stddev = stats.value("stddev_" + unit, 0.0);
  s.cov = stats.value("cov", 0.0);
  return s;
}

std::vector<std::string> comparable_args(const std::vector<std::string>& argv) {
  std::vector<std::string> out;
  for (std::size_t i = 1; i < argv.size(); ++i) {
    if (neutral_with_value(argv[i])) {
      ++i;
      continue;
    }
    if (!neutral_flag(argv[i])) out.push_back(argv[i]);
  }
  // "xferbench -o r.json" is "xferbench run -o r.json".
  if (!out.empty() && out.front() == "run") out.erase(out.begin());
  return out;
}

RunIdentity identity_of(const System& sys, const std::vector<std::string>& argv) {
  RunIdentity id;
  id.hostname = sys.hostname;
  for (const GpuInfo& g : sys.gpus) id.gpus.push_back(GpuIdentity{g.index, g.name, g.uuid, g.pci_bus_id});
  id.version = XFERBENCH_VERSION;
  id.git = build_git_hash();
  id.args = comparable_args(argv);
  return id;
}

RunIdentity identity_of(const json& doc, const std::string& name) {
  RunIdentity id;
  try {
    const json& env = doc.at("environment");
    id.hostname = env.at("hostname").get<std::string>();
    for (const json& g : env.at("gpus"))
      id.gpus.push_back(GpuIdentity{g.at("index").get<int>(), g.at("name").get<std::string>(), g.value("uuid", ""),
                                    g.at("pci_bus_id").get<std::string>()});
    id.version = doc.at("tool").at("version").get<std::string>();
    id.git = doc.at("tool").value("git", "");
    id.args = comparable_args(doc.at("command_line").get<std::vector<std::string>>());
  } catch (const json::exception& e) {
    bad(fmt::format("cannot resume {}: it lacks the machine, build or command line it was made with ({})", name,
                    e.what()));
  }
  return id;
}

void check_same_identity(const RunIdentity& then, const RunIdentity& now, const std::string& name) {
  const std::string head = fmt::format("cannot resume {}:", name);
  if (then.hostname != now.hostname)
    bad(fmt::format("{} it comes from another machine (host '{}', this is '{}')", head, then.hostname, now.hostname));
  if (then.gpus.size() != now.gpus.size())
    bad(fmt::format("{} it was measured on {} GPU(s), this machine has {}", head, then.gpus.size(), now.gpus.size()));
  for (std::size_t g = 0; g < then.gpus.size(); ++g) {
    // Results written before GPU UUIDs were recorded are matched on name and bus id.
    const std::string mine = then.gpus[g].uuid.empty() ? strip_uuid(now.gpus[g]) : now.gpus[g].text();
    if (then.gpus[g].text() != mine)
      bad(fmt::format("{} it comes from other GPUs ('{}', this machine has '{}')", head, then.gpus[g].text(), mine));
  }
  if (then.version != now.version || (!then.git.empty() && !now.git.empty() && then.git != now.git))
    bad(fmt::format("{} it was written by another build (xferbench {}{}, this is {}{})", head, then.version,
                    then.git.empty() ? "" : " " + then.git, now.version, now.git.empty() ? "" : " " + now.git));
  if (then.args != now.args)
    bad(fmt::format("{} it was measured with other settings ('{}'; this run has '{}'): run the same command with "
                    "--resume added", head, fmt::join(then.args, " "), fmt::join(now.args, " ")));
}

json read_result_file(const std::string& path, const std::string& schema) {
  const json doc = read_input_json(path, "--resume file");
  if (!doc.is_object() || doc.value("schema", "") != schema)
    bad(fmt::format("--resume file '{}' is not an {} result (schema '{}')", path, schema,
                    doc.is_object() ? doc.value("schema", "") : std::string()));
  if (doc.value("schema_version", 0) != 1)
    bad(fmt::format("--resume file '{}' has schema_version {}: this xferbench reads version 1", path,
                    doc.value("schema_version", json()).dump()));
  return doc;
}

std::optional<json> read_resume_file(const std::string& path, const std::string& schema) {
  if (path.empty()) return std::nullopt;
  return read_result_file(path, schema);
}

std::vector<CaseResult> cases_from_json(const json& cases, const std::string& name) {
  std::vector<CaseResult> out;
  try {
    for (const json& c : cases) out.push_back(case_from_json(c, name));
  } catch (const json::exception& e) {
    bad(fmt::format("{} is a malformed xferbench-run result: {}", name, e.what()));
  }
  return out;
}

RunResult run_from_json(const json& doc, const std::string& name) {
  RunResult r;
  r.resumed_from = name;
  if (!doc.contains("cases")) bad(fmt::format("{} is a malformed xferbench-run result: no \"cases\"", name));
  r.cases = cases_from_json(doc.at("cases"), name);
  return r;
}

bool has_cell(const RunResult& r, const std::string& key) {
  std::string name;
  int row = 0, col = 0;
  if (!parse_key(key, name, row, col)) return false;
  for (const CaseResult& c : r.cases)
    if (c.name == name && !c.matrices.empty() && find_cell(c.matrices[0], row, col)) return true;
  return false;
}

void merge_resumed(RunResult& fresh, const RunResult& old) {
  for (CaseResult& c : fresh.cases) {
    const auto it = std::find_if(old.cases.begin(), old.cases.end(), [&](const CaseResult& o) { return o.name == c.name; });
    if (it != old.cases.end()) merge_case(c, *it);
  }
  fresh.resumed_from = old.resumed_from;
}

}  // namespace xb
