#include "check/soak_run.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/time_budget.hpp"
#include "check/telemetry.hpp"

namespace xb::check {
namespace {

[[noreturn]] void io_fail(const std::string& what, const std::string& path) {
  fail(ErrorKind::io, fmt::format("cannot {} '{}': {}", what, path, std::strerror(errno)));
}

bool bad_way(const std::string& unit, double change_pct) { return unit == "ns" ? change_pct > 0 : change_pct < 0; }

// The figures the status line shows: each cell's first value here, and the
// one furthest the bad way from it.
class WorstCell {
 public:
  void add(const soak::Sample& s) {
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
    std::vector<soak::GpuTelemetry>& out = by_cell_[{row, col}];
    out.clear();
    for (int g : gpus_used(def, row, col, sys_.gpu_count())) {
      const auto gi = static_cast<std::size_t>(g);
      if (gi < sys_.gpus.size()) out.push_back(to_soak_telemetry(g, nvml_->telemetry(sys_.gpus[gi].pci_bus_id)));
    }
  }
  std::vector<soak::GpuTelemetry> take(int row, int col) {
    const auto it = by_cell_.find({row, col});
    return it == by_cell_.end() ? std::vector<soak::GpuTelemetry>{} : it->second;
  }
  void clear() { by_cell_.clear(); }

 private:
  const NvmlQueries* nvml_;
  const System& sys_;
  std::map<std::pair<int, int>, std::vector<soak::GpuTelemetry>> by_cell_;
};

struct SoakState {
  SoakFileWriter& out;
  const SoakClock& clock;
  double t0 = 0;       // steady seconds at t_s 0
  soak::SoakData data;  // what the analysis keeps of every sample so far (a resumed file's too)
  WorstCell worst;

  double t_s() const { return clock.steady_s() - t0; }
  void write(soak::Sample s) {
    s.t_s = t_s();
    s.time_utc = utc_text(clock.utc_s());
    out.append(soak::sample_line(s));
    worst.add(s);
    data.add(s);
  }
};

// The samples of the cell just measured at (row, col): one per matrix it
// reports to, written as soon as the cell ends, with the telemetry read
// right after it.
void write_cell(SoakState& st, const CaseDef& def, const std::vector<Matrix>& matrices, int row, int col, int round,
                CellTelemetry& tele) {
  const std::vector<soak::GpuTelemetry> telemetry = tele.take(row, col);
  for (std::size_t m = 0; m < matrices.size(); ++m) {
    const Matrix& mx = matrices[m];
    const Cell* cell = find_cell(mx, row, col);
    if (!cell) continue;
    soak::Sample s;
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
    soak::Sample s;
    s.round = round;
    s.cell = c.name;
    s.unit = "gbps";
    s.error = c.message.empty() ? "case failed" : c.message;
    st.write(std::move(s));
  }
}

}  // namespace

SoakClock real_soak_clock() {
  return {[] { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); },
          [] { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); }};
}

std::string utc_text(double epoch_s) {
  const double whole = std::floor(epoch_s);
  const std::time_t t = static_cast<std::time_t>(whole);
  int ms = static_cast<int>(std::lround((epoch_s - whole) * 1000));
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
  return fmt::format("{}.{:03d}Z", buf, std::min(ms, 999));
}

double parse_duration(const std::string& text, const std::string& option) {
  // One unit (or none): the --time-limit rule. Several ("1h30m"): each
  // number with its unit, h before m before s.
  const auto units = std::count_if(text.begin(), text.end(), [](char ch) { return std::isalpha(static_cast<unsigned char>(ch)); });
  if (units <= 1) return parse_duration_s(text, option);
  double total = 0;
  std::size_t i = 0;
  std::string order = "hms";
  while (i < text.size()) {
    std::size_t j = i;
    while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
    const std::size_t unit = j < text.size() ? order.find(text[j]) : std::string::npos;
    if (j == i || unit == std::string::npos)
      fail(ErrorKind::usage, fmt::format("invalid {} '{}': expected a duration such as 90s, 30m, 8h or 1h30m", option, text));
    // strtod: digits too many for a double read as infinity (refused below), never throw.
    total += std::strtod(text.substr(i, j - i).c_str(), nullptr) * (text[j] == 'h' ? 3600 : text[j] == 'm' ? 60 : 1);
    order = order.substr(unit + 1);
    i = j + 1;
  }
  if (!(total > 0)) fail(ErrorKind::usage, fmt::format("invalid {} '{}': must be greater than 0", option, text));
  if (total > kMaxDurationS)  // the bound parse_duration_s sets
    fail(ErrorKind::usage, fmt::format("invalid {} '{}': longer than a year", option, text));
  return total;
}

