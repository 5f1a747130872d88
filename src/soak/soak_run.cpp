#include "soak/soak_run.hpp"

#include <cmath>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "base/error.hpp"

namespace xb::soak {
namespace {

bool bad_way(const std::string& unit, double change_pct) { return unit == "ns" ? change_pct > 0 : change_pct < 0; }

// The figures the status line shows: each cell's first value here, and the
// one furthest the bad way from it.
class WorstCell {
 public:
  void add(const Sample& s) {
    if (!s.error.empty() || !(s.value > 0)) return;
    const auto [it, first] = first_.emplace(s.cell, s.value);
    if (first) return;
    const double pct = (s.value - it->second) / it->second * 100;
    if (!bad_way(s.unit, pct)) return;
    if (cell_.empty() || std::fabs(pct) > std::fabs(pct_)) {
      cell_ = s.cell;
      pct_ = pct;
    }
  }
  void into(SoakStatus& st) const {
    st.worst_cell = cell_;
    st.worst_pct = pct_;
  }

 private:
  std::map<std::string, double> first_;
  std::string cell_;
  double pct_ = 0;
};

// Telemetry read right after every cell of the case in flight, by cell.
class CellTelemetry {
 public:
  CellTelemetry(const NvmlQueries* nvml, const System& sys) : nvml_(nvml), sys_(sys) {}
  void on_cell(const CaseDef& def, int row, int col, bool begin) {
    if (begin || nvml_ == nullptr) return;
    std::vector<GpuTelemetry>& out = by_cell_[{row, col}];
    out.clear();
    for (int g : gpus_used(def, row, col, sys_.gpu_count())) {
      const auto gi = static_cast<std::size_t>(g);
      if (gi < sys_.gpus.size()) out.push_back(to_soak_telemetry(g, nvml_->telemetry(sys_.gpus[gi].pci_bus_id)));
    }
  }
  std::vector<GpuTelemetry> take(int row, int col) {
    const auto it = by_cell_.find({row, col});
    return it == by_cell_.end() ? std::vector<GpuTelemetry>{} : it->second;
  }
  void clear() { by_cell_.clear(); }

 private:
  const NvmlQueries* nvml_;
  const System& sys_;
  std::map<std::pair<int, int>, std::vector<GpuTelemetry>> by_cell_;
};

struct SoakState {
  const LineSink& out;
  const SoakClock& clock;
  double t0 = 0;       // steady seconds at t_s 0
  SoakData data;  // what the analysis keeps of every sample so far (a resumed file's too)
  WorstCell worst;

  double t_s() const { return clock.steady_s() - t0; }
  void write(Sample s) {
    s.t_s = t_s();
    s.time_utc = utc_text(clock.utc_s());
    out(sample_line(s));
    worst.add(s);
    data.add(s);
  }
};

// The samples of the cell just measured at (row, col): one per matrix it
// reports to, written as soon as the cell ends, with the telemetry read
// right after it.
void write_cell(SoakState& st, const CaseDef& def, const std::vector<Matrix>& matrices, int row, int col, int round,
                CellTelemetry& tele) {
  const std::vector<GpuTelemetry> telemetry = tele.take(row, col);
  for (std::size_t m = 0; m < matrices.size(); ++m) {
    const Matrix& mx = matrices[m];
    const Cell* cell = find_cell(mx, row, col);
    if (!cell) continue;
    Sample s;
    s.round = round;
    s.cell = soak_cell_name(def.name, matrices, m, *cell);
    s.unit = mx.metric == Metric::latency_ns ? "ns" : "gbps";
    s.value = cell->value;
    if (mx.metric == Metric::bandwidth_gbps && cell->peak.known()) s.peak_gbps = cell->peak.gbps;
    if (cell->loaded) {
      s.idle_ns = cell->loaded->idle_ns;
      s.load_gbps = cell->loaded->load_gbps;
      if (cell->loaded->load_peak.known()) s.load_pct = cell->loaded->load_pct;
    }
    s.verified = cell->verification.status != Verification::Status::failed;
    s.error = !cell->error.empty() ? cell->error : cell->invalid ? cell->invalid_reason : "";
    s.telemetry = telemetry;
    st.write(std::move(s));
  }
}

// A case that failed before any cell: one sample naming the case (its
// cells were written as they were measured).
void write_case(SoakState& st, const CaseResult& c, int round) {
  if (c.status == CaseStatus::waived) return;
  bool any = false;
  for (const Matrix& m : c.matrices) any = any || !m.cells.empty();
  if (!any && (c.status == CaseStatus::error || c.status == CaseStatus::failed)) {
    Sample s;
    s.round = round;
    s.cell = c.name;
    s.unit = "gbps";
    s.error = c.message.empty() ? "case failed" : c.message;
    st.write(std::move(s));
  }
}

// One case of the preset through the runner, as a one-case run; an error
// setting the case up (memory, pairs) becomes the case's error, and the
// soak goes on.
RunResult run_one_case(SampleSource& src, RunRequest& one, const CaseDef* def) {
  one.cases = {def};
  try {
    return run_cases(src, one, {}, {});
  } catch (const Error& e) {
    CaseResult failed;
    failed.name = def->name;
    failed.status = CaseStatus::error;
    failed.message = e.what();
    RunResult r;
    r.cases.push_back(failed);
    return r;
  }
}

const char* end_status(const Completion& c) {
  if (!c.error.empty()) return "error";
  if (c.stop == StopReason::none) return "completed";
  return is_signal(c.stop) ? "interrupted" : "error";
}

// The soak's rounds over the preset: opens the file (header, or the
// resume line), runs rounds until the duration is over or a stop, and
// closes it (end line, summary).
class SoakLoop {
 public:
  SoakLoop(SampleSource& src, const NvmlQueries* nvml, SoakRequest& req, const LineSink& out, const SoakClock& clock,
           const SoakCallbacks& cb)
      : src_(src), req_(req), clock_(clock), cb_(cb), st_{out, clock, 0, {}, {}}, tele_(nvml, src.system()) {
    res_.system = src.system();
    one_ = req.preset;
    one_.stability_check = false;
    one_.on_cell = [this](const CaseDef& d, int row, int col, bool begin, const std::vector<Matrix>* measured) {
      tele_.on_cell(d, row, col, begin);
      if (!begin && measured) write_cell(st_, d, *measured, row, col, round_, tele_);
    };
  }

