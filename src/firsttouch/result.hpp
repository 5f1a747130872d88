// The record of a first-touch run and its summary arithmetic. SI units;
// NaN marks a phase that does not apply to the path (an IPC open on the
// mpi path) or that the library does not expose (MPI's registration).
// Reporters (src/report/first_touch_report.cpp) only read these.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "records/result.hpp"
#include "base/stop.hpp"

namespace xb::firsttouch {

constexpr double kNotMeasured = std::numeric_limits<double>::quiet_NaN();

// Where one iteration's time went, each phase timed on the rank that does
// it (sender: allocation, export, the send; receiver: its allocation, the
// IPC open and, on ipc, the copy it pulls).
struct Phases {
  double alloc_sender_s = kNotMeasured;    // cudaMalloc / host allocation of the fresh source buffer
  double alloc_receiver_s = kNotMeasured;  // the receiver's fresh buffer
  double export_s = kNotMeasured;          // cudaIpcGetMemHandle (sender)
  double open_s = kNotMeasured;            // cudaIpcOpenMemHandle (receiver)
  double register_s = kNotMeasured;        // cudaHostRegister (host analogue)
  double first_copy_s = kNotMeasured;      // the data movement of sub-iteration 0
  std::vector<double> steady_copy_s;       // the same for sub-iterations 1..
};

// Sub-iteration 0 is the first copy, the others are steady copies.
inline void record_copy(Phases& p, int sub, double seconds) {
  if (sub == 0) {
    p.first_copy_s = seconds;
  } else {
    p.steady_copy_s.push_back(seconds);
  }
}

// Fills every field of `into` that is NaN (or empty) from `from`: the two
// ranks' halves of one iteration become one record.
void merge(Phases& into, const Phases& from);

struct VariantResult {
  std::string label;        // "with overalloc", "pinned, without overalloc", "+4096 B"
  std::string memory;       // gpu, host, pageable, pinned, registered
  std::uint64_t buffer_bytes = 0;
  std::uint64_t overalloc_bytes = 0;
  std::vector<std::vector<double>> times_s;  // [iteration][sub-iteration], as seen by the sender
  std::vector<Phases> phases;                // one per iteration
  std::vector<std::string> failed;           // "VARIANT/ITERATION: why" for iterations that failed (not in times_s)
  std::uint64_t alloc_bytes() const { return buffer_bytes + overalloc_bytes; }
};

// first: median over iterations of sub-iteration 0; steady: median of every
// later sub-iteration of every iteration; ratio = first / steady. steady
// and ratio are NaN with one sub-iteration.
struct FirstSteady {
  double first_s = kNotMeasured;
  double steady_s = kNotMeasured;
  double ratio = kNotMeasured;
};
FirstSteady summarize(const std::vector<std::vector<double>>& times_s);

// Median over iterations of each phase, NaN where no iteration has it;
// steady_copy_s holds one value, the median of all later sub-iterations.
Phases median_phases(const std::vector<Phases>& per_iteration);

struct Result {
  std::string mode;          // seed, sweep, host
  std::string transport;     // the path used; "cudaMemcpy" for the host analogue
  int world_size = 1;
  int sender_rank = 0, receiver_rank = 0;
  std::string sender_host, receiver_host;
  int sender_gpu = -1, receiver_gpu = -1;  // -1: host buffers
  int iterations = 0, sub_iterations = 0;
  std::uint64_t p2p_bytes = 0;
  double warmup_s = kNotMeasured;   // the small warm-up allocation and its sends ("[-1]")
  double connect_s = kNotMeasured;  // one-time path setup (NCCL communicator), before the warm-up
  std::vector<VariantResult> variants;
  // complete, or interrupted / partial (see xb::RunResult): why, and the
  // iterations ("VARIANT/ITERATION") not run. `error`: what ended the run
  // early after the iterations kept in variants.
  Completion completion;
};

// Some iteration of some variant failed (the `failed` of the exit-code
// rule, records/completion.hpp).
bool any_failed(const Result& r);

}  // namespace xb::firsttouch