std::string duration_text(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  if (s >= 3600) return fmt::format("{}h{:02d}m", s / 3600, (s % 3600) / 60);
  if (s >= 60) return fmt::format("{}m{:02d}s", s / 60, s % 60);
  return fmt::format("{}s", s);
}

namespace {

[[noreturn]] void holds_a_soak(const std::string& path, long long bytes, const std::string& option) {
  const std::string resume = option == "-o" ? fmt::format("--resume '{}' continues that soak, ", path) : "";
  fail(ErrorKind::usage, fmt::format("{} '{}' already holds {} bytes (a soak file holds one soak): {}--overwrite "
                                     "starts it anew", option, path, bytes, resume));
}

// The file behind standard output or error (-o /dev/stdout >> log): written
// through as it is, never refused or emptied, as every command writes there.
bool standard_stream(const struct stat& st) {
  for (const int fd : {STDOUT_FILENO, STDERR_FILENO}) {
    struct stat s {};
    if (::fstat(fd, &s) == 0 && s.st_dev == st.st_dev && s.st_ino == st.st_ino) return true;
  }
  return false;
}

// A regular file that holds something and is not a standard stream.
bool holds_something(const struct stat& st) { return S_ISREG(st.st_mode) && st.st_size > 0 && !standard_stream(st); }

}  // namespace

void check_soak_file_free(const std::string& path, SoakFileMode mode, const std::string& option) {
  struct stat st {};
  if (mode == SoakFileMode::start && ::stat(path.c_str(), &st) == 0 && holds_something(st))
    holds_a_soak(path, static_cast<long long>(st.st_size), option);
}

SoakFileWriter::SoakFileWriter(const std::string& path, SoakFileMode mode, const std::string& option) : path_(path) {
  // O_NONBLOCK: a FIFO without a reader fails at once instead of hanging;
  // the writes block again (a full pipe waits for its reader).
  const int flags = O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK | O_NOCTTY |
                    (mode == SoakFileMode::create_new ? O_EXCL : 0);
  fd_ = ::open(path.c_str(), flags, 0644);
  if (fd_ < 0) io_fail("write the soak file", path);
  ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !holds_something(st)) return;
  if (mode == SoakFileMode::start) {
    ::close(fd_);
    fd_ = -1;
    holds_a_soak(path, static_cast<long long>(st.st_size), option);
  }
  if (mode == SoakFileMode::overwrite && ::ftruncate(fd_, 0) != 0) io_fail("empty the soak file", path);
}

SoakFileWriter::~SoakFileWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void SoakFileWriter::append(const std::string& line) {
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) io_fail("append to the soak file", path_);
    done += static_cast<std::size_t>(n);
  }
}

void SoakFileWriter::drop_torn_tail() {
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) return;
  const int in = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);  // the append descriptor cannot read
  if (in < 0) io_fail("read the soak file", path_);
  off_t end = st.st_size;
  char ch = 0;
  while (end > 0 && ::pread(in, &ch, 1, end - 1) == 1 && ch != '\n') --end;
  ::close(in);
  if (end != st.st_size && ::ftruncate(fd_, end) != 0) io_fail("cut the torn last line of", path_);
}

std::string soak_status_text(const SoakStatus& s) {
  std::string line = fmt::format("soak {} of {}, ETA {}, round {}", duration_text(s.elapsed_s),
                                 duration_text(s.duration_s), duration_text(s.duration_s - s.elapsed_s), s.round);
  if (!s.worst_cell.empty()) line += fmt::format(", worst {} {:+.1f}%", s.worst_cell, s.worst_pct);
  return line;
}