  SoakOutcome run() {
    open();
    while (!stopped() && st_.t_s() < duration_)
      if (!run_round()) break;
    close();
    return std::move(res_);
  }

 private:
  bool stopped() const { return res_.completion.stop != StopReason::none; }

  void open() {
    if (req_.resume) {
      st_.data = std::move(*req_.resume);  // the request's copy is not needed again: no second copy of a long soak
      req_.resume.reset();
      const double start_t = st_.data.last_t_s();  // a resumed soak goes on from its last time and round
      round_ = st_.data.rounds();
      st_.t0 = clock_.steady_s() - start_t;
      st_.out(resume_line(start_t, utc_text(clock_.utc_s())));
      st_.data.resumed_at_s.push_back(start_t);
      st_.data.torn_lines = 0;
      st_.data.end.reset();
    } else {
      st_.data.header = soak_header(req_, res_.system, clock_);
      st_.t0 = clock_.steady_s();
      st_.out(header_line(st_.data.header));
    }
    duration_ = req_.duration_s > 0 ? req_.duration_s : st_.data.header.duration_s;
  }

  // Every case of the preset once, ending after the case in flight when
  // the time is up. False: the round measured nothing (the soak's error).
  bool run_round() {
    ++round_;
    const std::size_t before = st_.data.samples().size();
    const std::vector<const CaseDef*>& cases = req_.preset.cases;
    for (std::size_t i = 0; i < cases.size() && !stopped(); ++i) {
      tele_.clear();
      record(run_one_case(src_, one_, cases[i]), i == 0);
      const bool time_up = st_.t_s() >= duration_;
      status(i + 1 == cases.size() || time_up);
      if (time_up) break;
    }
    first_round_ = false;
    if (st_.data.samples().size() != before || stopped()) return true;
    res_.completion.error = "a whole round measured nothing: every case is waived on this machine";
    res_.completion.error_kind = ErrorKind::verification;
    return false;
  }

  // A case's failure before any cell, the first round's results, the stop.
  void record(const RunResult& r, bool first_case) {
    for (const CaseResult& c : r.cases) write_case(st_, c, round_);
    if (first_round_ && first_case) res_.first_round = r;
    else if (first_round_) res_.first_round.cases.insert(res_.first_round.cases.end(), r.cases.begin(), r.cases.end());
    if (!is_interruption(r.completion.stop)) return;
    res_.completion.stop = r.completion.stop;
    res_.completion.message = r.completion.message;
  }

  void status(bool round_done) {
    if (!cb_.on_status) return;
    SoakStatus s;
    s.elapsed_s = st_.t_s();
    s.duration_s = duration_;
    s.round = round_;
    s.round_done = round_done;
    st_.worst.into(s);
    cb_.on_status(s);
  }

