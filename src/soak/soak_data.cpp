#include "soak/soak_data.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <tuple>

#include <fmt/format.h>

#include "base/error.hpp"
#include "machine/nvml.hpp"

namespace xb::soak {
namespace {

// The XIDs a reading keeps: more in one sample is not an event NVML sends.
constexpr std::size_t kMaxXidsPerReading = 16;

TelemetryState state_of(const GpuTelemetry& t) {
  TelemetryState s;
  s.gpu = t.gpu;
  s.slowdown = t.clock_reasons.value_or(0) & clock_reason::slowdown;
  s.ecc_corrected = t.ecc_corrected;
  s.ecc_uncorrected = t.ecc_uncorrected;
  s.rows_remapped_correctable = t.rows_remapped_correctable;
  s.rows_remapped_uncorrectable = t.rows_remapped_uncorrectable;
  s.row_remap_pending = t.row_remap_pending;
  s.row_remap_failure = t.row_remap_failure;
  s.pcie_replays = t.pcie_replays;
  return s;
}

// "2026-11-25T12:03:04.123Z" for milliseconds since the epoch.
std::string text_of_ms(std::int64_t ms) {
  const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return fmt::format("{}.{:03d}Z", buf, static_cast<int>(ms % 1000));
}

// The milliseconds of a time text in the form xferbench writes, when
// text_of_ms gives the same text back; empty otherwise.
std::optional<std::int64_t> canonical_ms(const std::string& text) {
  if (text.size() != 24 || text[4] != '-' || text[10] != 'T' || text[19] != '.' || text[23] != 'Z') return {};
  std::tm tm{};
  int ms = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d.%3dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                  &tm.tm_min, &tm.tm_sec, &ms) != 7 || tm.tm_year < 1970)
    return {};
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  const std::int64_t value = static_cast<std::int64_t>(timegm(&tm)) * 1000 + ms;
  if (value < 0 || text_of_ms(value) != text) return {};
  return value;
}

auto fields_of(const TelemetryState& s) {
  return std::tie(s.gpu, s.slowdown, s.ecc_corrected, s.ecc_uncorrected, s.rows_remapped_correctable,
                  s.rows_remapped_uncorrectable, s.row_remap_pending, s.row_remap_failure, s.pcie_replays);
}

class DataSink final : public SoakSink {
 public:
  explicit DataSink(SoakData& d) : d_(d) {}
  void header(Header h) override { d_.header = std::move(h); }
  void sample(Sample s) override { d_.add(s); }
  void resume(double t_s) override { d_.resumed_at_s.push_back(t_s); }
  void end(End e) override { d_.end = std::move(e); }

 private:
  SoakData& d_;
};

}  // namespace

bool TelemetryState::same(const TelemetryState& o) const { return fields_of(*this) == fields_of(o); }

std::uint32_t SoakData::cell_index(const Sample& s) {
  if (s.cell.size() > kMaxCellName)
    fail(ErrorKind::usage, fmt::format("cell name of {} bytes, longer than the {} a soak writes", s.cell.size(),
                                       kMaxCellName));
  const auto it = cell_index_.find(s.cell);
  if (it != cell_index_.end()) return it->second;
  if (cells_.size() >= kMaxCells)
    fail(ErrorKind::usage, fmt::format("more than {} cells (no soak of xferbench's cases has as many)", kMaxCells));
  const auto index = static_cast<std::uint32_t>(cells_.size());
  cells_.push_back({s.cell, s.unit});
  cell_index_.emplace(s.cell, index);
  return index;
}

std::uint32_t SoakData::state_index(const TelemetryState& t) {
  const auto gpu = static_cast<std::size_t>(t.gpu);
  if (gpu >= last_state_.size()) last_state_.resize(gpu + 1, 0);
  // Counters and slowdown bits rarely change: a GPU's reading usually
  // shares the state of its previous one.
  const std::uint32_t last = last_state_[gpu];
  if (last > 0 && states_[last - 1].same(t)) return last - 1;
  states_.push_back(t);
  last_state_[gpu] = static_cast<std::uint32_t>(states_.size());
  return last_state_[gpu] - 1;
}

void SoakData::add(const Sample& s) {
  if (samples_.size() >= UINT32_MAX) fail(ErrorKind::usage, "more than 2^32 samples");
  SamplePoint p;
  p.t_s = s.t_s;
  p.value = s.value;
  p.cell = cell_index(s);
  p.has_value = s.error.empty();
  p.failed = !s.error.empty() || !s.verified;
  p.weak_load = s.load_pct && *s.load_pct < 50;
  if (const auto ms = canonical_ms(s.time_utc)) {
    p.time = *ms;
  } else {
    p.time_is_text = true;
    p.time = static_cast<std::int64_t>(other_times_.size());
    other_times_.push_back(s.time_utc.substr(0, kMaxTimeText));
  }
  const auto index = static_cast<std::uint32_t>(samples_.size());
  samples_.push_back(p);
  for (const GpuTelemetry& t : s.telemetry) {
    const auto reading = static_cast<std::uint32_t>(readings_.size());
    readings_.push_back({index, state_index(state_of(t))});
    for (std::size_t x = 0; x < std::min(t.xids.size(), kMaxXidsPerReading); ++x) xids_.emplace_back(reading, t.xids[x]);
  }
  rounds_ = std::max(rounds_, s.round);
  last_sample_t_s_ = std::max(last_sample_t_s_, s.t_s);
}

std::vector<std::uint64_t> SoakData::xids(std::size_t reading) const {
  std::vector<std::uint64_t> out;
  auto it = std::lower_bound(xids_.begin(), xids_.end(), reading,
                             [](const auto& entry, std::size_t r) { return entry.first < r; });
  for (; it != xids_.end() && it->first == reading; ++it) out.push_back(it->second);
  return out;
}

std::string SoakData::time_utc(const SamplePoint& p) const {
  return p.time_is_text ? other_times_[static_cast<std::size_t>(p.time)] : text_of_ms(p.time);
}

double SoakData::last_t_s() const {
  double t = last_sample_t_s_;
  for (double r : resumed_at_s) t = std::max(t, r);
  if (end) t = std::max(t, end->t_s);
  return t;
}

SoakData read_soak_data(const std::string& path) {
  SoakData d;
  DataSink sink(d);
  d.torn_lines = read_soak_lines(path, sink);
  return d;
}

SoakData read_soak_data(InputFile& in) {
  SoakData d;
  DataSink sink(d);
  d.torn_lines = read_soak_lines(in, sink);
  return d;
}

SoakData soak_data_of(const SoakFile& f) {
  SoakData d;
  d.header = f.header;
  d.resumed_at_s = f.resumed_at_s;
  d.end = f.end;
  d.torn_lines = f.torn_lines;
  for (const Sample& s : f.samples) d.add(s);
  return d;
}

}  // namespace xb::soak
