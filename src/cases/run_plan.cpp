#include "cases/run_plan.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "cases/case_plan.hpp"
#include "memory/memory_plan.hpp"
#include "records/stability.hpp"

namespace xb {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kChaseHopsPerSm = 400;  // latency.cpp: hops per SM per sample

// Fitted by bench/fit_time_model.py to the full-catalogue runs recorded in
// bench/results from 2026-11-22 on (H200 x2: 7 runs, H200 x4: 1 run; the
// start-up from the two with process wall times); efficiencies are the
// medians of those runs' cells over their links' peaks.
const TimeModel kRecorded{
    /*start_s=*/0.143,
    /*start_per_gpu_s=*/0.543,
    /*case_s=*/0.0185,
    /*cell_s=*/0.0,    // fitted 0: the warm-up and verification terms cover it
    /*latency_cell_s=*/0.0,  // fitted 0: the warm-up chase covers the ring building
    /*pin_s_per_gib=*/0.247,
    /*device_s_per_gib=*/0.0,
    /*host_memory_gbps=*/130.0,  // x4 all_to_host: 4 x 33.4 GB/s; not fitted by the script
    /*contention=*/0.246,
    /*host_latency_ns=*/1185.0,  // recorded host_device_latency_sm cells
    /*peer_latency_ns=*/831.0,   // recorded device_to_device_latency_sm cells
    /*local_latency_ns=*/337.0,  // device_local_latency_sm on H200, bench/results/2026-11-25-h200-loaded-latency
    /*loaded_latency_ratio=*/3.0,  // the same recording: 1.4-4.8, host under host->GPU 2.8
    /*pcie_ce=*/0.878, /*pcie_sm=*/0.823, /*pcie_split=*/1.332,
    /*nvlink_ce=*/0.826, /*nvlink_sm=*/0.781,
    /*local_copy=*/0.870,
    /*local_one_way=*/0.9,       // no recording yet: a guess, used for the read-only/write-only cases
    /*unknown_link_gbps=*/25.0,  // a link without a known peak: a guess
};

bool touches_host(const Transfer& t) { return t.src.on_host() || t.dst.on_host(); }

double efficiency(const TimeModel& m, LinkKind kind, Engine e) {
  const bool sm = e != Engine::copy_engine;
  switch (kind) {
    case LinkKind::nvlink: return sm ? m.nvlink_sm : m.nvlink_ce;
    case LinkKind::self: return (e == Engine::sm_read || e == Engine::sm_write) ? m.local_one_way : m.local_copy;
    default: return e == Engine::sm_split ? m.pcie_split : sm ? m.pcie_sm : m.pcie_ce;
  }
}

// Expected bandwidth of one transfer, alone on its link.
double expected_gbps(const System& sys, const Transfer& t, const TimeModel& m) {
  const bool local = !t.src.on_host() && !t.dst.on_host() && t.src.device == t.dst.device;
  Peak peak = transfer_peak(sys, t);
  LinkKind kind = LinkKind::pcie;
  if (local) {
    kind = LinkKind::self;
    const Peak& mem = sys.gpus.at(static_cast<std::size_t>(t.exec_device)).memory;
    peak = (t.engine == Engine::sm_read || t.engine == Engine::sm_write) ? mem : sys.link(t.src.device, t.dst.device).peak;
  } else if (!touches_host(t)) {
    kind = sys.link(t.src.device, t.dst.device).kind;
  }
  return peak.known() ? peak.gbps * efficiency(m, kind, t.engine) : m.unknown_link_gbps;
}

// The measurement's copies per sample: a sample lasts target_sample_s.
int copies_per_sample(double copy_s, const MeasureOptions& o) {
  if (o.copies_per_sample > 0) return o.copies_per_sample;
  return static_cast<int>(std::clamp(std::ceil(o.target_sample_s / std::max(copy_s, 1e-9)), 1.0, 1000.0));
}

double expected_samples(int host_transfers, double sample_s, const MeasureOptions& o, const TimeModel& m) {
  if (o.min_samples >= o.max_samples) return o.min_samples;
  const double f = std::min(1.0, m.contention * std::max(0, host_transfers - 1));
  double n = o.min_samples + f * (o.max_samples - o.min_samples);
  // Sampling stops at the first check after the budget is spent.
  n = std::min(n, std::max<double>(o.min_samples, std::floor(o.budget_s / sample_s) + 1));
  return n;
}

// Peer copies that share a GPU (the fan-in and fan-out cases) share its
// NVLinks: the bytes through its busiest GPU over that GPU's links.
double nvlink_bound_s(const System& sys, const std::vector<Transfer>& ts, const TimeModel& m) {
  std::vector<double> through(sys.gpus.size(), 0.0);
  for (const Transfer& t : ts) {
    if (touches_host(t) || t.src.device == t.dst.device) continue;
    for (const int g : {t.src.device, t.dst.device}) through.at(static_cast<std::size_t>(g)) += static_cast<double>(t.bytes);
  }
  double bound = 0;
  for (std::size_t g = 0; g < through.size(); ++g) {
    const GpuInfo& gi = sys.gpus[g];
    const double gbps = gi.nvlink_count * gi.nvlink_gbps_per_link * m.nvlink_ce;
    if (through[g] > 0 && gbps > 0) bound = std::max(bound, through[g] / (gbps * 1e9));
  }
  return bound;
}

CellEstimate estimate_cell(const System& sys, const CellPlan& cp, const MeasureOptions& o, const TimeModel& m) {
  CellEstimate e;
  const auto& ts = cp.scenario.transfers;
  e.transfers = static_cast<int>(ts.size());
  // A split-warp kernel moves both directions at once: two host transfers.
  int host = 0;
  for (const Transfer& t : ts) host += touches_host(t) ? (t.engine == Engine::sm_split ? 2 : 1) : 0;
  e.host_transfers = host;
  double verify_s = 0, bytes = 0;
  for (const Transfer& t : ts) {
    double gbps = expected_gbps(sys, t, m);
    // Host transfers share the host's memory bandwidth, a split kernel with
    // both of its directions.
    if (touches_host(t) && host > 1)
      gbps = std::min(gbps, m.host_memory_gbps * (t.engine == Engine::sm_split ? 2 : 1) / host);
    // An interfering transfer with repeat > 1 copies its buffer that often
    // per copy of the others.
    const double moved = static_cast<double>(t.bytes) * t.repeat;
    e.copy_s = std::max(e.copy_s, moved / (gbps * 1e9));
    verify_s += static_cast<double>(t.bytes) / (gbps * 1e9);  // the check reads the destination over the same link
    bytes += moved;
  }
  e.copy_s = std::max(e.copy_s, nvlink_bound_s(sys, ts, m));
  e.copies = copies_per_sample(e.copy_s, o);
  const double sample_s = e.copies * e.copy_s;
  e.samples = expected_samples(host, sample_s, o, m);
  e.bytes_moved = bytes * (o.warmup_copies + e.samples * e.copies);
  e.verify_s = o.verify ? verify_s : 0.0;
  e.seconds = m.cell_s + o.warmup_copies * e.copy_s + e.samples * sample_s + e.verify_s;
  return e;
}

CellEstimate estimate_latency_cell(const System& sys, const CellPlan& cp, const MeasureOptions& o,
                                   const TimeModel& m) {
  CellEstimate e;
  e.transfers = 1;
  const Transfer& t = cp.scenario.transfers.at(0);
  const double hops = kChaseHopsPerSm * sys.gpus.at(static_cast<std::size_t>(t.exec_device)).sm_count;
  const double ns = t.src.on_host() ? m.host_latency_ns : t.src.device == t.exec_device ? m.local_latency_ns
                                                                                         : m.peer_latency_ns;
  e.copy_s = hops * ns * 1e-9;
  e.copies = 1;
  e.samples = o.min_samples;  // chains are steady: recorded latency cells stop at the minimum
  e.seconds = m.latency_cell_s + (1 + e.samples) * e.copy_s;
  if (cp.scenario.transfers.size() > 1) {
    // Under load: the same chases again, slower, while the load's copies
    // run from before each one starts until after it ends.
    const double loaded_s = (1 + e.samples) * e.copy_s * m.loaded_latency_ratio;
    double gbps = 0;
    for (std::size_t i = 1; i < cp.scenario.transfers.size(); ++i)
      gbps += expected_gbps(sys, cp.scenario.transfers[i], m);
    e.transfers = static_cast<int>(cp.scenario.transfers.size());
    e.bytes_moved = loaded_s * gbps * 1e9;
    e.seconds += loaded_s;
  }
  return e;
}

// migration.cpp: per sample, each of its three figures places the pages
// (prefetch) and touches them; the 4 KiB figure only kSmallPageRegion.
CellEstimate estimate_migration_cell(const System& sys, const CellPlan& cp, const MeasureOptions& o,
                                     const TimeModel& m) {
  constexpr double kSmallRegion = 32.0 * 1024 * 1024;
  CellEstimate e;
  e.transfers = 1;
  e.host_transfers = 1;
  const Transfer& t = cp.scenario.transfers.at(0);
  const Peak& pcie = sys.gpus.at(static_cast<std::size_t>(t.exec_device)).host_link;
  const double gbps = pcie.known() ? pcie.gbps * m.pcie_ce : m.unknown_link_gbps;
  const double bytes = static_cast<double>(t.bytes);
  const double per_sample = 2 * (2 * bytes + std::min(bytes, kSmallRegion));  // place + touch
  e.copy_s = bytes / (gbps * 1e9);
  e.copies = 1;
  e.samples = o.min_samples;
  e.bytes_moved = bytes + e.samples * per_sample;  // the warm-up touch, then the samples
  e.seconds = m.cell_s + e.bytes_moved / (gbps * 1e9);
  return e;
}

// A cell measured nvbandwidth's way too (CellPlan::nvbandwidth): that
// scenario again, with its warm-up copies inside each sample.
CellEstimate estimate_bandwidth_cell(const System& sys, const CellPlan& cp, const MeasureOptions& o,
                                     const TimeModel& m) {
  CellEstimate e = estimate_cell(sys, cp, o, m);
  if (!cp.nvbandwidth || !o.nvbandwidth_way) return e;
  CellPlan nvb = cp;
  nvb.scenario = *cp.nvbandwidth;
  MeasureOptions per_sample = o;
  per_sample.copies_per_sample = (o.copies_per_sample > 0 ? o.copies_per_sample : kNvbandwidthLoopCount) +
                                 kNvbandwidthWarmups;
  const CellEstimate again = estimate_cell(sys, nvb, per_sample, m);
  e.seconds += again.seconds;
  e.bytes_moved += again.bytes_moved;
  return e;
}

CellEstimate estimate_any_cell(const System& sys, const CasePlan& plan, const CellPlan& cp, const MeasureOptions& o,
                               const TimeModel& m) {
  CellEstimate e = plan.latency     ? estimate_latency_cell(sys, cp, o, m)
                   : plan.migration ? estimate_migration_cell(sys, cp, o, m)
                                    : estimate_bandwidth_cell(sys, cp, o, m);
  e.row = cp.row;
  e.col = cp.col;
  return e;
}

// The drift check's reference cells, each measured at the start and the end.
double drift_check_seconds(const System& sys, std::uint64_t bytes, const MeasureOptions& o, const TimeModel& m,
                           int& cells) {
  double s = 0;
  cells = 0;
  const ReferencePlans plans = reference_plans(sys, bytes);
  for (const ReferenceCell& ref : reference_cells(sys)) {
    if (const CellPlan* cp = find_cell(plans.at(ref.case_name).second, ref.row, ref.col)) {
      s += 2 * estimate_cell(sys, *cp, o, m).seconds;
      ++cells;
    }
  }
  return s;
}

// Buffers a run creates, as the measurer's cache keys them.
class BufferTally {
 public:
  BufferTally(const System& sys, const MeasureOptions& o) : sys_(sys), o_(o) {}
  void use(const Location& loc, int exec, std::uint64_t bytes, int slot, CaseEstimate& c) {
    Location l = loc;
    if (l.kind == MemKind::pinned) l.kind = o_.host_kind;
    if (l.on_host() && l.numa == -1) l.numa = o_.numa_affinity ? sys_.host_node_of(exec) : kNoNumaPlacement;
    if (!seen_.insert({static_cast<int>(l.kind), l.device, l.numa, bytes, slot}).second) return;
    (l.on_host() ? c.new_host_bytes : c.new_device_bytes) += bytes;
  }

