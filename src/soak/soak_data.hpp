// A soak file as the analysis keeps it: the header, resume and end lines,
// and of each sample only the numbers the analysis reads (32 bytes, and 8
// per GPU reading; a sample line xferbench writes is 400-900 bytes), so a
// soak of days is summarised, compared and resumed in memory far below the
// file's size (a 300 MiB file in under 200 MiB). Telemetry is kept
// as each GPU's error counters and slowdown bits, stored once per change:
// temperature, power and clocks are drawn by `xferbench plot` but not
// analysed. Samples and readings are kept in deques, which grow without
// copying what they hold (a vector's growth would need twice the memory).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "soak/soak_record.hpp"

namespace xb::soak {

// What the analysis reads of one GPU's telemetry.
struct TelemetryState {
  int gpu = 0;
  std::uint64_t slowdown = 0;  // clock_reasons & clock_reason::slowdown
  std::optional<std::uint64_t> ecc_corrected, ecc_uncorrected;
  std::optional<std::uint64_t> rows_remapped_correctable, rows_remapped_uncorrectable;
  std::optional<bool> row_remap_pending, row_remap_failure;
  std::optional<std::uint64_t> pcie_replays;
  bool same(const TelemetryState& o) const;
};

// One sample: its time, value and cell.
struct SamplePoint {
  double t_s = 0, value = 0;
  // Its time_utc: milliseconds since the epoch when the text is the form
  // xferbench writes ("2026-11-25T12:03:04.123Z", given back exactly);
  // otherwise an index into the few other texts kept as they are.
  std::int64_t time = 0;
  std::uint32_t cell = 0;     // index into SoakData::cells()
  bool time_is_text = false;
  bool failed = false;        // an error or a failed data check
  bool has_value = false;     // no error: `value` is a measurement
  bool weak_load = false;     // a loaded-latency sample under a load below 50% of its peak
};

// One GPU's telemetry read after a sample.
struct Reading {
  std::uint32_t sample = 0;  // index into SoakData::samples()
  std::uint32_t state = 0;   // index into SoakData::states()
};

struct CellInfo {
  std::string name, unit;
};

class SoakData {
 public:
  Header header;
  std::vector<double> resumed_at_s;
  std::optional<End> end;
  int torn_lines = 0;

  // Keeps what the analysis needs of `s`. Throws Error(usage) beyond the
  // limits below (a file no soak writes).
  void add(const Sample& s);

  const std::deque<SamplePoint>& samples() const noexcept { return samples_; }
  const std::vector<CellInfo>& cells() const noexcept { return cells_; }
  const std::deque<Reading>& readings() const noexcept { return readings_; }
  const std::vector<TelemetryState>& states() const noexcept { return states_; }
  // The XIDs of reading `r` (in the order the file lists them).
  std::vector<std::uint64_t> xids(std::size_t reading) const;
  std::string time_utc(const SamplePoint& p) const;
  int rounds() const noexcept { return rounds_; }
  // The last time the file reached: its samples, resumes and end line.
  double last_t_s() const;

  // A cell name, and the stored part of a time text not in xferbench's
  // form, are at most this long; a file has at most kMaxCells cells.
  static constexpr std::size_t kMaxCellName = 1024, kMaxTimeText = 64, kMaxCells = 20000;

 private:
  std::uint32_t cell_index(const Sample& s);
  std::uint32_t state_index(const TelemetryState& t);

  std::deque<SamplePoint> samples_;
  std::vector<CellInfo> cells_;
  std::map<std::string, std::uint32_t> cell_index_;
  std::deque<Reading> readings_;
  std::vector<TelemetryState> states_;
  std::vector<std::uint32_t> last_state_;  // per GPU: its latest state index + 1 (0: none yet)
  std::vector<std::pair<std::uint32_t, std::uint64_t>> xids_;  // (reading, XID)
  std::vector<std::string> other_times_;  // time texts not in xferbench's form (hand-made files)
  int rounds_ = 0;
  double last_sample_t_s_ = 0;
};

// Reads the soak file at `path` into SoakData, one line at a time
// (read_soak_lines: the same checks and messages).
SoakData read_soak_data(const std::string& path);
SoakData read_soak_data(InputFile& in);
// The same from records already in memory.
SoakData soak_data_of(const SoakFile& f);

}  // namespace xb::soak
