#include "cases/case_plan.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/error.hpp"
#include "base/time_budget.hpp"
#include "machine/hugepages.hpp"
#include "measure/latency.hpp"
#include "memory/memory_plan.hpp"
#include "measure/migration.hpp"
#include "machine/pairs.hpp"
#include "base/stats.hpp"
#include "base/stop.hpp"

namespace xb {
namespace {

using P = Pattern;

Transfer make_transfer(const Location& src, const Location& dst, Engine e, int exec, std::uint64_t bytes) {
  Transfer t;
  t.src = src;
  t.dst = dst;
  t.engine = e;
  t.exec_device = exec;
  t.bytes = bytes;
  t.label = location_label(src) + "->" + location_label(dst);
  return t;
}

const Location kHost = host_memory(MemKind::pinned, -1);  // on the executing GPU's node

Output host_output(const GpuInfo& g, int matrix = 0) {
  Output o;
  o.matrix = matrix;
  o.link = host_link_label(g);
  o.peak = g.host_link;
  return o;
}

Peak scaled(Peak p, double factor, const std::string& why) {
  if (!p.known()) return p;
  p.gbps *= factor;
  p.formula = fmt::format("{} x {} ({})", factor, p.formula, why);
  return p;
}

std::string engine_tag(Engine e) {
  return e == Engine::copy_engine ? "CE" : e == Engine::tma ? "TMA" : "SM";
}

std::vector<std::string> gpu_labels(int n) {
  std::vector<std::string> v;
  for (int g = 0; g < n; ++g) v.push_back(fmt::format("gpu{}", g));
  return v;
}

Matrix header(const std::string& name, const std::string& title, const std::vector<std::string>& rows, int gpus) {
  Matrix m;
  m.name = name;
  m.title = title;
  m.row_labels = rows;
  m.col_labels = gpu_labels(gpus);
  return m;
}

// A new cell at (row, col), in the plan.
CellPlan& add_cell(CasePlan& plan, int row, int col) {
  CellPlan& c = plan.cells.emplace_back();
  c.row = row;
  c.col = col;
  return c;
}

// Why nvbandwidth's split-warp cells read otherwise than xferbench's.
const std::string kSplitInPlace =
    "nvbandwidth's split-warp kernel copies each 16-byte piece 16 times in place before moving on, so only a few MiB "
    "of host memory are in use at any moment; xferbench's walks the whole buffer on every pass, so host memory "
    "serves every byte, as in a bulk transfer";
const std::string kSplitShortInterferers =
    "; and its interfering copies on the other GPUs are only as long as this one and start after their own warm-up "
    "copies, so part of it runs with fewer GPUs on the host link, while xferbench's run twice as long";

// host <-> GPU patterns, one cell per GPU (row 0 = host).
void plan_host(const CaseDef& def, const System& sys, std::uint64_t bytes, CasePlan& plan) {
  const int n = sys.gpu_count();
  const bool to_dev = def.pattern == P::host_to_device || def.pattern == P::host_to_device_bidir ||
                      def.pattern == P::host_to_all || def.pattern == P::host_to_all_bidir;
  const bool bidir = is_host_bidir(def.pattern);
  const bool all = def.pattern == P::all_to_host || def.pattern == P::all_to_host_bidir ||
                   def.pattern == P::host_to_all || def.pattern == P::host_to_all_bidir;
  // SM bidirectional cases use one split-warp kernel per GPU (half the
  // warps each way) as nvbandwidth does, reported per direction (half).
  const bool split = bidir && def.engine == Engine::sm;
  const std::string measured = split ? ", per direction (half of a split-warp kernel's total, whole-buffer passes)"
                               : bidir ? (to_dev ? ", host->GPU measured" : ", GPU->host measured") : "";
  plan.matrices.push_back(header("", fmt::format("memcpy {} host {} GPU(column) bandwidth (GB/s){}", engine_tag(def.engine),
                                                 bidir ? "<->" : (to_dev ? "->" : "<-"), measured),
                              {"host"}, n));
  const Engine engine = split ? Engine::sm_split : def.engine;
  // The cell's transfers: the measured copy first, then what interferes.
  // Interfering copies run twice per measured copy so they cover it (as
  // nvbandwidth's copies of twice the size do) with buffers of one size;
  // nvbandwidth's split-warp interferers are as long as the measured copy,
  // and its split-warp kernel re-copies each piece in place.
  auto transfers = [&](int g, bool nvbandwidth_way) {
    Scenario sc;
    auto add = [&](int dev, bool h2d, int repeat) {
      const Location dl = device_memory(dev);
      sc.transfers.push_back(h2d ? make_transfer(kHost, dl, engine, dev, bytes) : make_transfer(dl, kHost, engine, dev, bytes));
      sc.transfers.back().repeat = repeat;
      sc.transfers.back().repeat_in_place = split && nvbandwidth_way;
    };
    add(g, to_dev, 1);
    if (bidir && !split) add(g, !to_dev, 2);
    for (int d = 0; all && d < n; ++d) {
      if (d == g) continue;
      add(d, to_dev, split && nvbandwidth_way ? 1 : 2);
      if (bidir && !split) add(d, !to_dev, 2);
    }
    if (nvbandwidth_way) sc.timing = Timing::nvbandwidth;
    return sc;
  };
  for (int g = 0; g < n; ++g) {
    CellPlan& c = add_cell(plan, 0, g);
    c.scenario = transfers(g, false);
    c.outputs.push_back(host_output(sys.gpus[g]));
    if (split) c.outputs.back().scale = 0.5;
    if (split && !def.streaming) {
      c.nvbandwidth = transfers(g, true);
      c.nvbandwidth_why = all && n > 1 ? kSplitInPlace + kSplitShortInterferers : kSplitInPlace;
    }
  }
}

// One GPU pair per cell: row issues (reads from / writes to) column.
void plan_pairs(const CaseDef& def, const System& sys, std::uint64_t bytes, CasePlan& plan) {
  const int n = sys.gpu_count();
  const bool read = def.pattern == P::d2d_read || def.pattern == P::d2d_bidir_read;
  const bool bidir = def.pattern == P::d2d_bidir_read || def.pattern == P::d2d_bidir_write;
  const std::string e = engine_tag(def.engine);
  const std::string verb = read ? "reads from" : "writes to";
  if (!bidir) {
    plan.matrices.push_back(header("", fmt::format("memcpy {} GPU(row) {} GPU(column) bandwidth (GB/s)", e, verb),
                                   gpu_labels(n), n));
  } else {
    const std::string d = read ? "read" : "write";
    plan.matrices.push_back(header(d + "1", fmt::format("memcpy {} GPU(row) {} GPU(column), while the column GPU "
                                                        "does the same to the row: row's bandwidth (GB/s)", e, verb),
                                   gpu_labels(n), n));
    plan.matrices.push_back(header(d + "2", fmt::format("memcpy {} same pairs: column GPU's bandwidth (GB/s)", e),
                                   gpu_labels(n), n));
    plan.matrices.push_back(header("total", fmt::format("memcpy {} same pairs: total of both directions (GB/s)", e),
                                   gpu_labels(n), n));
  }
  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < n; ++c) {
      if (r == c || !sys.link(r, c).peer_access) continue;
      CellPlan& cell = add_cell(plan, r, c);
      // Read: the row GPU pulls column memory into its own; write: it pushes.
      auto pair = [&](int issuer, int other) {
        return read ? make_transfer(device_memory(other), device_memory(issuer), def.engine, issuer, bytes)
                    : make_transfer(device_memory(issuer), device_memory(other), def.engine, issuer, bytes);
      };
      cell.scenario.transfers.push_back(pair(r, c));
      const PeerLink& link = sys.link(r, c);
      Output o;
      o.link = peer_link_label(link);
      o.peak = link.peak;
      cell.outputs.push_back(o);
      if (bidir) {
        cell.scenario.transfers.push_back(pair(c, r));
        Output o2 = o;
        o2.matrix = 1;
        o2.first = 1;
        Output tot = o;
        tot.matrix = 2;
        tot.kind = Output::Kind::sum;
        tot.count = 2;
        tot.peak = scaled(o.peak, 2, "both directions");
        cell.outputs.push_back(o2);
        cell.outputs.push_back(tot);
      }
    }
  }
}

