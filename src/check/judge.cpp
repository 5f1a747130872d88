#include "check/judge.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "cases/cases.hpp"
#include "base/error.hpp"
#include "base/names.hpp"
#include "base/input_file.hpp"
#include "base/stats.hpp"
#include "fleet/summary.hpp"

namespace xb::check {
namespace {

using P = Pattern;

int gpu_of(const std::string& label) {
  return label.rfind("gpu", 0) == 0 ? std::atoi(label.c_str() + 3) : -1;
}

bool is_gpu(const System& sys, int g) { return g >= 0 && g < sys.gpu_count(); }

LinkClass peer_class(const System& sys, int a, int b) {
  if (!is_gpu(sys, a) || !is_gpu(sys, b)) return LinkClass::nvlink;
  return sys.link(a, b).kind == LinkKind::pcie ? LinkClass::pcie_peer : LinkClass::nvlink;
}

// The first peer of `g` with peer access: fan cells cross g's links to it.
int first_peer(const System& sys, int g) {
  for (int to = 0; is_gpu(sys, g) && to < sys.gpu_count(); ++to)
    if (to != g && sys.link(g, to).peer_access) return to;
  return -1;
}

// Link class, link key and the GPU a cell is about, from its case's pattern.
void place(CheckCell& c, const CaseDef& def, const System& sys) {
  const P p = def.pattern;
  const int r = gpu_of(c.row), col = gpu_of(c.col);
  if (is_host_copy(p) || p == P::host_device_latency) {
    c.gpu = col;
    const bool c2c = is_gpu(sys, col) && sys.gpus[static_cast<std::size_t>(col)].host_link_kind == HostLinkKind::c2c;
    // A loaded latency's load both ways is judged as a bidirectional copy.
    const bool bidir = is_host_bidir(p) || (def.load == LatencyLoad::bidirectional && c.matrix == "load");
    c.link = bidir ? (c2c ? LinkClass::c2c_bidir : LinkClass::pcie_bidir) : (c2c ? LinkClass::c2c : LinkClass::pcie);
    c.link_key = fmt::format("host<->{}", c.col);
  } else if (p == P::local_copy || p == P::local_latency) {
    c.gpu = col;
    c.link = LinkClass::memory;
    c.link_key = fmt::format("{} memory", c.col);
  } else if (is_fan(p)) {
    c.gpu = col;
    c.link = peer_class(sys, col, first_peer(sys, col));
    c.link_key = fmt::format("{}<->peers", c.col);
  } else {  // GPU pairs and their latency
    c.gpu = r;
    c.link = peer_class(sys, r, col);
    c.link_key = fmt::format("gpu{}<->gpu{}", std::min(r, col), std::max(r, col));
  }
  if (is_gpu(sys, c.gpu)) c.gpu_name = sys.gpus[static_cast<std::size_t>(c.gpu)].name;
}

// A cell's row or column label; a recorded run may name one it lacks.
const std::string& label(const std::vector<std::string>& labels, int index, const std::string& case_name,
                         const std::string& source) {
  if (index < 0 || static_cast<std::size_t>(index) >= labels.size())
    fail(ErrorKind::usage, fmt::format("{} is a malformed xferbench run: case {}: a cell's index {} has no label",
                                       source, case_name, index));
  return labels[static_cast<std::size_t>(index)];
}

CheckCell read_cell(const Cell& cell, const Matrix& m, const std::string& case_name, const std::string& source) {
  CheckCell c;
  c.case_name = case_name;
  c.matrix = m.name;
  c.row = label(m.row_labels, cell.row, case_name, source);
  c.col = label(m.col_labels, cell.col, case_name, source);
  c.key = fmt::format("{} {}[{},{}]", case_name, c.matrix, c.row, c.col);
  c.row_index = cell.row;
  c.col_index = cell.col;
  c.latency = m.metric == Metric::latency_ns;
  c.value = cell.value;
  c.stddev = cell.stats.stddev;
  c.samples = cell.stats.count;
  c.link_label = cell.link;
  c.peak_gbps = cell.peak.gbps;
  c.peak_formula = cell.peak.formula;
  c.verification_failed = cell.verification.status == Verification::Status::failed;
  if (cell.invalid) c.invalid_reason = cell.invalid_reason.empty() ? "marked invalid in the record" : cell.invalid_reason;
  if (cell.loaded) {
    c.loaded = true;
    c.idle_ns = cell.loaded->idle_ns;
    c.ratio = cell.loaded->ratio;
    if (cell.loaded->weak)
      c.weak_load = fmt::format("weak load: {} reached {:.1f} GB/s, {:.0f}% of its peak (under {:.0f}%), so the "
                                "latency was not measured on a loaded link", cell.loaded->load, cell.loaded->load_gbps,
                                cell.loaded->load_pct, kWeakLoadShare * 100);
  }
  return c;
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

// max_ratio: the loaded latency may be at most that many times the idle
// one, which is this cell's threshold in ns.
void judge_ratio(CheckCell& c, const Expectation& e, const std::string& file) {
  c.basis = Basis::spec;
  c.source = e.where.empty() ? file : e.where;
  c.why = e.why;
  c.threshold = c.idle_ns * e.threshold.value;
  // A ratio of 0 or less is no measurement of a loaded latency: it fails, never passes.
  c.verdict = c.idle_ns > 0 && c.ratio > 0 && c.ratio <= e.threshold.value ? CellVerdict::pass : CellVerdict::fail;
  c.note = fmt::format("loaded / idle = {:.2f}, at most {:.2f} ({:.0f} ns idle)", c.ratio, e.threshold.value, c.idle_ns);
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

constexpr Named<CellVerdict> kVerdicts[] = {
    {CellVerdict::pass, "pass"}, {CellVerdict::fail, "fail"}, {CellVerdict::unjudged, "unjudged"}};
constexpr Named<Basis> kBases[] = {
    {Basis::spec, "spec"}, {Basis::baseline, "baseline"}, {Basis::builtin, "built-in"}, {Basis::peers, "peers"},
    {Basis::none, "none"}};

const char* to_string(CellVerdict v) noexcept { return lookup_name(kVerdicts, v); }
const char* to_string(Basis b) noexcept { return lookup_name(kBases, b); }

double builtin_min_pct(LinkClass link) noexcept {
  switch (link) {
    case LinkClass::pcie: return 75.0;
    // Both ways over the host link, per direction: healthy hosts dip to
    // 56% for minutes (docs/check.md); a link at half its width or speed
    // reads at most 50%.
    case LinkClass::pcie_bidir: return 55.0;
    case LinkClass::nvlink: return 70.0;
    // Six A6000s over PCIe Gen4 (nvbandwidth#50), judged healthy there:
    // pairs under one switch 84% of the peak, pairs across the CPUs 69%.
    case LinkClass::pcie_peer: return 65.0;
    case LinkClass::memory: return 70.0;
    // NVLink-C2C: GH200's published host->device copies reach 76-77% of
    // 450 GB/s and device->host about 15% less, near 67% (nvbandwidth#23).
    case LinkClass::c2c: return 60.0;
    // Both directions at once: no public figure; PCIe's earlier floor.
    case LinkClass::c2c_bidir: return 65.0;
  }
  return 70.0;
}

std::vector<CheckCell> extract_cells(const RunResult& run, const std::string& source) {
  std::vector<CheckCell> out;
  for (const CaseResult& cs : run.cases) {
    const CaseDef* def = find_case(cs.name);
    if (!def) continue;  // a case of another version: nothing to judge it by
    for (const Matrix& m : cs.matrices) {
      for (const Cell& cell : m.cells) {
        out.push_back(read_cell(cell, m, cs.name, source));
        place(out.back(), *def, run.system);
      }
    }
  }
  return out;
}

std::vector<CaseProblem> case_problems(const RunResult& run) {
  std::vector<CaseProblem> out;
  for (const CaseResult& cs : run.cases)
    if (cs.status != CaseStatus::passed) out.push_back({cs.name, cs.status, cs.message});
  return out;
}

Baseline load_baseline(const RunResult& run, const std::string& file, const System& now, bool force) {
  Baseline b;
  b.file = file;
  const std::string then = fleet::gpu_group_of(run.system);
  if (then != fleet::gpu_group_of(now) && !force)
    fail(ErrorKind::usage, fmt::format("baseline {} was recorded on {}, this node has {}: refusing to compare "
                                       "different machine models (--force compares anyway)", file, then,
                                       fleet::gpu_group_of(now)));
  for (auto& c : extract_cells(run, input_label("--baseline file", file))) b.cells.emplace(c.key, std::move(c));
  return b;
}

void judge_cells(std::vector<CheckCell>& cells, const JudgeOptions& opts) {
  for (CheckCell& c : cells) {
    const Expectation* ratio = opts.spec && c.loaded ? find_ratio_expectation(*opts.spec, c.case_name, c.link) : nullptr;
    const Expectation* e = opts.spec ? find_expectation(*opts.spec, c.case_name, c.matrix, c.link, c.latency) : nullptr;
    if (ratio) {
      judge_ratio(c, *ratio, opts.spec->file);
    } else if (e) {
      judge_spec(c, *e, opts.spec->file);
    } else if (opts.baseline && opts.baseline->cells.count(c.key)) {
      judge_baseline(c, opts.baseline->cells.at(c.key), *opts.baseline, opts.compare);
    } else {
      judge_builtin(c);
    }
  }
  judge_peers(cells, opts);
  for (CheckCell& c : cells) {
    if (!c.invalid_reason.empty()) {  // a number the link cannot carry passes no threshold
      c.verdict = CellVerdict::fail;
      c.note = "invalid: " + c.invalid_reason;
    }
    if (!c.weak_load.empty()) {
      c.verdict = CellVerdict::fail;
      c.note = c.weak_load;
    }
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
