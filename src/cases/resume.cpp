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

std::string strip_uuid(records::GpuIdentity g) {
  g.uuid.clear();
  return g.text();
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

records::RunIdentity identity_of(const System& sys, const std::vector<std::string>& argv) {
  records::RunIdentity id;
  id.hostname = sys.hostname;
  for (const GpuInfo& g : sys.gpus) id.gpus.push_back({g.index, g.name, g.uuid, g.pci_bus_id});
  id.version = XFERBENCH_VERSION;
  id.git = build_git_hash();
  id.args = comparable_args(argv);
  return id;
}

records::RunIdentity identity_of(const json& doc, const std::string& name) {
  records::RunIdentity id;
  try {
    id = records::decode_identity(doc);
  } catch (const std::exception& e) {
    bad(fmt::format("cannot resume {}: it lacks the machine, build or command line it was made with ({})", name,
                    e.what()));
  }
  id.args = comparable_args(id.args);
  return id;
}

void check_same_identity(const records::RunIdentity& then, const records::RunIdentity& now, const std::string& name) {
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

std::optional<json> read_resume_file(const std::string& path, const std::string& schema) {
  if (path.empty()) return std::nullopt;
  const json doc = read_input_json(path, "--resume file");
  if (!doc.is_object() || string_field(doc, "schema") != schema)
    bad(fmt::format("--resume file '{}' is not an {} result (schema {})", path, schema, field_json_text(doc, "schema")));
  if (!doc.contains("schema_version") || doc.at("schema_version") != 1)
    bad(fmt::format("--resume file '{}' has schema_version {}: this xferbench reads version 1", path,
                    field_json_text(doc, "schema_version")));
  return doc;
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