// One GPU against all its peers at once; total bandwidth per column GPU.
void plan_fan(const CaseDef& def, const System& sys, std::uint64_t bytes, CasePlan& plan) {
  const int n = sys.gpu_count();
  const bool into = def.pattern == P::all_to_one_write || def.pattern == P::one_to_all_read;  // data flows into g
  const bool peer_issues = def.pattern == P::all_to_one_write || def.pattern == P::all_to_one_read;
  plan.matrices.push_back(header("", fmt::format("memcpy {} total bandwidth {} GPU(column) (GB/s), {}", engine_tag(def.engine),
                                                 into ? "into" : "out of",
                                                 peer_issues ? "issued by the peers" : "issued by the column GPU"),
                                 {"total"}, n));
  for (int g = 0; g < n; ++g) {
    CellPlan cell;
    cell.col = g;
    Output o;
    o.kind = Output::Kind::total;
    double peak = 0;
    bool peaks_known = true;
    std::vector<std::string> formulas;
    for (int p = 0; p < n; ++p) {
      if (p == g || !sys.link(g, p).peer_access) continue;
      const int src = into ? p : g, dst = into ? g : p;
      cell.scenario.transfers.push_back(
          make_transfer(device_memory(src), device_memory(dst), def.engine, peer_issues ? p : g, bytes));
      const PeerLink& link = sys.link(g, p);
      peaks_known = peaks_known && link.peak.known();
      peak += link.peak.gbps;
      formulas.push_back(link.peak.formula);
      o.link = peer_link_label(link);
      o.peak.source = link.peak.source;
    }
    if (cell.scenario.transfers.empty()) continue;
    // All traffic crosses the column GPU's own links: their total caps the sum.
    const GpuInfo& gi = sys.gpus[g];
    const double cap = gi.nvlink_count * gi.nvlink_gbps_per_link;
    if (peaks_known) {
      o.peak.gbps = cap > 0 ? std::min(peak, cap) : peak;
      o.peak.formula = fmt::format("sum over peers of ({}), at most {} links of gpu{}", fmt::join(formulas, "; "),
                                   gi.nvlink_count, g);
    } else {
      o.peak = Peak{};
    }
    if (cell.scenario.transfers.size() > 1) {
      o.link = fmt::format("{} peers", cell.scenario.transfers.size());
      cell.nvbandwidth = cell.scenario;
      cell.nvbandwidth->timing = Timing::nvbandwidth;
      cell.nvbandwidth_why = "nvbandwidth times the total from the first copy's start, taken after that stream's own "
                             "warm-up copies while the other streams may still be in theirs; xferbench from the "
                             "release of every copy at once to the last end";
    }
    cell.outputs.push_back(o);
    plan.cells.push_back(std::move(cell));
  }
}

