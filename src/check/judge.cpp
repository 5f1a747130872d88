#include "check/judge.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "cases/cases.hpp"
#include "base/error.hpp"
#include "base/input_file.hpp"
#include "base/stats.hpp"

namespace xb::check {
namespace {

using json = nlohmann::json;
using P = Pattern;

bool is_host_pattern(P p) {
  switch (p) {
    case P::host_to_device: case P::device_to_host: case P::host_to_device_bidir: case P::device_to_host_bidir:
    case P::all_to_host: case P::all_to_host_bidir: case P::host_to_all: case P::host_to_all_bidir:
    case P::host_device_latency:
      return true;
    default:
      return false;
  }
}

bool is_bidir_host(P p) {
  return p == P::host_to_device_bidir || p == P::device_to_host_bidir || p == P::all_to_host_bidir ||
         p == P::host_to_all_bidir;
}

bool is_fan(P p) {
  return p == P::all_to_one_write || p == P::all_to_one_read || p == P::one_to_all_write || p == P::one_to_all_read;
}

int gpu_of(const std::string& label) {
  return label.rfind("gpu", 0) == 0 ? std::atoi(label.c_str() + 3) : -1;
}

LinkClass peer_class(const json& env, int a, int b) {
  for (const json& l : env.value("gpu_links", json::array()))
    if (l.value("from", -1) == a && l.value("to", -1) == b) return l.value("kind", "") == "pcie" ? LinkClass::pcie_peer : LinkClass::nvlink;
  return LinkClass::nvlink;
}

// The first peer of `g` with peer access: fan cells cross g's links to it.
int first_peer(const json& env, int g) {
  for (const json& l : env.value("gpu_links", json::array()))
    if (l.value("from", -1) == g && l.value("to", -1) != g && l.value("peer_access", false)) return l.value("to", -1);
  return -1;
}

// Link class, link key and the GPU a cell is about, from its case's pattern.
void place(CheckCell& c, P p, const json& env) {
  const int r = gpu_of(c.row), col = gpu_of(c.col);
  if (is_host_pattern(p)) {
    c.gpu = col;
    c.link = is_bidir_host(p) ? LinkClass::pcie_bidir : LinkClass::pcie;
    c.link_key = fmt::format("host<->{}", c.col);
  } else if (p == P::local_copy) {
    c.gpu = col;
    c.link = LinkClass::memory;
    c.link_key = fmt::format("{} memory", c.col);
  } else if (is_fan(p)) {
    c.gpu = col;
    c.link = peer_class(env, col, first_peer(env, col));
    c.link_key = fmt::format("{}<->peers", c.col);
  } else {  // GPU pairs and their latency
    c.gpu = r;
    c.link = peer_class(env, r, col);
    c.link_key = fmt::format("gpu{}<->gpu{}", std::min(r, col), std::max(r, col));
  }
  const json& gpus = env.value("gpus", json::array());
  if (c.gpu >= 0 && c.gpu < static_cast<int>(gpus.size())) c.gpu_name = gpus[c.gpu].value("name", "");
}

const CaseDef* find_case(const std::string& name) {
  for (const auto& d : case_catalogue())
    if (d.name == name) return &d;
  return nullptr;
}

CheckCell read_cell(const json& cell, const json& m, const std::string& case_name, bool latency) {
  const std::string unit = latency ? "ns" : "gbps";
  CheckCell c;
  c.case_name = case_name;
  c.matrix = m.value("name", "");
  c.row = m.at("row_labels").at(cell.at("row").get<std::size_t>()).get<std::string>();
  c.col = m.at("col_labels").at(cell.at("col").get<std::size_t>()).get<std::string>();
  c.key = fmt::format("{} {}[{},{}]", case_name, c.matrix, c.row, c.col);
  c.row_index = cell.at("row").get<int>();
  c.col_index = cell.at("col").get<int>();
  c.latency = latency;
  c.value = cell.at("value_" + unit).get<double>();
  c.stddev = cell.at("stats").value("stddev_" + unit, 0.0);
  c.samples = cell.value("samples", 0);
  c.link_label = cell.value("link", "");
  const json& peak = cell.value("peak", json());
  if (peak.is_object()) {
    c.peak_gbps = peak.value("gbps", 0.0);
    c.peak_formula = peak.value("formula", "");
  }
  c.verification_failed = cell.contains("verification") && cell["verification"].value("status", "") == "failed";
  return c;
}

void require_run(const json& run, const std::string& file) {
  if (!run.is_object() || run.value("schema", "") != "xferbench-run")
    fail(ErrorKind::usage, fmt::format("{} is not an xferbench run result (schema xferbench-run)", file));
  const json version = run.value("schema_version", json());
  if (version != 1)
    fail(ErrorKind::usage,
         fmt::format("{} has xferbench-run schema_version {}: this xferbench reads version 1", file, version.dump()));
}

void judge_spec(CheckCell& c, const Expectation& e, const std::string& file) {
  c.basis = Basis::spec;
  c.source = e.where.empty() ? file : e.where;
  c.why = e.why;
  if (e.threshold.unit == Threshold::Unit::percent_of_peak) {
    c.threshold_pct = e.threshold.value;
    if (c.peak_gbps <= 0) {
      c.note = "the spec gives a percentage of the theoretical peak, which is unknown for this cell";
      return;
    }
    c.threshold = c.peak_gbps * e.threshold.value / 100;
  } else {
    c.threshold = e.threshold.value;
  }
  const bool ok = c.latency ? c.value <= c.threshold : c.value >= c.threshold;
  c.verdict = ok ? CellVerdict::pass : CellVerdict::fail;
}

void judge_baseline(CheckCell& c, const CheckCell& old, const Baseline& b, const CompareOptions& opts) {
  c.basis = Basis::baseline;
  c.source = b.file;
  const CompareEntry e = compare_values(c.key, c.latency ? "ns" : "gbps", old.value, old.stddev, old.samples, c.value,
                                        c.stddev, c.samples, opts);
  c.baseline_value = old.value;
  c.delta_pct = e.delta_pct;
  c.noise_pct = e.noise_pct;
  // The limit a value had to clear, for reports: the tolerance below (or
  // above, for a latency) the baseline, or the noise if that is larger.
  const double allowed = std::max(opts.tolerance_pct, e.noise_pct) / 100 * old.value;
  c.threshold = c.latency ? old.value + allowed : old.value - allowed;
  c.verdict = e.verdict == Verdict::slower ? CellVerdict::fail : CellVerdict::pass;
}

void judge_builtin(CheckCell& c) {
  c.source = "built-in";
  if (c.latency) {
    c.note = "no theoretical bound for a latency: judged only against identical GPUs, a spec or a baseline";
    return;
  }
  c.basis = Basis::builtin;
  c.threshold_pct = builtin_min_pct(c.link);
  if (c.peak_gbps <= 0) {
    c.note = "theoretical peak unknown (NVML unavailable?): give a spec with absolute GB/s or a baseline";
    return;
  }
  c.threshold = c.peak_gbps * c.threshold_pct / 100;
  c.verdict = c.value >= c.threshold ? CellVerdict::pass : CellVerdict::fail;
}

void judge_peers(std::vector<CheckCell>& cells, const JudgeOptions& opts) {
  std::map<std::string, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const CheckCell& c = cells[i];
    groups[c.case_name + "|" + c.matrix + "|" + c.link_label + "|" + c.gpu_name].push_back(i);
  }
  const double bw_min = opts.spec && opts.spec->peer_bandwidth_min_pct ? *opts.spec->peer_bandwidth_min_pct
                                                                        : kPeerBandwidthMinPct;
  const double lat_max = opts.spec && opts.spec->peer_latency_max_pct ? *opts.spec->peer_latency_max_pct
                                                                       : kPeerLatencyMaxPct;
  for (const auto& [key, idx] : groups) {
    if (idx.size() < 2) continue;
    std::vector<double> values;
    for (std::size_t i : idx) values.push_back(cells[i].value);
    const double med = median(values);
    if (med <= 0) continue;
    for (std::size_t i : idx) {
      CheckCell& c = cells[i];
      c.peer_median = med;
      c.peer_count = static_cast<int>(idx.size());
      c.peer_limit_pct = c.latency ? lat_max : bw_min;
      const double pct = c.value / med * 100;
      c.peer_fail = c.latency ? pct > lat_max : pct < bw_min;
      if (c.peer_fail) c.verdict = CellVerdict::fail;
      if (c.verdict == CellVerdict::unjudged) {
        c.verdict = CellVerdict::pass;
        c.basis = Basis::peers;
      }
    }
  }
}

}  // namespace

