// `xferbench run --dry-run`: what a run of named cases would do on a
// machine (this one, or one read with --topology FILE) and how long it
// would take, without touching a GPU. Pure: no CUDA.
//
// The time model (docs/dry_run.md) charges
//   run   = start + sum over cases (case + sum over its cells)
//           + pinning of each new host buffer + allocation of each new device buffer
//   cell  = cell overhead + warm-up copies + samples x copies x copy time
//           + verification of the destinations
//           + for a cell measured nvbandwidth's way too, that measurement
//             again (its own overhead, samples x (4 warm-ups + 16 copies))
// with the copy time of a cell the slowest of its transfers at an expected
// bandwidth (the link's theoretical peak x the efficiency such copies
// reached in recorded runs, host transfers that stream host memory sharing
// it), the copies per sample chosen as the measurement does (a sample lasts
// --sample-ms), and the samples: --min-samples, more with each host
// transfer that unsettles the cell's watched figure (adaptive sampling then
// meets the error target later), capped by --max-samples and --budget.
// New buffers: the run's buffer pool itself, over buffers that are sizes.
// Latency cells: samples x SMs x 400 hops x an expected latency.
// Managed-migration cells: each sample places and touches the pages, at the
// PCIe copy-engine rate (a guess: no migration run is recorded yet). The
// drift check (stability.hpp), when on, measures its reference cells twice.
// The constants are fitted to the recorded runs in bench/results by
// bench/fit_time_model.py.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cases/cases.hpp"
#include "measure/measure.hpp"
#include "base/memory_types.hpp"
#include "machine/pairs.hpp"
#include "machine/topology.hpp"

namespace xb {

struct TimeModel {
  double start_s;             // process start: CUDA initialisation, discovery, kernel loading ...
  double start_per_gpu_s;     // ... plus this per GPU (a context and module loads on each)
  double case_s;              // per case besides its cells
  double cell_s;              // per bandwidth cell besides its copies (events, gate, verification launch)
  double latency_cell_s;      // per latency cell besides its chases (ring building)
  double second_s;            // per second measurement (nvbandwidth's way) besides its copies
  double pin_s_per_gib;       // creating a pinned host buffer: allocate, fault in, cudaHostRegister
  double device_s_per_gib;    // creating a device buffer and filling its pattern
  double host_memory_gbps;    // all host transfers of a cell together (host memory and root complex)
  double contention;          // samples: fraction of (max - min) added per concurrent host transfer beyond one
  double contention_in_place; // ... when the watched transfer repeats in place (nvbandwidth's split-warp order)
  double host_latency_ns;     // expected pointer-chase latency through host memory
  double peer_latency_ns;     // ... through a peer GPU's memory (load or TMA chain)
  double local_latency_ns;    // ... through the GPU's own memory, past its L2
  double loaded_latency_ratio;  // a chase under load against the same chase idle
  // Expected fraction of the link's theoretical peak, by engine:
  double pcie_ce, pcie_sm, pcie_split;  // split: both directions of one kernel together, per byte moved
  double pcie_ce_duplex;                // copy-engine host copies while others run the other way
  double nvlink_ce, nvlink_sm;          // SM and TMA
  double local_copy;                    // of the local-copy peak (half the memory figure)
  double local_one_way;                 // read-only / write-only, of the memory figure
  double unknown_link_gbps;             // when a link has no known peak
};

// The constants fitted to bench/results (1, 2 and 4 GPUs, H200 and H100).
const TimeModel& recorded_time_model();

struct CellEstimate {
  int row = 0, col = 0;
  int transfers = 0;
  int host_transfers = 0;   // transfers streaming host memory at once (a split kernel: two; in place: none)
  int contending = 0;       // host transfers that unsettle the watched figure (contending_host_transfers)
  double copy_s = 0;        // the slowest transfer's copy at its expected bandwidth
  int copies = 0;           // per sample
  double samples = 0;       // expected
  double bytes_moved = 0;   // warm-up and timed copies of every transfer
  double verify_s = 0;      // reading the destinations back after the timed copies
  // The second measurement, nvbandwidth's way (CellPlan::nvbandwidth), when
  // the run takes it: its copy time, copies per sample (its warm-ups and
  // timed copies) and expected samples; its seconds are in `seconds`.
  struct Second {
    double copy_s = 0;
    int copies = 0;
    double samples = 0;
    double seconds = 0;
  };
  std::optional<Second> nvbandwidth;
  double seconds = 0;
};

struct CaseEstimate {
  const CaseDef* def = nullptr;
  std::string waived;        // reason when the case would be waived here
  std::vector<CellEstimate> cells;
  std::uint64_t new_host_bytes = 0;    // host buffers the run creates for this case
  std::uint64_t new_device_bytes = 0;
  double bytes_moved = 0;
  double seconds = 0;
};

struct RunEstimate {
  std::vector<CaseEstimate> cases;
  PairSelection pairs;
  double start_s = 0;
  int drift_cells = 0;       // reference cells of the drift check, each measured at the start and the end
  double drift_check_s = 0;  // its copies (drift_copies_s) and the buffers it creates first
  double drift_copies_s = 0;
  std::uint64_t drift_new_host_bytes = 0, drift_new_device_bytes = 0;
  double bytes_moved = 0;
  double seconds = 0;        // start, drift check and every case
  int cells = 0;
  // The largest need of any one cell, per GPU and host (run_memory_need):
  // the buffer pool's default budget, as the run records it.
  MemoryAmount peak_memory;
};

// Plans `cases` at `bytes` per buffer on `sys`, with the sampling settings
// of `opts` and the pair selection `pairs`, and estimates each cell.
// `drift_check`: the run's --drift-check is on (RunRequest::stability_check).
// Host-memory waivers (huge pages) are not predicted: they depend on the
// machine's state when it runs.
RunEstimate estimate_run(const System& sys, const std::vector<const CaseDef*>& cases, std::uint64_t bytes,
                         const MeasureOptions& opts, const PairSelection& pairs, bool drift_check = false,
                         const TimeModel& model = recorded_time_model());

}  // namespace xb