// Copies within each GPU's own memory, or read-only or write-only traffic
// to it, whose peak is the memory's full figure (one direction of traffic,
// not a copy's half).
void plan_local(const CaseDef& def, const System& sys, std::uint64_t bytes, CasePlan& plan) {
  const int n = sys.gpu_count();
  const bool copy = def.pattern == P::local_copy;
  const char* dir = def.pattern == P::local_read ? "read" : "write";
  plan.matrices.push_back(header("", copy ? fmt::format("memcpy {} local copy within GPU(column) bandwidth (GB/s)",
                                                        engine_tag(def.engine))
                                          : fmt::format("SM {}-only kernel, GPU(column) {}s its own memory, "
                                                        "bandwidth (GB/s)", dir, dir),
                                 {"local"}, n));
  for (int g = 0; g < n; ++g) {
    CellPlan& cell = add_cell(plan, 0, g);
    cell.scenario.transfers.push_back(make_transfer(device_memory(g), device_memory(g), def.engine, g, bytes));
    if (!copy) cell.scenario.transfers.back().label = fmt::format("gpu{} {}", g, dir);
    Output o;
    o.link = "device memory";
    o.peak = copy ? sys.link(g, g).peak : sys.gpus[g].memory;
    cell.outputs.push_back(o);
  }
}

// The copy-engine copies that load a latency cell's link (LatencyLoad), and
// the output of the load matrix: the link they cross and its peak.
void add_load(const CaseDef& def, const System& sys, int r, int c, std::uint64_t bytes, CellPlan& cell) {
  const int g = def.pattern == P::host_device_latency || def.pattern == P::local_latency ? c : r;
  auto& t = cell.scenario.transfers;
  const Engine CE = Engine::copy_engine;
  Output o = host_output(sys.gpus[g], 2);
  switch (def.load) {
    case LatencyLoad::none: return;
    case LatencyLoad::host_to_device: t.push_back(make_transfer(kHost, device_memory(g), CE, g, bytes)); break;
    case LatencyLoad::device_to_host: t.push_back(make_transfer(device_memory(g), kHost, CE, g, bytes)); break;
    case LatencyLoad::bidirectional:
      t.push_back(make_transfer(kHost, device_memory(g), CE, g, bytes));
      t.push_back(make_transfer(device_memory(g), kHost, CE, g, bytes));
      o.peak = scaled(o.peak, 2, "both directions");
      break;
    case LatencyLoad::local_copy:
      t.push_back(make_transfer(device_memory(g), device_memory(g), CE, g, bytes));
      o.link = "device memory";
      o.peak = sys.link(g, g).peak;
      break;
    case LatencyLoad::peer_read:
      t.push_back(make_transfer(device_memory(c), device_memory(r), CE, r, bytes));
      o.link = peer_link_label(sys.link(r, c));
      o.peak = sys.link(r, c).peak;
      break;
  }
  cell.outputs.push_back(o);
}

const char* load_words(LatencyLoad load) {
  switch (load) {
    case LatencyLoad::host_to_device: return "while host -> GPU copy-engine copies load the link";
    case LatencyLoad::device_to_host: return "while GPU -> host copy-engine copies load the link";
    case LatencyLoad::bidirectional: return "while copy-engine copies load the link both ways";
    case LatencyLoad::local_copy: return "while a copy-engine copy within that memory loads it";
    case LatencyLoad::peer_read: return "while GPU(row)'s copy engine reads GPU(column) memory";
    case LatencyLoad::none: break;
  }
  return "";
}

void plan_latency(const CaseDef& def, const System& sys, std::uint64_t bytes, CasePlan& plan) {
  const int n = sys.gpu_count();
  plan.latency = true;
  plan.load = def.load;
  const bool host = def.pattern == P::host_device_latency, local = def.pattern == P::local_latency;
  const bool loaded = def.load != LatencyLoad::none;
  const std::string under = loaded ? fmt::format(", {}", load_words(def.load)) : "";
  const std::vector<std::string> rows = host ? std::vector<std::string>{"host"}
                                        : local ? std::vector<std::string>{"local"} : gpu_labels(n);
  Matrix m = host    ? header("", fmt::format("memory access latency, GPU(column) reading host memory{} (ns)", under), rows, n)
             : local ? header("", fmt::format("memory access latency, GPU(column) reading its own memory{} (ns)", under),
                              rows, n)
             : def.engine == Engine::tma
                 ? header("", "TMA latency: dependent 16-byte bulk copies by GPU(row) from GPU(column) memory (ns)", rows, n)
                 : header("", fmt::format("memory access latency, GPU(row) reading GPU(column) memory{} (ns)", under),
                          rows, n);
  m.metric = Metric::latency_ns;
  plan.matrices.push_back(m);
  if (loaded) {
    Matrix idle = header("idle", "the same chase alone, idle (ns)", rows, n);
    idle.metric = Metric::latency_ns;
    plan.matrices.push_back(idle);
    plan.matrices.push_back(header("load", "the load's bandwidth while the chase ran (GB/s)", rows, n));
  }
  for (int r = 0; r < (host || local ? 1 : n); ++r) {
    for (int c = 0; c < n; ++c) {
      if (def.pattern == P::d2d_latency && (r == c || !sys.link(r, c).peer_access)) continue;
      CellPlan& cell = add_cell(plan, r, c);
      const int gpu = host || local ? c : r;
      const Location target = host ? kHost : device_memory(c);
      cell.scenario.transfers.push_back(make_transfer(target, target, def.engine, gpu, 0));
      Output o;
      o.link = host ? host_link_label(sys.gpus[c]) : local ? "device memory" : peer_link_label(sys.link(r, c));
      cell.outputs.push_back(o);
      if (!loaded) continue;
      Output idle = o;
      idle.matrix = 1;
      cell.outputs.push_back(idle);
      add_load(def, sys, r, c, bytes, cell);
    }
  }
}