const char* to_string(CellVerdict v) noexcept {
  switch (v) {
    case CellVerdict::pass: return "pass";
    case CellVerdict::fail: return "fail";
    case CellVerdict::unjudged: return "unjudged";
  }
  return "?";
}

const char* to_string(Basis b) noexcept {
  switch (b) {
    case Basis::spec: return "spec";
    case Basis::baseline: return "baseline";
    case Basis::builtin: return "built-in";
    case Basis::peers: return "peers";
    case Basis::none: return "none";
  }
  return "?";
}

std::string machine_model(const json& env) {
  std::map<std::string, int> names;
  for (const json& g : env.value("gpus", json::array())) ++names[g.value("name", "?")];
  std::string out;
  for (const auto& [name, n] : names) out += fmt::format("{}{} x {}", out.empty() ? "" : " + ", n, name);
  return out.empty() ? "no GPU" : out;
}

double builtin_min_pct(LinkClass link) noexcept {
  switch (link) {
    case LinkClass::pcie: return 75.0;
    case LinkClass::pcie_bidir: return 65.0;
    case LinkClass::nvlink: return 70.0;
    case LinkClass::pcie_peer: return 70.0;
    case LinkClass::memory: return 70.0;
  }
  return 70.0;
}

std::vector<CheckCell> extract_cells(const json& run, const std::string& file) {
  require_run(run, file);
  std::vector<CheckCell> out;
  const json& env = run.value("environment", json::object());
  try {
    for (const json& cs : run.at("cases")) {
      const std::string name = cs.at("name").get<std::string>();
      const CaseDef* def = find_case(name);
      if (!def) continue;  // a case of another version: nothing to judge it by
      for (const json& m : cs.value("matrices", json::array())) {
        const bool latency = m.value("metric", "") == "latency_ns";
        for (const json& cell : m.at("cells")) {
          out.push_back(read_cell(cell, m, name, latency));
          place(out.back(), def->pattern, env);
        }
      }
    }
  } catch (const json::exception& e) {
    fail(ErrorKind::usage, fmt::format("{} is a malformed xferbench run: {}", file, json_error_text(e)));
  }
  return out;
}

