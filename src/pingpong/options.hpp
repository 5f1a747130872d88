// What a process-to-process measurement is asked to do. Plain data filled
// by the command line (src/app/seed_args.cpp) or by tests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace xb::pingpong {

enum class TransportKind { automatic, mpi, staged, ipc, nccl, device };
enum class Mode { pingpong, bw, bibw };
enum class CudaAware { automatic, yes, no };
// What the responder sends back in pingpong mode. separate: its own send
// buffer, so each rank sends from one buffer and receives into another (as
// osu_latency and the mpi-ping-pong seed); echo: the buffer it has just
// received into, so the initiator gets its own pattern back.
enum class Buffers { separate, echo };

const char* to_string(TransportKind t) noexcept;
const char* to_string(Mode m) noexcept;
TransportKind parse_transport(const std::string& text);  // Error(usage) on bad text
Mode parse_mode(const std::string& text);
CudaAware parse_cuda_aware(const std::string& text);
const char* to_string(Buffers b) noexcept;
Buffers parse_buffers(const std::string& text);  // Error(usage) naming --buffers

// Where one rank's buffers live: host memory, or a GPU (device -1 = pick by
// node-local rank).
struct Endpoint {
  bool gpu = false;
  int device = -1;
};

// "host", "vh" (seed), "gpu", "ve" (seed), "gpu:1". Error(usage) otherwise.
Endpoint parse_endpoint(const std::string& text);
std::string to_string(const Endpoint& e);

struct Options {
  Endpoint dev1;             // the initiating rank (rank 0, or the lower rank of a pair)
  Endpoint dev2;             // the responding rank
  int num_sizes = 25;        // the seed's -n: sizes min_bytes, 2*min_bytes, ...
  std::uint64_t min_bytes = 8;
  int loop_count = 10;       // timed repetitions per size
  int warmup = 5;            // untimed repetitions per size
  TransportKind transport = TransportKind::automatic;
  Mode mode = Mode::pingpong;
  Buffers buffers = Buffers::separate;  // echo only with Mode::pingpong
  int window = 64;           // messages per repetition in bw/bibw, as osu_bw
  bool all_pairs = false;
  CudaAware cuda_aware = CudaAware::automatic;
  double timeout_s = 30;     // longest wait for any peer
  std::uint64_t seed = 42;   // data pattern seed
  std::uint64_t ll_max_bytes = 16 << 10;      // device transport: LL words up to this size
  std::uint64_t stage_chunk_bytes = 4 << 20;  // staged transport: pipeline chunk
};

// Message sizes of the sweep; Error(usage) when one would exceed 2 GiB - 1
// (MPI's int count) or the options are out of range.
std::vector<std::uint64_t> message_sizes(const Options& o);
// Range checks that need no peer (counts, sizes, timeout); Error(usage).
void validate(const Options& o);

}  // namespace xb::pingpong