// Managed pages faulting across the host link: one column per GPU, three
// matrices (GB/s with every byte read; ns per 4 KiB and per 2 MiB page).
void plan_migration(const CaseDef& def, const System& sys, std::uint64_t bytes, CasePlan& plan) {
  const int n = sys.gpu_count();
  plan.migration = true;
  const bool to_dev = def.pattern == P::managed_migration_to_device;
  const std::string what = to_dev ? "GPU(column) kernel touching managed pages on the host"
                                  : "host thread touching managed pages on GPU(column)";
  plan.matrices.push_back(header("", fmt::format("managed migration, {}: GB/s, every byte read", what), {"managed"}, n));
  for (const char* page : {"4k", "2m"}) {
    Matrix m = header(fmt::format("per_{}_page", page),
                      fmt::format("managed migration, {}: ns per {} page touched", what,
                                  std::string(page) == "4k" ? "4 KiB" : "2 MiB"),
                      {"managed"}, n);
    m.metric = Metric::latency_ns;
    plan.matrices.push_back(m);
  }
  for (int g = 0; g < n; ++g) {
    CellPlan& cell = add_cell(plan, 0, g);
    const Location managed{MemKind::managed, g, -1};
    cell.scenario.transfers.push_back(make_transfer(managed, managed, def.engine, g, bytes));
    for (int m = 0; m < 3; ++m) {
      Output o = host_output(sys.gpus[g], m);
      if (m > 0) o.peak = Peak{};
      cell.outputs.push_back(o);
    }
  }
}

// Host pages a cell needs at once: every host buffer of its scenario.
std::uint64_t hugepages_needed(const CasePlan& plan) {
  std::uint64_t most = 0;
  for (const CellPlan& c : plan.cells) {
    std::uint64_t pages = 0;
    for (const Transfer& t : c.scenario.transfers)
      pages += hugepages_for(t.bytes) * ((t.src.on_host() ? 1 : 0) + (t.dst.on_host() ? 1 : 0));
    most = std::max(most, pages);
  }
  return most;
}

std::optional<std::string> hugepage_waiver(const CaseDef& def, const SampleSource& m, std::uint64_t bytes) {
  if (m.options().host_kind != MemKind::hugepages || !uses_host_memory(def.pattern)) return std::nullopt;
  const HugePagePool pool = read_hugepage_pool();
  if (pool.known() && pool.total > 0) return std::nullopt;
  const CasePlan plan = plan_case(def, m.system(), bytes);
  return "--host-mem hugepages: " + hugepage_shortage(pool, std::max<std::uint64_t>(1, hugepages_needed(plan)));
}

}  // namespace

CasePlan plan_case(const CaseDef& def, const System& sys, std::uint64_t bytes) {
  CasePlan plan;
  const Pattern p = def.pattern;
  if (is_latency(p)) plan_latency(def, sys, bytes, plan);
  else if (is_pairwise(p)) plan_pairs(def, sys, bytes, plan);
  else if (is_fan(p)) plan_fan(def, sys, bytes, plan);
  else if (p == P::local_copy || p == P::local_read || p == P::local_write) plan_local(def, sys, bytes, plan);
  else if (p == P::managed_migration_to_device || p == P::managed_migration_to_host) plan_migration(def, sys, bytes, plan);
  else plan_host(def, sys, bytes, plan);
  return plan;
}

std::size_t restrict_plan(const CaseDef& def, const System& sys, const PairSelection* pairs, CasePlan& plan) {
  const std::size_t before = plan.cells.size();
  const bool by_pair = pairs && is_pairwise(def.pattern);
  auto dropped = [&](const CellPlan& c) {
    if (by_pair && !pairs->selects(c.row, c.col)) return true;
    if (def.engine != Engine::tma) return false;
    for (const Transfer& t : c.scenario.transfers)
      if (sys.gpus.at(static_cast<std::size_t>(t.exec_device)).cc_major < 9) return true;
    return false;
  };
  plan.cells.erase(std::remove_if(plan.cells.begin(), plan.cells.end(), dropped), plan.cells.end());
  return before - plan.cells.size();
}