std::vector<CaseProblem> case_problems(const json& run) {
  std::vector<CaseProblem> out;
  for (const json& cs : run.value("cases", json::array())) {
    const std::string status = cs.value("status", "passed");
    if (status != "passed") out.push_back({cs.value("name", ""), status, cs.value("message", "")});
  }
  return out;
}

Baseline load_baseline(const json& doc, const std::string& file, const json& environment_now, bool force) {
  Baseline b;
  b.file = file;
  require_run(doc, input_label("--baseline file", file));  // before its machine is read
  const std::string then = machine_model(doc.value("environment", json::object()));
  const std::string now = machine_model(environment_now);
  if (then != now && !force)
    fail(ErrorKind::usage, fmt::format("baseline {} was recorded on {}, this node has {}: refusing to compare "
                                       "different machine models (--force compares anyway)", file, then, now));
  for (auto& c : extract_cells(doc, file)) b.cells.emplace(c.key, std::move(c));
  return b;
}

void judge_cells(std::vector<CheckCell>& cells, const JudgeOptions& opts) {
  for (CheckCell& c : cells) {
    const Expectation* e = opts.spec ? find_expectation(*opts.spec, c.case_name, c.matrix, c.link, c.latency) : nullptr;
    if (e) {
      judge_spec(c, *e, opts.spec->file);
    } else if (opts.baseline && opts.baseline->cells.count(c.key)) {
      judge_baseline(c, opts.baseline->cells.at(c.key), *opts.baseline, opts.compare);
    } else {
      judge_builtin(c);
    }
  }
  judge_peers(cells, opts);
  for (CheckCell& c : cells) {
    if (!c.verification_failed) continue;
    c.verdict = CellVerdict::fail;
    c.note = "data verification failed after the timed copies";
  }
}

double margin(const CheckCell& c) noexcept {
  if (c.threshold <= 0 || c.value <= 0) return 0;
  return c.latency ? c.threshold / c.value : c.value / c.threshold;
}

std::vector<LinkVerdict> link_verdicts(const std::vector<CheckCell>& cells) {
  std::vector<LinkVerdict> out;
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const CheckCell& c = cells[i];
    auto [it, fresh] = index.emplace(c.link_key, out.size());
    if (fresh) out.push_back(LinkVerdict{c.link_key, c.link_label, CellVerdict::unjudged, 0, 0, 0, i});
    LinkVerdict& l = out[it->second];
    ++l.cells;
    const CheckCell& w = cells[l.worst];
    if (c.verdict == CellVerdict::fail) {
      if (l.failed++ == 0 || (margin(c) < margin(w) && w.verdict == CellVerdict::fail)) l.worst = i;
      l.verdict = CellVerdict::fail;
    } else if (c.verdict == CellVerdict::unjudged) {
      ++l.unjudged;
    } else if (l.verdict != CellVerdict::fail) {
      if (l.verdict == CellVerdict::unjudged || (c.threshold > 0 && margin(c) < margin(w))) l.worst = i;
      l.verdict = CellVerdict::pass;
    }
  }
  return out;
}

}  // namespace xb::check
