#include "cases/case_plan.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "machine/pairs.hpp"
#include "measure/latency.hpp"
#include "memory/memory_plan.hpp"
#include "records/stability.hpp"

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
// Why nvbandwidth's figure for every GPU's SM kernel writing to the host
// can read otherwise than xferbench's.
const std::string kLongHostWrites =
    "nvbandwidth times 16 copies in one kernel per sample, after 4 warm-up copies, while every other GPU writes to "
    "the host for twice as long, each kernel one 512-thread block per SM; xferbench's samples last about 20 ms, every "
    "GPU released together, and its kernel drives each SM's bulk copy unit";
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
    } else if (all && !bidir && !to_dev && def.engine == Engine::sm && n > 1) {
      c.nvbandwidth = transfers(g, true);
      for (Transfer& t : c.nvbandwidth->transfers) t.nvbandwidth_kernel = true;
      c.nvbandwidth_why = kLongHostWrites;
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

const CellPlan* find_cell(const CasePlan& plan, int row, int col) {
  for (const CellPlan& cp : plan.cells)
    if (cp.row == row && cp.col == col) return &cp;
  return nullptr;
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

MemoryAmount plan_memory_need(const CasePlan& plan, const System& sys) {
  MemoryAmount need;
  need.gpu.assign(static_cast<std::size_t>(sys.gpu_count()), 0);
  for (const CellPlan& cell : plan.cells) need = max_of(need, memory_need(cell_requests(plan, cell)));
  return need;
}

ReferencePlans reference_plans(const System& sys, std::uint64_t bytes) {
  ReferencePlans plans;
  for (const ReferenceCell& ref : reference_cells(sys)) {
    if (plans.count(ref.case_name) > 0) continue;
    const CaseDef* def = select_cases({ref.case_name}, {}).at(0);
    plans.emplace(ref.case_name, std::make_pair(def, plan_case(*def, sys, bytes)));
  }
  return plans;
}

PlannedCase plan_run_case(const CaseDef& def, const System& sys, std::uint64_t bytes, const PairSelection* pairs) {
  PlannedCase pc;
  pc.def = &def;
  pc.need.gpu.assign(static_cast<std::size_t>(sys.gpu_count()), 0);
  pc.waived = waive_reason(def, sys);
  if (pc.waived) return pc;
  pc.plan = plan_case(def, sys, bytes);
  pc.need = plan_memory_need(pc.plan, sys);
  restrict_plan(def, sys, pairs, pc.plan);
  return pc;
}

std::vector<PlannedCase> plan_run_cases(const std::vector<const CaseDef*>& cases, const System& sys,
                                        std::uint64_t bytes, const PairSelection* pairs) {
  std::vector<PlannedCase> out;
  for (const CaseDef* def : cases) out.push_back(plan_run_case(*def, sys, bytes, pairs));
  return out;
}

MemoryAmount run_memory_need(const std::vector<PlannedCase>& cases, const System& sys) {
  MemoryAmount need;
  need.gpu.assign(static_cast<std::size_t>(sys.gpu_count()), 0);
  for (const PlannedCase& pc : cases) need = max_of(need, pc.need);
  return need;
}

}  // namespace xb