double output_value(const Output& out, const Scenario& sc, const ScenarioSamples& s, std::size_t i) {
  const double copies = s.copies_per_sample;
  auto moved = [&](const Transfer& t) { return static_cast<double>(t.bytes) * t.repeat * copies; };
  auto bw = [&](int t) { return gbps(moved(sc.transfers[t]), s.transfers[t].seconds[i]); };
  switch (out.kind) {
    case Output::Kind::transfer: return out.scale * bw(out.first);
    case Output::Kind::sum: {
      double sum = 0;
      for (int t = out.first; t < out.first + out.count; ++t) sum += bw(t);
      return sum;
    }
    case Output::Kind::total: {
      double bytes = 0;
      for (const auto& t : sc.transfers) bytes += moved(t);
      return gbps(bytes, s.total_seconds[i]);
    }
  }
  return 0;
}

namespace {

// Samples of one of a bandwidth cell's scenarios, gated on its first output.
ScenarioSamples run_lead(SampleSource& src, const CellPlan& cp, const Scenario& sc) {
  return src.run(sc, [&cp, &sc](const ScenarioSamples& ss, std::size_t i) {
    return output_value(cp.outputs[0], sc, ss, i);
  });
}

std::vector<double> output_values(const Output& out, const Scenario& sc, const ScenarioSamples& s) {
  std::vector<double> values;
  for (std::size_t i = 0; i < s.total_seconds.size(); ++i) values.push_back(output_value(out, sc, s, i));
  return values;
}

// A cell at `cp`'s place with `o`'s link and peak, nothing measured yet.
Cell blank_cell(const CellPlan& cp, const Output& o) {
  Cell cell;
  cell.row = cp.row;
  cell.col = cp.col;
  cell.link = o.link;
  cell.peak = o.peak;
  return cell;
}

Cell make_cell(const CellPlan& cp, const Output& o, std::vector<double> samples, Statistic statistic) {
  Cell cell = blank_cell(cp, o);
  cell.stats = summarize(samples);
  cell.value = value_of(cell.stats, statistic);
  cell.samples = std::move(samples);
  cell.efficiency = o.peak.known() ? cell.value / o.peak.gbps : 0.0;
  return cell;
}

// Failed verification anywhere in the scenario fails the cell and the case.
void note_failures(const ScenarioSamples& s, const Scenario& sc, Cell& cell, CaseResult& result) {
  for (std::size_t t = 0; t < s.transfers.size(); ++t) {
    const Verification& v = s.transfers[t].verification;
    if (v.status != Verification::Status::failed) continue;
    cell.verification = v;
    if (result.status != CaseStatus::failed) {
      result.status = CaseStatus::failed;
      result.message = fmt::format("verification failed: {} at byte offset {}", sc.transfers[t].label, v.first_bad_offset);
    }
  }
}

void record_verification(const ScenarioSamples& s, const Scenario& sc, Cell& cell, CaseResult& result) {
  cell.verification.status = s.transfers.empty() ? Verification::Status::skipped : s.transfers[0].verification.status;
  note_failures(s, sc, cell, result);
}

// The cell measured nvbandwidth's way too (CellPlan::nvbandwidth), one
// NvbandwidthWay per output; its data is verified like the cell's own.
void add_nvbandwidth_way(const CellPlan& cp, SampleSource& src, std::vector<Cell>& cells, CaseResult& result) {
  const Scenario& sc = *cp.nvbandwidth;
  const ScenarioSamples s = run_lead(src, cp, sc);
  for (std::size_t i = 0; i < cp.outputs.size(); ++i) {
    NvbandwidthWay w;
    w.samples = output_values(cp.outputs[i], sc, s);
    w.stats = summarize(w.samples);
    w.value = value_of(w.stats, src.options().statistic);
    w.ratio = cells[i].value > 0 ? w.value / cells[i].value : 0;
    w.differs = std::abs(w.ratio - 1) > kMethodsDiffer;
    w.why = cp.nvbandwidth_why;
    cells[i].nvbandwidth = std::move(w);
    note_failures(s, sc, cells[i], result);
  }
}


std::string cell_key(const CaseDef& def, const CellPlan& cp) { return fmt::format("{}[{},{}]", def.name, cp.row, cp.col); }

// The three cells of a migration column (one per matrix, in output order).
// `fail_check` (fault injection) marks the pattern check failed as a real
// mismatch at offset 0 would.
std::vector<Cell> migration_cells(const CaseDef& def, const CellPlan& cp, SampleSource& src, std::uint64_t bytes,
                                  bool fail_check, CaseResult& result) {
  const int gpu = cp.scenario.transfers[0].exec_device;
  const auto dir = def.pattern == Pattern::managed_migration_to_device ? MigrationDirection::to_device
                                                                        : MigrationDirection::to_host;
  MigrationSamples ms = src.migration(gpu, dir, bytes);
  if (fail_check) {
    ms.verified = false;
    ms.first_bad_offset = 0;
  }
  std::vector<double>* series[3] = {&ms.dense_gbps, &ms.ns_per_4k_page, &ms.ns_per_2m_page};
  const std::uint64_t touched[3] = {ms.dense_bytes, ms.small_page_bytes, ms.large_page_bytes};
  std::vector<Cell> cells;
  for (int m = 0; m < 3; ++m) {
    Cell cell = make_cell(cp, cp.outputs[m], std::move(*series[m]), src.options().statistic);
    cell.bytes_per_copy = touched[m];
    cell.copies_per_sample = 1;
    cell.verification.status = ms.verified ? Verification::Status::passed : Verification::Status::failed;
    cell.verification.first_bad_offset = ms.first_bad_offset;
    cells.push_back(std::move(cell));
  }
  if (!ms.verified && result.status != CaseStatus::failed) {
    result.status = CaseStatus::failed;
    result.message = fmt::format("verification failed: managed memory of gpu{} at byte offset {}", gpu,
                                 ms.first_bad_offset);
  }
  return cells;
}

// Bytes of one load copy (all load transfers have the cell's size).
std::uint64_t load_bytes(const CellPlan& cp) {
  return cp.scenario.transfers.size() > 1 ? cp.scenario.transfers[1].bytes : 0;
}

std::vector<std::string> transfer_labels(const std::vector<Transfer>& ts) {
  std::vector<std::string> out;
  for (const Transfer& t : ts) out.push_back(t.label);
  return out;
}

Cell latency_cell(const CaseDef& def, const CellPlan& cp, SampleSource& src, bool fail_check,
                  CaseResult& result) {
  const Transfer& t = cp.scenario.transfers[0];
  const LatencySamples ls =
      src.latency(t.exec_device, t.src, def.engine == Engine::tma ? ChaseKind::tma : ChaseKind::load);
  Cell cell = make_cell(cp, cp.outputs[0], ls.ns_per_access, src.options().statistic);
  cell.bytes_per_copy = ls.buffer_bytes;
  cell.copies_per_sample = static_cast<int>(ls.accesses_per_sample);
  cell.host_page_bytes = ls.host_page_bytes;
  if (fail_check) {
    cell.verification.status = Verification::Status::failed;
    result.status = CaseStatus::failed;
    result.message = fmt::format("verification failed: {} at byte offset 0", t.label);
  }
  return cell;
}

// The three cells of a loaded-latency cell: the loaded chase (with the
// LoadedLatency record), the idle chase, and the load's bandwidth.
std::vector<Cell> loaded_latency_cells(const CellPlan& cp, SampleSource& src, bool fail_check, CaseResult& result) {
  const Transfer& chase = cp.scenario.transfers[0];
  const std::vector<Transfer> loads(cp.scenario.transfers.begin() + 1, cp.scenario.transfers.end());
  LoadedLatencySamples ls = src.loaded_latency(chase.exec_device, chase.src, loads);
  const Statistic st = src.options().statistic;
  auto chase_cell = [&](const Output& o, LatencySamples& s) {
    Cell cell = make_cell(cp, o, std::move(s.ns_per_access), st);
    cell.bytes_per_copy = s.buffer_bytes;
    cell.copies_per_sample = static_cast<int>(s.accesses_per_sample);
    cell.host_page_bytes = s.host_page_bytes;
    return cell;
  };
  std::vector<Cell> cells;
  cells.push_back(chase_cell(cp.outputs[0], ls.loaded));
  cells.push_back(chase_cell(cp.outputs[1], ls.idle));
  const Output& lo = cp.outputs[2];
  Cell load = make_cell(cp, lo, std::move(ls.load_gbps), st);
  load.bytes_per_copy = load_bytes(cp);
  load.copies_per_sample = ls.load_copies;
  load.verification.status = Verification::Status::skipped;
  for (std::size_t i = 0; i < ls.load_verification.size(); ++i) {
    Verification v = ls.load_verification[i];
    if (fail_check && i == 0) v = {Verification::Status::failed, 0};
    if (i == 0 || v.status == Verification::Status::failed) load.verification = v;
    if (v.status == Verification::Status::failed && result.status != CaseStatus::failed) {
      result.status = CaseStatus::failed;
      result.message = fmt::format("verification failed: {} at byte offset {}", loads[i].label, v.first_bad_offset);
    }
  }
  LoadedLatency l;
  l.idle_ns = cells[1].value;
  l.loaded_ns = cells[0].value;
  l.ratio = l.idle_ns > 0 ? l.loaded_ns / l.idle_ns : 0;
  l.load = fmt::format("{}, copy engine", fmt::join(transfer_labels(loads), " and "));
  l.load_gbps = load.value;
  l.load_link = lo.link;
  l.load_peak = lo.peak;
  l.load_pct = load.efficiency * 100;
  l.weak = lo.peak.known() && load.efficiency < kWeakLoadShare;
  if (l.weak)
    cells[0].note = fmt::format("weak load: {:.1f} GB/s is {:.0f}% of the {} peak, under {:.0f}%: the ratio does not show "
                                "the link loaded", l.load_gbps, l.load_pct, lo.link, kWeakLoadShare * 100);
  cells[0].loaded = l;
  cells.push_back(std::move(load));
  return cells;
}

// The cells one planned cell reports (one per output, in output order).
// `fail_check` (fault injection) marks the data check failed as a real
// mismatch at offset 0 would.
std::vector<Cell> measure_cell(const CaseDef& def, const CasePlan& plan, const CellPlan& cp, SampleSource& src,
                               std::uint64_t bytes, bool fail_check, CaseResult& result) {
  if (plan.migration) return migration_cells(def, cp, src, bytes, fail_check, result);
  if (plan.latency && plan.load != LatencyLoad::none) return loaded_latency_cells(cp, src, fail_check, result);
  if (plan.latency) return {latency_cell(def, cp, src, fail_check, result)};
  std::vector<Cell> cells;
  ScenarioSamples s = run_lead(src, cp, cp.scenario);
  if (fail_check && !s.transfers.empty()) s.transfers[0].verification = {Verification::Status::failed, 0};
  for (const Output& o : cp.outputs) {
    Cell cell = make_cell(cp, o, output_values(o, cp.scenario, s), src.options().statistic);
    cell.bytes_per_copy = cp.scenario.transfers[o.first].bytes;
    cell.copies_per_sample = s.copies_per_sample;
    cell.gated = s.gated;
    cell.host_page_bytes = s.host_page_bytes;
    record_verification(s, cp.scenario, cell, result);
    cells.push_back(std::move(cell));
  }
  if (cp.nvbandwidth && src.options().nvbandwidth_way) add_nvbandwidth_way(cp, src, cells, result);
  return cells;
}

// A cell that could not be measured: no value, its error, in every matrix
// it reports to; the case is an error unless it already failed a check.
void record_cell_error(CasePlan& plan, const CellPlan& cp, const std::string& message, CaseResult& result) {
  for (const Output& o : cp.outputs) {
    Cell cell = blank_cell(cp, o);
    cell.bytes_per_copy = cp.scenario.transfers[o.first].bytes;
    cell.error = message;
    plan.matrices[o.matrix].cells.push_back(std::move(cell));
  }
  if (result.status == CaseStatus::passed) {
    result.status = CaseStatus::error;
    result.message = fmt::format("[{},{}]: {}", cp.row, cp.col, message);
  }
}

void run_cell(const CaseDef& def, CasePlan& plan, const CellPlan& cp, SampleSource& src, std::uint64_t bytes,
              CaseResult& result, RunControl* ctl) {
  const std::string key = cell_key(def, cp);
  const FaultKind fault = ctl != nullptr ? ctl->fault({def.name, key}) : FaultKind::none;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    inject_fault(fault, key);
    std::vector<Cell> cells = measure_cell(def, plan, cp, src, bytes, fault == FaultKind::verify, result);
    for (std::size_t i = 0; i < cells.size(); ++i) plan.matrices[cp.outputs[i].matrix].cells.push_back(std::move(cells[i]));
  } catch (const HugePagesUnavailable&) {
    throw;  // the whole case is waived (run_case_into), not this one cell
  } catch (const Error& e) {
    record_cell_error(plan, cp, e.what(), result);
    if (e.kind() == ErrorKind::cuda) {
      // A sticky error poisons the context: no later cell could run.
      const std::string why = fault == FaultKind::cuda_sticky ? std::string(e.what()) : src.unusable_reason();
      if (!why.empty()) throw Stopped(StopReason::gpu_unusable, fmt::format("the GPU is no longer usable: {}", why));
    }
  }
  if (ctl != nullptr)
    ctl->after_cell(CellCost{def.name, static_cast<double>(cp.scenario.transfers[0].bytes), seconds_since(t0)});
}

