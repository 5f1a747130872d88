// What a first-touch run is asked to do: the seed's five positional values
// (ITERATIONS SUB_ITERATIONS P2P_SIZE BUFFER_SIZE OVERALLOC_SIZE) plus the
// transport, the overallocation sweep and the host-memory analogue. Parsed
// from plain strings so argument errors are found, and unit-tested, before
// MPI or any GPU starts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pingpong/options.hpp"

namespace xb::firsttouch {

// Where the two ranks' fresh buffers live; host buffers need no GPU, which
// is what the mpirun tests on a machine without one use.
enum class Memory { gpu, host };

struct Options {
  int iterations = 0;
  int sub_iterations = 0;
  std::uint64_t p2p_bytes = 0;
  std::vector<std::uint64_t> buffer_sizes;  // one value unless --buffer-sizes
  std::vector<std::uint64_t> overallocs;    // the seed's one value, or the sweep list
  bool sweep = false;                       // --sweep-overalloc: one row per (buffer, overalloc)
  bool host_analogue = false;               // --host: host memory -> GPU copies in this process
  Memory memory = Memory::gpu;
  pingpong::TransportKind transport = pingpong::TransportKind::automatic;
  pingpong::CudaAware cuda_aware = pingpong::CudaAware::automatic;
  double timeout_s = 60;
};

// One allocation size measured ITERATIONS times.
struct Variant {
  std::uint64_t buffer_bytes = 0;
  std::uint64_t overalloc_bytes = 0;
  std::uint64_t alloc_bytes() const { return buffer_bytes + overalloc_bytes; }
};

// The seed's form: {B + O} (with overalloc) then {B} (without). A sweep:
// every buffer size times every overalloc, in the order given.
std::vector<Variant> variants(const Options& o);
// "with overalloc" / "without overalloc" (the seed's words), or "+N B".
std::string variant_label(const Options& o, const Variant& v);

// The command line as typed; to_options() checks and converts it.
struct RawArgs {
  std::vector<std::string> positional;  // ITERATIONS SUB_ITERATIONS P2P_SIZE BUFFER_SIZE [OVERALLOC_SIZE]
  bool sweep = false;
  std::string sweep_list;               // empty: default_sweep_overallocs()
  std::string buffer_sizes;             // comma-separated; empty: BUFFER_SIZE
  bool host = false;
  std::string memory = "gpu";
  std::string transport = "auto";
  std::string cuda_aware = "auto";
  double timeout_s = 60;
};

// Error(usage) naming the value on anything out of range: counts and sizes
// of zero or below, P2P_SIZE above a buffer size, a missing OVERALLOC_SIZE.
Options to_options(const RawArgs& raw);
void validate(const Options& o);

}  // namespace xb::firsttouch
