// The named case catalogue (nvbandwidth's names, indices and meanings),
// generated from data: each case is a traffic pattern x an engine, and the
// pattern decides which transfers run together for each matrix cell.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/model.hpp"
#include "machine/topology.hpp"

namespace xb {


enum class Pattern {
  host_to_device, device_to_host,
  host_to_device_bidir, device_to_host_bidir,
  d2d_read, d2d_write, d2d_bidir_read, d2d_bidir_write,
  all_to_host, all_to_host_bidir, host_to_all, host_to_all_bidir,
  all_to_one_write, all_to_one_read, one_to_all_write, one_to_all_read,
  host_device_latency, d2d_latency,
  local_copy,
  managed_migration_to_device, managed_migration_to_host,
  local_read, local_write,  // each GPU reads (writes) its own memory only
  local_latency,            // each GPU chases pointers through its own memory
};

// What loads the link while a latency case's chase runs (the *_under_*
// cases measure each cell idle, then under this load); none: idle only.
enum class LatencyLoad { none, host_to_device, device_to_host, bidirectional, local_copy, peer_read };

inline constexpr const char* kOriginNvbandwidth = "nvbandwidth v0.8";
inline constexpr const char* kOriginXferbench = "xferbench";

struct PairSelection;

struct CaseDef {
  int index = 0;
  std::string name;
  Pattern pattern;
  Engine engine;
  std::string description;
  // Where the name comes from: kOriginNvbandwidth (its v0.8 catalogue, same
  // index) or kOriginXferbench (cases added here; nvbandwidth v0.10's own
  // names for its TMA and local read/write tests are not public).
  std::string origin = kOriginNvbandwidth;
  // SM bidirectional host cases only: each copy walks the whole buffer
  // instead of re-copying each part in place (nvbandwidth's order).
  bool streaming = false;
  // Latency cases: the copy-engine load their chase runs under.
  LatencyLoad load = LatencyLoad::none;
};

// nvbandwidth v0.8's cases are indices 0 .. kNvbandwidthCases - 1.
inline constexpr int kNvbandwidthCases = 35;

const std::vector<CaseDef>& case_catalogue();

// Resolves names, indices ("3") and prefixes to cases in catalogue order
// (names/indices keep the order given). Throws Error(usage) naming an
// unknown name, an index out of range or a prefix matching nothing.
std::vector<const CaseDef*> select_cases(const std::vector<std::string>& names,
                                         const std::vector<std::string>& prefixes);

// The cases of a named suite: "quick" (the default: the main host<->GPU,
// GPU<->GPU, latency and local-copy cases), "full" (nvbandwidth v0.8's 35
// cases, indices 0-34), "loaded" (the latency cases measured idle and under
// load) or "all" (every case, xferbench's own included).
std::vector<const CaseDef*> suite_cases(const std::string& suite);

// Why this machine cannot run the case (one GPU, no peer access, no GPU
// with a Tensor Memory Accelerator), if so.
std::optional<std::string> waive_reason(const CaseDef& def, const System& sys);

struct Matrix;

// Called before (begin = true) and after each cell a case measures, outside
// the timed region, with the cell's row and column; `xferbench check`
// samples NVML telemetry around every cell with it. After a cell,
// `measured` is the case's matrices so far, where the cell's results (one
// per matrix it reports to, at row and column) are the last of their
// cells; a soak writes them from there as they are measured. Before a
// cell it is null.
using CellHook =
    std::function<void(const CaseDef& def, int row, int col, bool begin, const std::vector<Matrix>* measured)>;

// Whether the case's scenarios move bytes to or from host memory.
bool uses_host_memory(Pattern p) noexcept;
// Whether the case copies between host memory and GPUs: the eight
// host<->device / all<->host copy patterns (not latency, not managed).
bool is_host_copy(Pattern p) noexcept;
// Whether its cells are GPU pairs (row, column) that --pair selects.
bool is_pairwise(Pattern p) noexcept;
// The four host copy patterns that run both ways at once.
bool is_host_bidir(Pattern p) noexcept;
// One GPU against all its peers at once (all_to_one, one_to_all).
bool is_fan(Pattern p) noexcept;
// A pointer chase: host, peer or local latency.
bool is_latency(Pattern p) noexcept;

// GPUs a cell of this case uses (row and column are matrix indices): the
// GPUs whose telemetry check and soak read around the cell.
std::vector<int> gpus_used(const CaseDef& def, int row, int col, int gpu_count);

}  // namespace xb