// A case whose every cell was waived is waived; otherwise the message
// counts the waived cells unless a failure already fills it.
void note_waived_cells(std::size_t planned, CaseResult& result) {
  if (result.waived_cells.empty()) return;
  const std::string& first = result.waived_cells.front().reason;
  if (result.waived_cells.size() == planned) {
    result.status = CaseStatus::waived;
    result.message = first;
  } else if (result.message.empty()) {
    result.message = fmt::format("{} of {} cells waived: {}", result.waived_cells.size(), planned, first);
  }
}

bool waived_for_memory(const CaseResult& r, int row, int col) {
  for (const WaivedCell& w : r.waived_cells)
    if (w.row == row && w.col == col) return true;
  return false;
}

}  // namespace

double measure_one_cell(const CaseDef& def, SampleSource& src, std::uint64_t bytes, int row, int col) {
  const CasePlan plan = plan_case(def, src.system(), bytes);
  for (const CellPlan& cp : plan.cells) {
    if (cp.row != row || cp.col != col || plan.latency || plan.migration) continue;
    return median(output_values(cp.outputs[0], cp.scenario, run_lead(src, cp, cp.scenario)));
  }
  fail(ErrorKind::usage, fmt::format("{} has no bandwidth cell [{},{}] on this machine", def.name, row, col));
}

