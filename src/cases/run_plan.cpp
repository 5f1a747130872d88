#include "cases/run_plan.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>
#include <tuple>

#include "cases/case_plan.hpp"
#include "memory/buffer_pool.hpp"
#include "memory/memory_plan.hpp"
#include "records/stability.hpp"

namespace xb {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kChaseHopsPerSm = 400;  // latency.cpp: hops per SM per sample

// Fitted by bench/fit_time_model.py to the 38 full-catalogue runs recorded
// in bench/results from 2026-11-22 on (1, 2 and 4 GPUs; H200 and H100); the
// start-up from the 18 timed from process start, among them the runs of
// 2026-11-27 and 2026-11-28 on 1, 2 and 4 x H200 and 4 x H100 that measure
// nvbandwidth's way too (bench/results/2026-11-28-time-model-refit-a2h.txt).
// Efficiencies are the medians of recorded cells over their links' peaks.
// The start-up is a line through machines of both kinds: its intercept is
// negative, its value at 1 to 4 GPUs 0.39 to 2.16 s.
const TimeModel kRecorded{
    /*start_s=*/-0.1997,
    /*start_per_gpu_s=*/0.5905,
    /*case_s=*/0.0,    // fitted 0: the cell terms cover it
    /*cell_s=*/0.0,    // fitted 0: the warm-up and verification terms cover it
    /*latency_cell_s=*/0.0061,
    /*second_s=*/0.0902,
    /*pin_s_per_gib=*/0.3968,
    /*device_s_per_gib=*/0.0680,
    /*host_memory_gbps=*/145.6,  // median over cells with 4+ host transfers at once
    /*contention=*/0.254,
    /*contention_in_place=*/0.072,
    /*host_latency_ns=*/1185.0,  // recorded host_device_latency_sm cells
    /*peer_latency_ns=*/831.0,   // recorded device_to_device_latency_sm cells
    /*local_latency_ns=*/337.0,  // device_local_latency_sm on H200, bench/results/2026-11-25-h200-loaded-latency
    /*loaded_latency_ratio=*/3.0,  // the same recording: 1.4-4.8, host under host->GPU 2.8
    /*pcie_ce=*/0.878, /*pcie_sm=*/0.822, /*pcie_split=*/1.332,
    /*pcie_ce_duplex=*/0.807,
    /*nvlink_ce=*/0.827, /*nvlink_sm=*/0.785,
    /*local_copy=*/0.869,
    /*local_one_way=*/0.9,       // no recording yet: a guess, used for the read-only/write-only cases
    /*unknown_link_gbps=*/25.0,  // a link without a known peak: a guess
};

bool touches_host(const Transfer& t) { return t.src.on_host() || t.dst.on_host(); }
// Host transfers stream host memory and share its bandwidth, unless they
// repeat each piece in place (nvbandwidth's split-warp order: a few MiB in
// use at any moment; recorded at the PCIe rate with every GPU at once).
bool streams_host(const Transfer& t) { return touches_host(t) && !t.repeat_in_place; }

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

// Adaptive sampling watches the cell's first output. In the recorded runs
// (bench/results, 1 to 4 GPUs) that figure settles in --min-samples unless
// other host transfers run beside it: any of them unsettles a transfer that
// reads host memory (host -> GPU, a split-warp kernel), only those that
// also write host memory unsettle one that only writes it (GPU -> host:
// device_to_host_bidirectional_memcpy_ce took 3 samples in every recorded
// cell, host_to_device_bidirectional_memcpy_ce 3 to 40). A split-warp
// kernel counts once. A figure of several transfers: every host transfer.
int contending_host_transfers(const CellPlan& cp) {
  const auto& ts = cp.scenario.transfers;
  const Output* out = cp.outputs.empty() ? nullptr : &cp.outputs.front();
  const Transfer* watched = out && out->kind == Output::Kind::transfer ? &ts.at(static_cast<std::size_t>(out->first)) : nullptr;
  if (watched && !touches_host(*watched)) return 0;
  const bool writes_only = watched && watched->engine != Engine::sm_split && watched->dst.on_host();
  int k = 0;
  for (const Transfer& t : ts)
    if (touches_host(t) && (!writes_only || t.dst.on_host() || t.engine == Engine::sm_split)) ++k;
  return k;
}

double expected_samples(int contending, bool in_place, double sample_s, const MeasureOptions& o, const TimeModel& m) {
  if (o.min_samples >= o.max_samples) return o.min_samples;
  const double c = in_place ? m.contention_in_place : m.contention;
  const double f = std::min(1.0, c * std::max(0, contending - 1));
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
  for (const Transfer& t : ts) host += streams_host(t) ? (t.engine == Engine::sm_split ? 2 : 1) : 0;
  e.host_transfers = host;
  e.contending = contending_host_transfers(cp);
  double verify_s = 0, bytes = 0;
  bool to_host = false, from_host = false;
  for (const Transfer& t : ts) {
    to_host |= streams_host(t) && t.dst.on_host();
    from_host |= streams_host(t) && t.src.on_host();
  }
  for (const Transfer& t : ts) {
    double gbps = expected_gbps(sys, t, m);
    // Copy-engine host copies both ways at once (the bidirectional CE cases).
    if (to_host && from_host && t.engine == Engine::copy_engine && touches_host(t) && gbps > 0)
      gbps *= m.pcie_ce_duplex / m.pcie_ce;
    // Host transfers share the host's memory bandwidth, a split kernel with
    // both of its directions.
    if (streams_host(t) && host > 1)
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
  e.samples = expected_samples(e.contending, ts.front().repeat_in_place, sample_s, o, m);
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
  e.nvbandwidth = CellEstimate::Second{again.copy_s, again.copies, again.samples, m.second_s + again.seconds};
  e.seconds += e.nvbandwidth->seconds;
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

// Buffers a run creates: the run's buffer pool (buffer_pool.hpp) itself,
// over buffers that are only sizes. It reuses by place and size and frees
// the least recently used buffers to stay inside the run's budget (the
// planned peak memory), so a buffer freed that way is created again.
class BufferTally {
 public:
  struct Size {
    std::uint64_t n;
    std::uint64_t bytes() const { return n; }
    std::uint64_t seed() const { return 1; }
    std::uint64_t content_seed() const { return 0; }
  };
  BufferTally(const System& sys, const MeasureOptions& o, const MemoryAmount& budget)
      : sys_(sys), o_(o), pool_([this](const Location& loc, std::uint64_t bytes) {
          if (case_) (loc.on_host() ? case_->new_host_bytes : case_->new_device_bytes) += bytes;
          return std::make_unique<Size>(Size{bytes});
        }) {
    pool_.set_budget(budget, false);
  }
  // The buffers of one scenario, created or reused; new ones count for `c`.
  void use(const Scenario& sc, bool latency, CaseEstimate& c) {
    auto resolve = [this](const Location& loc, int exec) {
      Location l = loc;
      if (l.kind == MemKind::pinned) l.kind = o_.host_kind;
      if (l.on_host() && l.numa == -1) l.numa = o_.numa_affinity ? sys_.host_node_of(exec) : kNoNumaPlacement;
      return l;
    };
    std::vector<BufferRequest> requests;
    if (latency) {
      const Transfer& t = sc.transfers.at(0);
      requests.push_back({resolve(t.src, t.exec_device), 2ull << 20, true});  // latency.cpp: one 2 MiB ring
    } else {
      requests = scenario_requests(sc, resolve);
    }
    case_ = &c;
    pool_.acquire(requests);
    case_ = nullptr;
  }

 private:
  const System& sys_;
  const MeasureOptions& o_;
  CaseEstimate* case_ = nullptr;
  BasicBufferPool<Size> pool_;
};

// The drift check's reference cells, each measured at the start (inside the
// first case's first cell, which then finds their buffers) and the end.
void estimate_drift_check(const System& sys, std::uint64_t bytes, const MeasureOptions& o, const TimeModel& m,
                          BufferTally& tally, RunEstimate& run) {
  double s = 0;
  int cells = 0;
  CaseEstimate buffers;
  const ReferencePlans plans = reference_plans(sys, bytes);
  for (const ReferenceCell& ref : reference_cells(sys)) {
    if (const CellPlan* cp = find_cell(plans.at(ref.case_name).second, ref.row, ref.col)) {
      tally.use(cp->scenario, false, buffers);
      s += 2 * estimate_cell(sys, *cp, o, m).seconds;
      ++cells;
    }
  }
  run.drift_cells = cells;
  run.drift_copies_s = s;
  run.drift_new_host_bytes = buffers.new_host_bytes;
  run.drift_new_device_bytes = buffers.new_device_bytes;
  run.drift_check_s = s + static_cast<double>(buffers.new_host_bytes) / kGiB * m.pin_s_per_gib +
                      static_cast<double>(buffers.new_device_bytes) / kGiB * m.device_s_per_gib;
}

}  // namespace

const TimeModel& recorded_time_model() { return kRecorded; }

RunEstimate estimate_run(const System& sys, const std::vector<const CaseDef*>& cases, std::uint64_t bytes,
                         const MeasureOptions& opts, const PairSelection& pairs, bool drift_check,
                         const TimeModel& model) {
  RunEstimate run;
  run.pairs = pairs;
  run.start_s = model.start_s + model.start_per_gpu_s * sys.gpu_count();
  const std::vector<PlannedCase> plans = plan_run_cases(cases, sys, bytes, &pairs);
  run.peak_memory = run_memory_need(plans, sys);
  BufferTally tally(sys, opts, run.peak_memory);
  if (drift_check && !cases.empty()) estimate_drift_check(sys, bytes, opts, model, tally, run);
  run.seconds = run.start_s + run.drift_check_s;
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
      if (!plan.migration) {
        tally.use(cp.scenario, plan.latency, c);
        if (cp.nvbandwidth && opts.nvbandwidth_way && !plan.latency) tally.use(*cp.nvbandwidth, false, c);
      }
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