  void close() {
    Completion& c = res_.completion;
    if (stopped()) {
      c.status = RunStatus::interrupted;
      res_.first_round.completion.status = RunStatus::interrupted;
      res_.first_round.completion.stop = c.stop;
      res_.first_round.completion.message = c.message;
    }
    End end;
    end.t_s = st_.t_s();
    end.time_utc = utc_text(clock_.utc_s());
    end.status = end_status(c);
    end.reason = c.error.empty() ? c.message : c.error;
    st_.out(end_line(end));
    st_.data.end = end;
    res_.summary = analyze(st_.data);
    res_.header = std::move(st_.data.header);
  }

  SampleSource& src_;
  SoakRequest& req_;
  const SoakClock& clock_;
  const SoakCallbacks& cb_;
  SoakState st_;
  CellTelemetry tele_;
  RunRequest one_;  // the preset, one case at a time
  SoakOutcome res_;
  double duration_ = 0;
  int round_ = 0;
  bool first_round_ = true;
};

}  // namespace

std::string soak_status_text(const SoakStatus& s) {
  std::string line = fmt::format("soak {} of {}, ETA {}, round {}", duration_text(s.elapsed_s),
                                 duration_text(s.duration_s), duration_text(s.duration_s - s.elapsed_s), s.round);
  if (!s.worst_cell.empty()) line += fmt::format(", worst {} {:+.1f}%", s.worst_cell, s.worst_pct);
  return line;
}

Header soak_header(const SoakRequest& req, const System& sys, const SoakClock& clock) {
  Header h;
  h.command_line = req.preset.command_line;
  h.start_time_utc = utc_text(clock.utc_s());
  h.host = sys.hostname;
  for (const GpuInfo& g : sys.gpus) h.gpus.push_back(fmt::format("gpu{} {} {}", g.index, g.name, g.uuid));
  for (const CaseDef* d : req.preset.cases) h.cases.push_back(d->name);
  h.duration_s = req.duration_s;
  return h;
}

std::string soak_cell_name(const std::string& case_name, const std::vector<Matrix>& matrices, std::size_t matrix,
                           const Cell& cell) {
  const Matrix& m = matrices[matrix];
  if (matrix == 0 || m.name.empty()) return fmt::format("{}[{},{}]", case_name, cell.row, cell.col);
  return fmt::format("{}/{}[{},{}]", case_name, m.name, cell.row, cell.col);
}

std::string soak_cell_name(const CaseResult& c, std::size_t matrix, const Cell& cell) {
  return soak_cell_name(c.name, c.matrices, matrix, cell);
}

GpuTelemetry to_soak_telemetry(int gpu, const NvmlTelemetry& t) {
  GpuTelemetry g;
  g.gpu = gpu;
  g.temperature_c = t.temperature_c;
  g.power_w = t.power_w;
  g.sm_clock_mhz = t.sm_clock_mhz;
  g.mem_clock_mhz = t.mem_clock_mhz;
  g.clock_reasons = t.clock_reasons;
  g.ecc_corrected = t.ecc_corrected;
  g.ecc_uncorrected = t.ecc_uncorrected;
  g.rows_remapped_correctable = t.rows_remapped_correctable;
  g.rows_remapped_uncorrectable = t.rows_remapped_uncorrectable;
  g.row_remap_pending = t.row_remap_pending;
  g.row_remap_failure = t.row_remap_failure;
  g.pcie_replays = t.pcie_replays;
  g.xids = t.xids;
  return g;
}

SoakOutcome run_soak(SampleSource& src, const NvmlQueries* nvml, SoakRequest& req, const LineSink& out,
                     const SoakClock& clock, const SoakCallbacks& cb) {
  return SoakLoop(src, nvml, req, out, clock, cb).run();
}

RunResult with_soak_medians(RunResult run, const SoakSummary& summary) {
  std::map<std::string, double> median;
  for (const CellSummary& c : summary.cells)
    if (c.samples > c.failed) median[c.cell] = c.median;
  for (CaseResult& c : run.cases)
    for (std::size_t m = 0; m < c.matrices.size(); ++m)
      for (Cell& cell : c.matrices[m].cells) {
        const auto it = median.find(soak_cell_name(c, m, cell));
        if (it == median.end()) continue;
        cell.value = it->second;
        cell.efficiency = cell.peak.known() && cell.peak.gbps > 0 ? cell.value / cell.peak.gbps : 0;
      }
  return run;
}

}  // namespace xb::soak