std::vector<std::string> missing_cells(const CaseDef& def, const System& sys, std::uint64_t bytes, const CaseResult& r,
                                       const PairSelection* pairs) {
  std::vector<std::string> out;
  CasePlan plan = plan_case(def, sys, bytes);
  restrict_plan(def, sys, pairs, plan);
  for (const CellPlan& cp : plan.cells) {
    if (waived_for_memory(r, cp.row, cp.col)) continue;
    const std::size_t m = static_cast<std::size_t>(cp.outputs[0].matrix);
    bool have = false;
    if (m < r.matrices.size())
      for (const Cell& c : r.matrices[m].cells) have = have || (c.row == cp.row && c.col == cp.col);
    if (!have) out.push_back(cell_key(def, cp));
  }
  return out;
}

namespace {

// Measures every planned cell and stores cells and status in `result`. A
// cell whose buffers do not fit now (SampleSource::preflight) is waived
// with the reason (result.waived_cells). With `pairs`, pairwise cases plan
// only the selected pairs. A cell whose measurement throws
// Error gets that error (no value) and the others still run; after a CUDA
// error that leaves the GPU unusable it throws Stopped(gpu_unusable).
// `on_cell` is called around every cell measured. With `ctl`: stop
// requests (Stopped, the cells measured so far kept in `result`), the time
// limit (cells that would not fit are left out: case status not_run),
// faults, resume.
void run_case_plans(const CaseDef& def, SampleSource& src, std::uint64_t bytes, CaseResult& result,
                    RunControl* ctl, const CellHook& on_cell, const PairSelection* pairs) {
  CasePlan plan = plan_case(def, src.system(), bytes);
  restrict_plan(def, src.system(), pairs, plan);
  if (plan.cells.empty()) {
    result.status = CaseStatus::waived;
    result.message = "no cell left to measure (--pair / --sample-pairs select none of its GPU pairs)";
    return;
  }
  std::size_t over_time = 0;
  try {
    for (const CellPlan& cp : plan.cells) {
      const CellCost next{def.name, static_cast<double>(cp.scenario.transfers[0].bytes), 0};
      const auto decision = ctl != nullptr ? ctl->before_cell(cell_key(def, cp), next) : RunControl::Decision::run;
      if (decision == RunControl::Decision::over_time) ++over_time;
      if (decision != RunControl::Decision::run) continue;
      // Checked before any buffer of the cell is allocated, so a cell that
      // cannot fit is waived with the numbers instead of failing midway.
      if (auto why = src.preflight(memory_need(cell_requests(plan, cp)))) {
        result.waived_cells.push_back({cp.row, cp.col, *why});
        continue;
      }
      if (on_cell) on_cell(def, cp.row, cp.col, true, nullptr);
      run_cell(def, plan, cp, src, bytes, result, ctl);
      if (on_cell) on_cell(def, cp.row, cp.col, false, &plan.matrices);
    }
  } catch (const Stopped&) {
    result.matrices = std::move(plan.matrices);  // the cells measured before the stop are kept
    throw;
  }
  result.matrices = std::move(plan.matrices);
  note_waived_cells(plan.cells.size(), result);
  if (over_time > 0 && result.status == CaseStatus::passed) {
    result.status = CaseStatus::not_run;
    result.message = fmt::format("{} of {} cells not run: they would not end within the time limit", over_time,
                                 plan.cells.size());
  }
}

}  // namespace