soak::Header soak_header(const SoakRequest& req, const System& sys, const SoakClock& clock) {
  soak::Header h;
  h.command_line = req.command_line;
  h.start_time_utc = utc_text(clock.utc_s());
  h.host = sys.hostname;
  for (const GpuInfo& g : sys.gpus) h.gpus.push_back(fmt::format("gpu{} {} {}", g.index, g.name, g.uuid));
  for (const CaseDef* d : req.cases) h.cases.push_back(d->name);
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

soak::GpuTelemetry to_soak_telemetry(int gpu, const NvmlTelemetry& t) {
  soak::GpuTelemetry g;
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

SoakOutcome run_soak(SampleSource& src, const NvmlQueries* nvml, SoakRequest& req, SoakFileWriter& out,
                     const SoakClock& clock, const SoakCallbacks& cb) {
  SoakOutcome res;
  res.system = src.system();
  SoakState st{out, clock, 0, {}, {}};
  double start_t = 0;
  int round = 0;
  if (req.resume) {
    st.data = std::move(*req.resume);  // the request's copy is not needed again: no second copy of a long soak
    req.resume.reset();
    start_t = st.data.last_t_s();  // a resumed soak goes on from its last time and round
    round = st.data.rounds();
    st.t0 = clock.steady_s() - start_t;
    out.drop_torn_tail();
    out.append(soak::resume_line(start_t, utc_text(clock.utc_s())));
    st.data.resumed_at_s.push_back(start_t);
    st.data.torn_lines = 0;
    st.data.end.reset();
  } else {
    st.data.header = soak_header(req, res.system, clock);
    st.t0 = clock.steady_s();
    out.append(soak::header_line(st.data.header));
  }
  const double duration = req.duration_s > 0 ? req.duration_s : st.data.header.duration_s;
  CellTelemetry tele(nvml, res.system);
  RunRequest one;
  one.buffer_bytes = req.buffer_bytes;
  one.measure = req.measure;
  one.command_line = req.command_line;
  one.stability_check = false;
  int round_now = 0;
  one.on_cell = [&](const CaseDef& d, int row, int col, bool begin, const std::vector<Matrix>* measured) {
    tele.on_cell(d, row, col, begin);
    if (!begin && measured) write_cell(st, d, *measured, row, col, round_now, tele);
  };
  bool first_round = true;
  while (res.stop == StopReason::none && st.t_s() < duration) {
    round_now = ++round;
    const std::size_t before = st.data.samples().size();
    for (std::size_t i = 0; i < req.cases.size() && res.stop == StopReason::none; ++i) {
      one.cases = {req.cases[i]};
      tele.clear();
      RunResult r;
      try {
        r = run_cases(src, one, {}, {});
      } catch (const Error& e) {  // setup of the case (memory, pairs): its sample's error, the soak goes on
        CaseResult failed;
        failed.name = req.cases[i]->name;
        failed.status = CaseStatus::error;
        failed.message = e.what();
        r.cases.push_back(failed);
      }
      for (const CaseResult& c : r.cases) write_case(st, c, round);
      if (first_round && i == 0) res.first_round = r;
      else if (first_round) res.first_round.cases.insert(res.first_round.cases.end(), r.cases.begin(), r.cases.end());
      if (is_interruption(r.completion.stop)) {
        res.stop = r.completion.stop;
        res.stop_message = r.completion.message;
      }
      const bool time_up = st.t_s() >= duration;
      if (cb.on_status) {
        SoakStatus s;
        s.elapsed_s = st.t_s();
        s.duration_s = duration;
        s.round = round;
        s.round_done = i + 1 == req.cases.size() || time_up;
        st.worst.into(s);
        cb.on_status(s);
      }
      if (time_up) break;  // the soak ends after the case in flight
    }
    first_round = false;
    if (st.data.samples().size() == before && res.stop == StopReason::none) {
      res.error = "a whole round measured nothing: every case is waived on this machine";
      break;
    }
  }
  soak::End end;
  end.t_s = st.t_s();
  end.time_utc = utc_text(clock.utc_s());
  end.status = !res.error.empty() ? "error" : res.stop == StopReason::none ? "completed"
               : is_signal(res.stop) ? "interrupted" : "error";
  end.reason = res.error.empty() ? res.stop_message : res.error;
  out.append(soak::end_line(end));
  st.data.end = end;
  if (res.stop != StopReason::none) {
    res.first_round.completion.status = RunStatus::interrupted;
    res.first_round.completion.stop = res.stop;
    res.first_round.completion.message = res.stop_message;
  }
  res.summary = soak::analyze(st.data);
  res.header = std::move(st.data.header);
  return res;
}

RunResult with_soak_medians(RunResult run, const soak::SoakSummary& summary) {
  std::map<std::string, double> median;
  for (const soak::CellSummary& c : summary.cells)
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

}  // namespace xb::check
