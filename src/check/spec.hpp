// Expectation specs for `xferbench check` (TOML, read with toml++): the
// thresholds a node must meet, per case and link kind, as an absolute GB/s
// or ns or as a percentage of the link's theoretical peak. Every error names
// the file, the line and the key, and is Error(usage) (exit 2).
//
//   model = "H200"                 # refused on GPUs whose name lacks this (--force overrides)
//   [lint]
//   nvlinks_per_gpu = 18
//   severity = { persistence_mode = "error" }
//   [peers]
//   bandwidth_min = "85%"          # of the median of identical GPUs' cells
//   latency_max = "115%"
//   [[expect]]
//   case = "host_to_device_memcpy_ce"   # a catalogue name, or "*"
//   link = "pcie"                       # pcie | pcie_bidir | c2c | c2c_bidir | nvlink | pcie_peer | memory | "*"
//   matrix = "total"                    # optional: one matrix of a multi-matrix case
//   min = "52 GB/s"                     # or "80%"; latency cells take max = "1300 ns"
//   # loaded-latency cases (*_under_*) also take max_ratio = 3.5: the
//   # loaded latency at most that many times the idle one
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cases/cases.hpp"
#include "check/lint.hpp"

namespace xb::check {

// The kind of link a cell's bytes cross, as expectations name it.
// pcie_bidir: a host link carrying traffic both ways at once; c2c and
// c2c_bidir: the same over NVLink-C2C (Grace: GH200, GB200).
enum class LinkClass { pcie, pcie_bidir, nvlink, pcie_peer, memory, c2c, c2c_bidir };
const char* to_string(LinkClass c) noexcept;

// The catalogue case of that name; null for any other name.
const CaseDef* find_case(const std::string& name);

struct Threshold {
  // ratio: a loaded-latency cell's loaded / idle latency (max_ratio)
  enum class Unit { percent_of_peak, gbps, ns, ratio };
  Unit unit = Unit::percent_of_peak;
  double value = 0;  // percent, GB/s, ns or a ratio
};

struct Expectation {
  std::string case_name = "*";       // catalogue name or "*"
  std::optional<LinkClass> link;     // empty: any link
  std::string matrix;                // empty: any matrix
  Threshold threshold;
  bool latency = false;              // given as max (ns); bandwidth given as min
  std::string why;
  std::string where;                 // "h200.toml:42"
};

struct CheckSpec {
  std::string file;
  std::string model;                        // empty: any GPU
  std::vector<Expectation> expect;
  LintSettings lint;
  std::optional<double> peer_bandwidth_min_pct, peer_latency_max_pct;
};

// The expectation for a cell: the most specific match (case name, then
// link, then matrix), the later one on a tie; null when none matches.
const Expectation* find_expectation(const CheckSpec& spec, const std::string& case_name, const std::string& matrix,
                                    LinkClass link, bool latency);

// The max_ratio expectation for a loaded-latency cell of `case_name` over
// `link` (the most specific, as find_expectation); null when none.
const Expectation* find_ratio_expectation(const CheckSpec& spec, const std::string& case_name, LinkClass link);

CheckSpec parse_spec_text(const std::string& text, const std::string& file);
// Throws Error(usage) naming the file when it cannot be read (base/input_file.hpp).
CheckSpec parse_spec_file(const std::string& path);

}  // namespace xb::check
