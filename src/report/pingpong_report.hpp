// Reporters for process-to-process results: the seed's table (text), JSON
// (schema "xferbench-pingpong", schema_version 1, units in field names) and
// CSV. They read pingpong::Result only and are the only code that formats
// its numbers.
#pragma once

#include <string>
#include <vector>

#include "pingpong/result.hpp"

namespace xb::report {


// Two-rank runs: `#` header lines, the seed's columns plus min, median,
// p99 and max one-way time, a `#` footer with the verification verdict.
// --all-pairs: rank table with hosts and GPUs, then bandwidth (largest
// size) and median and p99 one-way time (smallest size) matrices.
std::string pingpong_text(const pingpong::Result& r);
// The pieces of a two-rank table in the order they are printed, so rows can
// be printed as soon as they are measured: the run header (from the mode,
// counts and world size), then per pair its head (with the path), one row
// per size and its foot. pingpong_text() joins them.
std::string pingpong_text_header(const pingpong::Result& r);
std::string pingpong_pair_head(const pingpong::PairResult& p);
std::string pingpong_size_row(const pingpong::SizeResult& s);
std::string pingpong_pair_foot(const pingpong::PairResult& p);
// The run's last line when it did not measure everything ("" when complete).
std::string pingpong_completion_line(const pingpong::Result& r);
std::string pingpong_csv(const pingpong::Result& r);

}  // namespace xb::report