 private:
  const System& sys_;
  const MeasureOptions& o_;
  std::set<std::tuple<int, int, int, std::uint64_t, int>> seen_;
};

void tally_cell(const CellPlan& cp, bool latency, BufferTally& tally, CaseEstimate& c) {
  const auto& ts = cp.scenario.transfers;
  for (std::size_t i = 0; i < ts.size(); ++i) {
    const Transfer& t = ts[i];
    if (latency) {
      tally.use(t.src, t.exec_device, 2ull << 20, 1000, c);  // latency.cpp: one 2 MiB ring
      continue;
    }
    const int slot = static_cast<int>(i);
    if (uses_source(t.engine)) tally.use(t.src, t.exec_device, t.bytes, 2 * slot, c);
    if (uses_destination(t.engine)) tally.use(t.dst, t.exec_device, t.bytes, 2 * slot + 1, c);
  }
}

}  // namespace

const TimeModel& recorded_time_model() { return kRecorded; }

RunEstimate estimate_run(const System& sys, const std::vector<const CaseDef*>& cases, std::uint64_t bytes,
                         const MeasureOptions& opts, const PairSelection& pairs, bool drift_check,
                         const TimeModel& model) {
  RunEstimate run;
  run.pairs = pairs;
  run.start_s = model.start_s + model.start_per_gpu_s * sys.gpu_count();
  if (drift_check && !cases.empty()) run.drift_check_s = drift_check_seconds(sys, bytes, opts, model, run.drift_cells);
  run.seconds = run.start_s + run.drift_check_s;
  const std::vector<PlannedCase> plans = plan_run_cases(cases, sys, bytes, &pairs);
  run.peak_memory = run_memory_need(plans, sys);
  BufferTally tally(sys, opts);
  for (const PlannedCase& pc : plans) {
    CaseEstimate c;
    c.def = pc.def;
    if (pc.waived) {
      c.waived = *pc.waived;
      run.cases.push_back(std::move(c));
      continue;
    }
    const CasePlan& plan = pc.plan;
    if (plan.cells.empty()) c.waived = kNoCellLeft;
    c.seconds = plan.cells.empty() ? 0.0 : model.case_s;
    for (const CellPlan& cp : plan.cells) {
      // Migration cells allocate their managed buffer outside the pool.
      if (!plan.migration) tally_cell(cp, plan.latency, tally, c);
      c.cells.push_back(estimate_any_cell(sys, plan, cp, opts, model));
      c.seconds += c.cells.back().seconds;
      c.bytes_moved += c.cells.back().bytes_moved;
    }
    c.seconds += static_cast<double>(c.new_host_bytes) / kGiB * model.pin_s_per_gib +
                 static_cast<double>(c.new_device_bytes) / kGiB * model.device_s_per_gib;
    run.seconds += c.seconds;
    run.bytes_moved += c.bytes_moved;
    run.cells += static_cast<int>(c.cells.size());
    run.cases.push_back(std::move(c));
  }
  return run;
}

}  // namespace xb