void run_case_into(const CaseDef& def, SampleSource& src, std::uint64_t bytes, CaseResult& r,
                   RunControl* ctl, const CellHook& on_cell, const PairSelection* pairs) {
  const auto t0 = std::chrono::steady_clock::now();
  r.index = def.index;
  r.name = def.name;
  r.description = def.description;
  auto why = waive_reason(def, src.system());
  if (!why) why = hugepage_waiver(def, src, bytes);
  if (why) {
    r.status = CaseStatus::waived;
    r.message = *why;
    return;
  }
  // Set also when a stop request leaves the case unfinished.
  struct WallTime {
    std::chrono::steady_clock::time_point t0;
    CaseResult& r;
    ~WallTime() { r.wall_seconds = seconds_since(t0); }
  } wall{t0, r};
  try {
    run_case_plans(def, src, bytes, r, ctl, on_cell, pairs);
  } catch (const HugePagesUnavailable& e) {
    r.status = CaseStatus::waived;
    r.message = std::string("--host-mem hugepages: ") + e.what();
    r.matrices.clear();
  } catch (const Error& e) {
    r.status = CaseStatus::error;
    r.message = e.what();
  }
}

std::vector<BufferRequest> cell_requests(const CasePlan& plan, const CellPlan& cell, const LocationResolver& resolve) {
  const Transfer& t = cell.scenario.transfers.at(0);
  // Migration cells allocate one managed buffer of their own (migration.cpp).
  if (plan.migration) return {{t.src, t.bytes, false}};
  if (!plan.latency) return scenario_requests(cell.scenario, resolve);
  std::vector<BufferRequest> out{{resolve ? resolve(t.src, t.exec_device) : t.src, chase_bytes(t.src, t.exec_device), false}};
  Scenario load;
  load.transfers.assign(cell.scenario.transfers.begin() + 1, cell.scenario.transfers.end());
  for (const BufferRequest& r : scenario_requests(load, resolve)) out.push_back(r);
  return out;
}

MemoryAmount case_memory_need(const CaseDef& def, const System& sys, std::uint64_t bytes) {
  MemoryAmount need;
  need.gpu.assign(static_cast<std::size_t>(sys.gpu_count()), 0);
  const CasePlan plan = plan_case(def, sys, bytes);
  for (const CellPlan& cell : plan.cells) need = max_of(need, memory_need(cell_requests(plan, cell)));
  return need;
}

MemoryAmount run_memory_need(const std::vector<const CaseDef*>& cases, const System& sys, std::uint64_t bytes) {
  MemoryAmount need;
  need.gpu.assign(static_cast<std::size_t>(sys.gpu_count()), 0);
  for (const CaseDef* def : cases)
    if (!waive_reason(*def, sys)) need = max_of(need, case_memory_need(*def, sys, bytes));
  return need;
}

}  // namespace xb
