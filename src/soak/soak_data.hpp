// A soak file as the analysis keeps it: the header, resume and end lines,
// and of each sample only the numbers the analysis reads (about 60 bytes,
// a tenth of its line), so a soak of days is summarised, compared and
// resumed in memory far below the file's size (issue 46: a 300 MiB file
// in under 200 MiB). Telemetry is kept as each GPU's error counters and
// slowdown bits, stored once per change: temperature, power and clocks are
// drawn by `xferbench plot` but not analysed.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
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
  std::uint64_t time_at = 0;  // its time_utc in the text store
  std::uint32_t cell = 0;     // index into SoakData::cells()
  std::uint8_t time_length = 0;
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

  const std::vector<SamplePoint>& samples() const noexcept { return samples_; }
  const std::vector<CellInfo>& cells() const noexcept { return cells_; }
  const std::vector<Reading>& readings() const noexcept { return readings_; }
  const std::vector<TelemetryState>& states() const noexcept { return states_; }
  // The XIDs of reading `r` (in the order the file lists them).
  std::vector<std::uint64_t> xids(std::size_t reading) const;
  std::string_view time_utc(const SamplePoint& p) const;
  int rounds() const noexcept { return rounds_; }
  // The last time the file reached: its samples, resumes and end line.
  double last_t_s() const;

  // A cell name, and the stored part of a time text, are at most this
  // long; a file has at most kMaxCells cells.
  static constexpr std::size_t kMaxCellName = 1024, kMaxTimeText = 64, kMaxCells = 20000;

 private:
  std::uint32_t cell_index(const Sample& s);
  std::uint32_t state_index(const TelemetryState& t);

  std::vector<SamplePoint> samples_;
  std::vector<CellInfo> cells_;
  std::map<std::string, std::uint32_t> cell_index_;
  std::vector<Reading> readings_;
  std::vector<TelemetryState> states_;
  std::vector<std::uint32_t> last_state_;  // per GPU: its latest state index + 1 (0: none yet)
  std::vector<std::pair<std::uint32_t, std::uint64_t>> xids_;  // (reading, XID)
  std::string times_;
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
